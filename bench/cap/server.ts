/**
 * The peer: SAP CAP serving the bench objects (bench/cap/*.cds) as `cds serve` does in production,
 * `tsx bench/cap/server.ts <store> <rows>` (run with NODE_ENV=production, as bench/child.ts does).
 * It deploys CAP's own tables into a fresh database of its own (bench/cap/store.ts), loads
 * makeData(rows) and the indexes bench/metadata declares, then serves OData V4 on loopback. Prints
 * one JSON line once listening: its pid, CAP's version and the OData service root. Anything else
 * goes to stderr.
 */
import { resolve } from 'node:path';
import express from 'express';
import { makeData } from '../scenarios';
import type { Store } from '../stores';
import { capDatabase, resetCapStore, vacuumCapStore } from './store';

const MODEL = resolve(__dirname, 'service.cds');
const BATCH = 5000;
/** Quiet, as the ObjectQL server runs with logLevel 'silent': CAP logs every request at info. */
const QUIET = ['cds', 'odata', 'hcql', 'rest', 'sql', 'db', 'deploy', 'app', 'auth', 'serve', 'cluster', 'adapters'];

/** bench/metadata's indexes, on CAP's tables; on PostgreSQL in the order both sort in (nulls lowest). */
function indexes(store: Store): string[] {
  const asc = store === 'postgres' ? ' ASC NULLS FIRST' : '';
  return [
    `CREATE INDEX bench_item_name_index ON bench_item (name${asc})`,
    `CREATE INDEX bench_item_status_index ON bench_item (status${asc})`,
    `CREATE INDEX bench_item_status_amount_idx ON bench_item (status${asc}, amount${asc})`,
  ];
}

async function main(store: Store, rows: number): Promise<void> {
  // Read when @sap/cds first loads. The database plugins as a project's dependencies would give
  // them (on main they are devDependencies, which CAP does not look at in production).
  process.env.CDS_PLUGINS = JSON.stringify(
    Object.fromEntries(['@cap-js/sqlite', '@cap-js/postgres'].map((p) => [p, { impl: require.resolve(`${p}/cds-plugin`) }])),
  );
  // As package.json#cds would hold it.
  process.env.CDS_CONFIG = JSON.stringify({
    requires: { db: capDatabase(store), auth: { kind: 'anonymous', impl: resolve(__dirname, 'anonymous-auth.ts') } },
    log: { levels: Object.fromEntries(QUIET.map((id) => [id, 'warn'])) },
  });
  // CAP's start-up chatter goes to console.log/info; stdout carries only the JSON line.
  console.log = console.info = console.error.bind(console);
  const { default: cds } = await import('@sap/cds');

  await resetCapStore(store);
  const db = await cds.connect.to('db');
  await cds.deploy(await cds.load(MODEL)).to(db);
  const data = makeData(rows);
  const { INSERT } = cds.ql;
  await db.run(INSERT.into('bench_category').entries(data.categories));
  for (let i = 0; i < data.items.length; i += BATCH) {
    const batch = data.items.slice(i, i + BATCH).map(({ category, ...item }) => ({ ...item, category_id: category }));
    await db.run(INSERT.into('bench_item').entries(batch));
  }
  for (const sql of indexes(store)) await db.run(sql);
  if (store === 'postgres') await vacuumCapStore(store);
  else await db.run('ANALYZE');

  // The keys are strings, which CAP does not fill in itself (it does for UUID keys): a create gets one as ObjectQL's does.
  cds.on('served', (services) => {
    services.BenchService.before('CREATE', 'bench_item', (req) => {
      req.data.id ??= cds.utils.uuid();
    });
  });
  const app = express();
  app.disable('x-powered-by'); // as cds.server does for an app of its own in production
  // cds.server listens on every interface; the bench on loopback only.
  const listen = app.listen.bind(app);
  app.listen = ((port: number) => listen(port, '127.0.0.1')) as typeof app.listen;
  const server = await cds.server({ from: MODEL, port: 0, app });
  if (!server.listening) await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ pid: process.pid, cds: cds.version, odata: `http://127.0.0.1:${port}/odata/v4/bench` })}\n`);
}

main(process.argv[2] as Store, Number(process.argv[3])).catch((err) => {
  console.error(err);
  process.exit(1);
});
