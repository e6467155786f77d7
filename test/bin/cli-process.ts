/**
 * `objectql serve` as a child process, for the tests of what it prints: bin/objectql.js runs the
 * built dist/, so these tests need `npm run build` first (npm test builds).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Context } from 'mocha';

export const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'bin/objectql.js');
const WAIT_MS = 15_000;
/** How long a test waits for a server process to start, reload or exit: generous, as the whole suite shares two cores with it in CI. */
export const SERVER_WAIT_MS = 45_000;

export interface Served {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** Skips the suite when dist/ has not been built. Call from a `before` hook. */
export function needBuiltCli(ctx: Context): void {
  if (existsSync(join(ROOT, 'dist/bin/cli.js'))) return;
  console.warn('    skipping: dist/bin/cli.js is missing; run `npm run build` first');
  ctx.skip();
}

/**
 * Runs `objectql serve ARGS` with exactly `env` over the environment (undefined removes a variable;
 * PORT and NODE_ENV never come from the test's own). Once stdout holds `until` (when given), `onReady`
 * runs and the process is stopped with SIGTERM; resolves with the exit code and what it printed.
 */
export function serve(
  args: string[],
  env: Record<string, string | undefined>,
  until?: string,
  onReady?: (stdout: string) => Promise<void>,
): Promise<Served> {
  const { PORT: _port, NODE_ENV: _env, ...base } = process.env;
  const merged: NodeJS.ProcessEnv = Object.fromEntries(Object.entries({ ...base, ...env }).filter(([, v]) => v !== undefined));
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { cwd: ROOT, env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let ready = false;
  let readyFailure: Error | undefined;
  const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
  child.stdout.on('data', (d) => {
    stdout += d;
    if (until === undefined || ready || !stdout.includes(until)) return;
    ready = true;
    (onReady ?? (() => Promise.resolve()))(stdout)
      .catch((err: unknown) => (readyFailure = err instanceof Error ? err : new Error(String(err))))
      .finally(() => child.kill('SIGTERM'));
  });
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((res, rej) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (readyFailure) rej(readyFailure);
      else res({ code: code ?? signal ?? -1, stdout, stderr });
    }),
  );
}
