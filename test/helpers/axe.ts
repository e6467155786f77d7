/**
 * Accessibility checks with axe-core (a devDependency) in a page driven by playwright-core. The
 * script is evaluated through the DevTools protocol, which a page's Content-Security-Policy does
 * not restrict (a <script> tag would be refused by `script-src 'self'`).
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

let source: string | undefined;

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  helpUrl: string;
  nodes: Array<{ target: string[]; html: string; failureSummary?: string }>;
}

/** axe-core's violations in the page as it stands (axe is injected once per document). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) {
    source ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    await page.evaluate(source);
  }
  return page.evaluate<AxeViolation[]>(
    `window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })),
    })))`,
  );
}

/** The violations of impact `serious` or `critical`, each on a line of its own (empty: none). */
export async function seriousViolations(page: Page): Promise<string[]> {
  return (await axeViolations(page))
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => `${n.target.join(' ')} ${n.html.slice(0, 200)}`).join(' | ')}`);
}
