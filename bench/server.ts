/**
 * One benchmarked server in its own process, so that the load generator does not share its
 * event loop: `tsx bench/server.ts objectql|baseline <store> <rows>`. Prints one JSON line once
 * listening: its pid (tsx runs the script in a child process), its JSON-RPC, REST and OData base
 * URLs and its GraphQL endpoint (the baseline answers every scenario on one URL, by name, and
 * prints no OData or GraphQL URL).
 * SQL stores are seeded beforehand (bench/seed.ts); the memory ones fill themselves.
 * ObjectQL runs as deployed: the compiled build (`npm run build`, which `npm run bench` runs
 * first), as bin/objectql.js runs it, not tsx's transform of the sources.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type * as Server from '../server';
import { startBaseline } from './baseline';
import { startSqlBaseline } from './baseline-sql';
import { makeData } from './scenarios';
import { datasource, type Store } from './stores';

/** The OData plugin's base path (its default, named here so the URL printed below follows it). */
const ODATA_BASE = '/odata';
/** The GraphQL plugin's endpoint (its default `path`). */
const GRAPHQL_PATH = '/api/graphql';

async function main(mode: string, store: Store, rows: number) {
  if (mode === 'baseline') {
    const baseline = store === 'memory' ? await startBaseline(makeData(rows)) : await startSqlBaseline(store);
    process.stdout.write(`${JSON.stringify({ pid: process.pid, rpc: baseline.url, rest: baseline.url })}\n`);
    return;
  }
  const built = resolve(__dirname, '../dist/server/index.js');
  if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build first`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the build, found at run time
  const { createKernel } = require(built) as typeof Server;
  const kernel = await createKernel({
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
    metadata: [resolve(__dirname, 'metadata')],
    datasources: { default: datasource(store) },
    plugins: { rpc: true, rest: true, odata: { basePath: ODATA_BASE }, graphql: { path: GRAPHQL_PATH } },
  });
  await kernel.start();
  if (store === 'memory') {
    const data = makeData(rows);
    const ds = kernel.resolve('datasources').get('default');
    for (const c of data.categories) await ds.create('bench_category', c);
    for (const item of data.items) await ds.create('bench_item', item);
  }
  const { rpc, data } = kernel.config.routes;
  process.stdout.write(
    `${JSON.stringify({ pid: process.pid, rpc: kernel.http.url + rpc, rest: kernel.http.url + data, odata: kernel.http.url + ODATA_BASE, graphql: kernel.http.url + GRAPHQL_PATH })}\n`,
  );
}

// An exit on SIGINT writes the CPU profile of `npm run bench:profile` (node --cpu-prof).
process.once('SIGINT', () => process.exit(0));

main(process.argv[2], process.argv[3] as Store, Number(process.argv[4])).catch((err) => {
  console.error(err);
  process.exit(1);
});
