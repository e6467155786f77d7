#!/usr/bin/env node
/**
 * `npm test`: runs the test groups (scripts/test-groups.cjs) as separate mocha processes, side by side, and
 * fails when any group fails. Each group's output is printed whole when it ends (never
 * interleaved), then one line per group and the total.
 *
 *   node scripts/test.mjs                  every group (npm test)
 *   node scripts/test.mjs unit matrix      only these (npm run test:unit runs one, printing as it goes)
 *
 * The groups are separate processes, so nothing process-wide (environment variables a test sets,
 * module state) is shared between them; what they do share is external and kept apart by the tests
 * themselves (ephemeral ports, temporary folders, random SQL namespaces and Redis prefixes).
 * `streaming` measures the peak resident memory of a server in a child process of its own: other
 * processes do not count in it, so it runs alongside the rest. REQUIRE_SERVICES and every other
 * variable of the environment pass through to the groups; TEST_REPORTER picks mocha's reporter
 * (default dot).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const MOCHA = require.resolve('mocha/bin/mocha.js');

const ALL = Object.keys(require('./test-groups.cjs'));

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !ALL.includes(name));
if (unknown.length > 0) {
  console.error(`test: no group named ${unknown.join(', ')}; the groups are ${ALL.join(', ')}`);
  process.exit(2);
}
const wanted = new Set(asked.length > 0 ? asked : ALL);
/** One group alone prints as it goes; several print each group's output whole when it ends. */
const live = wanted.size === 1;

/** Runs one group's mocha; resolves with its output, exit status and counts. */
function runGroup(name) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MOCHA, '--reporter', process.env.TEST_REPORTER ?? 'dot'], {
      cwd: ROOT,
      env: { ...process.env, TEST_GROUP: name },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    const chunks = [];
    const keep = (stream) => (chunk) => {
      chunks.push(chunk);
      if (live) stream.write(chunk);
    };
    child.stdout.on('data', keep(process.stdout));
    child.stderr.on('data', keep(process.stderr));
    child.on('close', (code, signal) => {
      children.delete(child);
      const output = Buffer.concat(chunks).toString('utf8');
      resolve({ name, code: code ?? 1, signal, output, seconds: (Date.now() - started) / 1000, ...counts(output) });
    });
  });
}

/** The counts of mocha's closing lines ("N passing", "N pending", "N failing"); none when it did not get that far. */
function counts(output) {
  const count = (word) => {
    const found = [...output.matchAll(new RegExp(`^\\s*(\\d+) ${word}\\b`, 'gm'))];
    return found.length > 0 ? Number(found[found.length - 1][1]) : 0;
  };
  const finished = /^\s*\d+ passing\b/m.test(output);
  return finished ? { passed: count('passing'), failed: count('failing'), skipped: count('pending') } : {};
}

const children = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
    process.exit(128 + constants.signals[signal]);
  });
}

const startedAll = Date.now();
const results = await Promise.all(
  ALL.filter((name) => wanted.has(name)).map(async (name) => {
    const result = await runGroup(name);
    if (!live)
      process.stdout.write(`\n===== ${name}: ${status(result)} in ${result.seconds.toFixed(1)} s =====\n${result.output.trimEnd()}\n`);
    return result;
  }),
);

function status(r) {
  if (r.signal) return `killed by ${r.signal}`;
  if (r.code !== 0 || r.passed === undefined) return `FAILED (exit ${r.code})`;
  return 'ok';
}

const total = { passed: 0, failed: 0, skipped: 0 };
console.log('\ntest groups:');
for (const r of results) {
  const c = r.passed === undefined ? 'no summary (mocha did not finish)' : `${r.passed} passing, ${r.failed} failing, ${r.skipped} pending`;
  console.log(`  ${r.name.padEnd(12)} ${status(r).padEnd(16)} ${c.padEnd(40)} ${r.seconds.toFixed(1).padStart(6)} s`);
  for (const key of Object.keys(total)) total[key] += r[key] ?? 0;
}
const failed = results.filter((r) => r.code !== 0 || r.passed === undefined);
console.log(`  wall time ${((Date.now() - startedAll) / 1000).toFixed(1)} s`);
// Every failed group counts at least one failure, even one that crashed before counting.
console.log(`tests: ${total.passed} passed, ${Math.max(total.failed, failed.length)} failed, ${total.skipped} skipped`);
process.exit(failed.length > 0 ? 1 : 0);
