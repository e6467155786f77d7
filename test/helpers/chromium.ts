/**
 * Debian's Chromium for the tests that render a page we serve in a real browser: its DOM once
 * scripts have run (renderedDom), or a tab driven by playwright-core to click through pages
 * (openBrowserPage). Missing, such a test skips with the reason printed, unless
 * REQUIRE_SERVICES names `chromium` (.ci/run installs it and does): then it fails.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'mocha';
import { promisify } from 'node:util';
import { chromium as playwright, type Page } from 'playwright-core';
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

/** A Chromium tab driven by playwright-core, for tests that click through pages we serve. */
export interface BrowserPage {
  /** Playwright's page itself, for what the methods below do not cover (fill, waitForSelector, ...). */
  readonly page: Page;
  /** Opens `url` and waits until its document has loaded. */
  goto(url: string): Promise<void>;
  /** The value of a JavaScript expression in the page (JSON-serializable; a promise is awaited); a thrown error rejects. */
  evaluate<T>(expression: string): Promise<T>;
  /** Clicks the first element matching `selector` and waits until the document it leads to has loaded. */
  click(selector: string): Promise<void>;
  /** Writes a PNG of the page as a test artefact (os.tmpdir()/objectql-screenshots/<name>.png); resolves with its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/** How long a page may take to load before goto or click fails (a deadline, not a measurement). */
const LOAD_DEADLINE_MS = 20_000;

/** Starts Debian's Chromium headless (playwright-core, whose own browser download is not used) with one tab. Close it in an `after` hook. */
export async function openBrowserPage(executablePath: string): Promise<BrowserPage> {
  const browser = await playwright.launch({
    executablePath,
    headless: true,
    args: FLAGS.filter((f) => f !== '--headless'),
    timeout: LOAD_DEADLINE_MS,
  });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(LOAD_DEADLINE_MS);
    return {
      page,
      async goto(url) {
        await page.goto(url, { waitUntil: 'load' });
      },
      evaluate: <T>(expression: string) => page.evaluate<T>(expression),
      async click(selector) {
        await Promise.all([page.waitForEvent('load'), page.click(selector)]);
      },
      async screenshot(name) {
        const dir = join(tmpdir(), 'objectql-screenshots');
        mkdirSync(dir, { recursive: true });
        const path = join(dir, `${name.replace(/[^\w.-]+/g, '-')}.png`);
        await page.screenshot({ path, fullPage: true });
        return path;
      },
      close: () => browser.close(),
    };
  } catch (err) {
    await browser.close();
    throw err;
  }
}
