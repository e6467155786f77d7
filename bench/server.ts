/**
 * One benchmarked server in its own process, so that the load generator does not share its
 * event loop: `tsx bench/server.ts objectql|baseline`. Prints its URL on stdout once listening.
 */
import { resolve } from 'node:path';
import { createKernel } from '../kernel';
import { startBaseline } from './baseline';
import { makeData } from './scenarios';

async function main(mode: string, rows: number) {
  const data = makeData(rows);
  if (mode === 'baseline') {
    const baseline = await startBaseline(data);
    process.stdout.write(`${baseline.url}\n`);
    return;
  }
  const kernel = await createKernel({ port: 0, host: '127.0.0.1', logLevel: 'silent', metadata: [resolve(__dirname, 'metadata')] });
  await kernel.start();
  const ds = kernel.resolve('datasources').get('default');
  for (const c of data.categories) await ds.create('bench_category', c);
  for (const item of data.items) await ds.create('bench_item', item);
  process.stdout.write(`${kernel.http.url}${kernel.config.routes.rpc}\n`);
}

main(process.argv[2], Number(process.argv[3])).catch((err) => {
  console.error(err);
  process.exit(1);
});
