/**
 * `npm run bench`: real HTTP load (autocannon) on JSON-RPC queries against the memory driver,
 * each beside a bare node:http baseline doing the same work by hand on the same data, in the
 * same run. Reports requests/s and p99 latency, and ObjectQL's throughput as a ratio of the
 * baseline's. ROWS and BENCH_SECONDS tune it.
 */
import autocannon from 'autocannon';
import { resolve } from 'node:path';
import { createKernel } from '../kernel';
import { startBaseline } from './baseline';
import { SCENARIOS, makeData } from './scenarios';

const ROWS = Number(process.env.ROWS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

async function load(url: string, body: unknown): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({
    url, method: 'POST', duration: SECONDS, connections: 10,
    headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function main() {
  const data = makeData(ROWS);
  const kernel = await createKernel({ port: 0, host: '127.0.0.1', logLevel: 'silent', metadata: [resolve(__dirname, 'metadata')], limits: { maxTop: 1000 } });
  await kernel.start();
  const ds = kernel.resolve('datasources').get('default');
  for (const c of data.categories) await ds.create('bench_category', c);
  for (const item of data.items) await ds.create('bench_item', item);
  const baseline = await startBaseline(data);

  console.log(`ObjectQL vs bare node:http, memory store, ${ROWS} rows, ${SECONDS}s per run, 10 connections\n`);
  console.log('| scenario | ObjectQL req/s | baseline req/s | ratio | ObjectQL p99 ms | baseline p99 ms |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const s of SCENARIOS) {
    const body = s.rpc(data);
    const o = await load(`${kernel.http.url}${kernel.config.routes.rpc}`, body);
    const b = await load(`${baseline.url}/${s.name}`, body);
    if (o.errors || b.errors) console.error(`${s.name}: ${o.errors} ObjectQL errors, ${b.errors} baseline errors`);
    console.log(`| ${s.name} | ${o.rps.toFixed(0)} | ${b.rps.toFixed(0)} | ${(o.rps / b.rps).toFixed(2)} | ${o.p99} | ${b.p99} |`);
  }
  await baseline.close();
  await kernel.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
