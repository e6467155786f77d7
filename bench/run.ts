/**
 * `npm run bench`: real HTTP load (autocannon) on JSON-RPC list / get / count / expand / group-by /
 * create against each store (BENCH_STORES: memory, sqlite, postgres), each beside a bare node:http
 * baseline doing the same work by hand (plain arrays, or the equivalent prepared SQL) on the same
 * data, in the same run. Each server runs in a process of its own and is warmed up first. Reports
 * requests/s and p99 latency, and ObjectQL's throughput as a ratio of the baseline's.
 * ROWS (default 10000) and BENCH_SECONDS (default 5) tune it.
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { SCENARIOS, makeData } from './scenarios';
import { seed } from './seed';
import { resetStore, STORES, type Store } from './stores';

const ROWS = Number(process.env.ROWS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;

async function startServer(mode: 'objectql' | 'baseline', store: Store): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), resolve(__dirname, 'server.ts'), mode, store, String(ROWS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await Promise.race([
    once(createInterface({ input: child.stdout! }), 'line'),
    once(child, 'exit').then(() => {
      throw new Error(`${mode} server (${store}) exited before listening`);
    }),
  ])) as [string];
  return { url: line.trim(), child };
}

async function load(url: string, body: unknown, duration = SECONDS): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({ url, method: 'POST', duration, connections: CONNECTIONS, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function benchStore(store: Store): Promise<void> {
  const data = makeData(ROWS);
  if (store !== 'memory') {
    await resetStore(store);
    const started = Date.now();
    await seed(store, data);
    console.error(`${store}: seeded ${ROWS} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const objectql = await startServer('objectql', store);
  const baseline = await startServer('baseline', store);
  try {
    console.log(`\n### ${store}: ObjectQL (JSON-RPC) vs bare node:http, ${ROWS} rows, ${SECONDS} s per run, ${CONNECTIONS} connections\n`);
    console.log('| scenario | ObjectQL req/s | baseline req/s | ratio | ObjectQL p99 ms | baseline p99 ms |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const s of SCENARIOS) {
      const body = s.rpc(data);
      // A short unmeasured run first, so both are measured warm.
      await load(objectql.url, body, 1);
      await load(`${baseline.url}/${s.name}`, body, 1);
      const o = await load(objectql.url, body);
      const b = await load(`${baseline.url}/${s.name}`, body);
      if (o.errors || b.errors) console.error(`${store} ${s.name}: ${o.errors} ObjectQL errors, ${b.errors} baseline errors`);
      console.log(`| ${s.name} | ${o.rps.toFixed(0)} | ${b.rps.toFixed(0)} | ${(o.rps / b.rps).toFixed(2)} | ${o.p99} | ${b.p99} |`);
    }
  } finally {
    objectql.child.kill('SIGTERM');
    baseline.child.kill('SIGTERM');
  }
}

async function main() {
  for (const store of STORES) {
    try {
      await benchStore(store);
    } catch (err) {
      console.error(`${store}: not measured: ${(err as Error).message}`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
