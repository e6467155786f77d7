/**
 * Debian's Chromium for the tests that render a page we serve in a real browser. Missing, such a
 * test skips with the reason printed, unless REQUIRE_SERVICES names `chromium` (.ci/run installs
 * it and does): then it fails.
 */
import { execFile, execFileSync } from 'node:child_process';
import type { Context } from 'mocha';
import { promisify } from 'node:util';
import { isRequired } from './services';

/** Headless, sandboxless (tests run as root here), and reaching no network but the page's. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** The installed Chromium's path, or a skip (a failure when required). Call from a `before` hook. */
export function chromiumOrSkip(ctx: Context): string {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      const path = execFileSync('which', [name], { encoding: 'utf8' }).trim();
      if (path) return path;
    } catch {
      // not this one
    }
  }
  if (isRequired('chromium')) throw new Error('REQUIRE_SERVICES names chromium, but no Chromium is installed');
  console.log('      (skipped: no Chromium on this machine; apt-get install chromium)');
  ctx.skip();
}

/** The DOM of `url` once scripts have run for up to `budgetMs` of virtual time (Chromium's --dump-dom). */
export async function renderedDom(chromium: string, url: string, budgetMs = 15_000): Promise<string> {
  const { stdout } = await promisify(execFile)(chromium, [...FLAGS, `--virtual-time-budget=${budgetMs}`, '--dump-dom', url], {
    timeout: 50_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}
