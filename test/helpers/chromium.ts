/**
 * Debian's Chromium for the tests that render a page we serve in a real browser: its DOM once
 * scripts have run (renderedDom), or a tab driven over the DevTools protocol to click through
 * pages (openBrowserPage). Missing, such a test skips with the reason printed, unless
 * REQUIRE_SERVICES names `chromium` (.ci/run installs it and does): then it fails.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'mocha';
import { promisify } from 'node:util';
import WebSocket from 'ws';
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

/** A Chromium tab driven over the DevTools protocol, for tests that click through pages we serve. */
export interface BrowserPage {
  /** Opens `url` and waits until its document has loaded. */
  goto(url: string): Promise<void>;
  /** The value of a JavaScript expression in the page (JSON-serializable); a thrown error rejects. */
  evaluate<T>(expression: string): Promise<T>;
  /** Clicks the first element matching `selector` and waits until the document it leads to has loaded. */
  click(selector: string): Promise<void>;
  close(): Promise<void>;
}

/** How long a page may take to load before goto or click fails (a deadline, not a measurement). */
const LOAD_DEADLINE_MS = 20_000;

/** Starts a headless Chromium with one tab, driven over its DevTools WebSocket. Close it in an `after` hook. */
export async function openBrowserPage(chromium: string): Promise<BrowserPage> {
  const profile = mkdtempSync(join(tmpdir(), 'objectql-chromium-'));
  const child = spawn(chromium, [...FLAGS, '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    // SIGTERM lets Chromium end its own child processes; SIGKILL only if it does not exit.
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited; // the profile folder is Chromium's until then
    clearTimeout(killer);
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    const browser = await new Promise<string>((resolve, reject) => {
      let said = '';
      child.stderr.on('data', (d: Buffer) => {
        said += d.toString();
        const found = /DevTools listening on (ws:\/\/\S+)/.exec(said);
        if (found) resolve(found[1]);
      });
      child.once('exit', (code) => reject(new Error(`Chromium exited (${code}) before it listened: ${said}`)));
    });
    const targets = (await (await fetch(`http://${new URL(browser).host}/json/list`)).json()) as Array<{
      type: string;
      webSocketDebuggerUrl: string;
    }>;
    const tab = targets.find((t) => t.type === 'page');
    if (!tab) throw new Error('Chromium opened no tab');
    const ws = new WebSocket(tab.webSocketDebuggerUrl);
    await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
    const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
    ws.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
      const waiting = message.id === undefined ? undefined : pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id!);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
    });
    let lastId = 0;
    const send = (method: string, params: object = {}): Promise<any> =>
      new Promise((resolve, reject) => {
        const id = ++lastId;
        pending.set(id, { resolve, reject });
        ws.send(JSON.stringify({ id, method, params }));
      });
    const evaluate = async <T>(expression: string): Promise<T> => {
      const { result, exceptionDetails } = await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
      if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
      return result.value as T;
    };
    // The old document carries a mark; a loaded document without it is the new one.
    const leaving = () => evaluate('window.__objectqlLeaving = true');
    const arrived = async (what: string) => {
      const deadline = Date.now() + LOAD_DEADLINE_MS;
      while (!(await evaluate<boolean>("!window.__objectqlLeaving && document.readyState === 'complete'").catch(() => false))) {
        if (Date.now() > deadline) throw new Error(`${what} did not load within ${LOAD_DEADLINE_MS} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    return {
      async goto(url) {
        await leaving();
        await send('Page.navigate', { url });
        await arrived(url);
      },
      evaluate,
      async click(selector) {
        await leaving();
        await evaluate(`document.querySelector(${JSON.stringify(selector)}).click()`);
        await arrived(`the page behind ${selector}`);
      },
      async close() {
        ws.close();
        await stop();
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
