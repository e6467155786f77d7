/**
 * `npm run bench:cpu`: what each request costs the server in CPU time, the steadier measure on a
 * noisy machine (throughput moves ±20% between runs here; this moves a few percent). One ObjectQL
 * bench server (bench/server.ts) in its own process; per scenario and protocol, a warm-up, then
 * REQUESTS requests over 10 connections while the server's CPU time (user + system, every thread,
 * from /proc) is read before and after. Prints µs of CPU per request.
 *   STORE (default sqlite), ROWS (default 10000), REQUESTS (default 4000), SCENARIOS and
 *   PROTOCOLS (comma-separated; default all that have a form), ROUNDS (default 2: the lower is kept).
 */
import autocannon from 'autocannon';
import { resolve } from 'node:path';
import { startChild, stopChild } from './child';
import { formFor, hasForm, type Urls } from './forms';
import { cpuTime } from './proc-cpu';
import { makeData, SCENARIOS, sent } from './scenarios';
import { seed } from './seed';
import { resetStore, type Store } from './stores';

const STORE = (process.env.STORE ?? 'sqlite') as Store;
const ROWS = Number(process.env.ROWS ?? 10_000);
const REQUESTS = Number(process.env.REQUESTS ?? 4000);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const list = (value: string | undefined, all: string[]) => (value ? value.split(',').map((s) => s.trim()) : all);
const WANTED = list(
  process.env.SCENARIOS,
  SCENARIOS.map((s) => s.name),
);
const PROTOCOLS = list(process.env.PROTOCOLS, ['rest', 'rpc', 'odata', 'graphql']);

const cpuMicros = (pid: number): number => cpuTime(pid) ?? NaN;

async function load(urls: Urls, data: ReturnType<typeof makeData>, scenario: string, protocol: string, amount: number) {
  const { url, request } = formFor(urls, data, scenario, protocol);
  const result = await autocannon({
    url: url.origin,
    connections: 10,
    amount,
    requests: [{ ...sent(request), path: request.path }],
  });
  const failed = result.non2xx + result.errors;
  if (failed > 0) throw new Error(`${scenario} over ${protocol}: ${failed} of ${amount} requests failed`);
}

async function main() {
  const data = makeData(ROWS);
  if (STORE !== 'memory') {
    await resetStore(STORE);
    await seed(STORE, data);
  }
  const { info, child } = await startChild<Urls>(resolve(__dirname, 'server.ts'), ['objectql', STORE, String(ROWS)]);
  try {
    console.log(`CPU µs per request, ${STORE}, ${ROWS} rows, ${REQUESTS} requests, lower of ${ROUNDS} rounds\n`);
    console.log('| scenario | protocol | µs |\n|---|---|---:|');
    for (const scenario of WANTED) {
      for (const protocol of PROTOCOLS.filter((p) => hasForm(scenario, p))) {
        await load(info, data, scenario, protocol, Math.ceil(REQUESTS / 4));
        let best = Infinity;
        for (let round = 0; round < ROUNDS; round++) {
          const before = cpuMicros(info.pid);
          await load(info, data, scenario, protocol, REQUESTS);
          best = Math.min(best, (cpuMicros(info.pid) - before) / REQUESTS);
        }
        console.log(`| ${scenario} | ${protocol} | ${best.toFixed(0)} |`);
      }
    }
  } finally {
    await stopChild(child);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
