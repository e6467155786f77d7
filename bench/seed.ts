/** Fills a SQL store with the bench data through the driver itself (so the layout is the driver's), in batches. */
import { resolve } from 'node:path';
import { createKernel } from '../server';
import type { BenchData } from './scenarios';
import { datasource, PG_BENCH_URL, SQLITE_FILE, type Store } from './stores';

const BATCH = 5000;

export async function seed(store: Store, data: BenchData): Promise<void> {
  const kernel = await createKernel({
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
    metadata: [resolve(__dirname, 'metadata')],
    datasources: { default: datasource(store) },
  });
  await kernel.start();
  try {
    const ds = kernel.resolve('datasources').get('default');
    await ds.transaction(async (tx) => {
      for (const c of data.categories) await ds.create('bench_category', c, tx);
    });
    for (let i = 0; i < data.items.length; i += BATCH) {
      await ds.transaction(async (tx) => {
        for (const item of data.items.slice(i, i + BATCH)) await ds.create('bench_item', item, tx);
      });
    }
  } finally {
    await kernel.stop();
  }
  await analyze(store);
}

/** Fresh statistics and visibility, as autovacuum would leave them some time after a bulk load. */
async function analyze(store: Store): Promise<void> {
  if (store === 'postgres') {
    const { Client } = await import('pg');
    const client = new Client({ connectionString: PG_BENCH_URL });
    await client.connect();
    try {
      await client.query('VACUUM ANALYZE');
    } finally {
      await client.end();
    }
  }
  if (store === 'sqlite') {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(SQLITE_FILE);
    try {
      db.exec('ANALYZE');
    } finally {
      db.close();
    }
  }
}
