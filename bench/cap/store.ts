/**
 * Where CAP keeps the bench data: a database of its own beside ObjectQL's, made fresh each run —
 * SQLite in memory (CAP's own development default; it has no array store) for the memory store,
 * a SQLite file in the OS temp dir, or the PostgreSQL database objectql_bench_cap.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PG_BENCH_URL, PG_URL, type Store } from '../stores';

export const CAP_SQLITE_FILE = join(tmpdir(), 'objectql-bench-cap.sqlite');
const CAP_PG_URL = PG_BENCH_URL.replace(/\/[^/?]+(\?|$)/, '/objectql_bench_cap$1');

/** cds.requires.db for the store. */
export function capDatabase(store: Store): Record<string, unknown> {
  switch (store) {
    case 'memory':
      return { kind: 'sqlite', credentials: { url: ':memory:' } };
    case 'sqlite':
      return { kind: 'sqlite', credentials: { url: CAP_SQLITE_FILE } };
    case 'postgres': {
      const url = new URL(CAP_PG_URL);
      return {
        kind: 'postgres',
        credentials: {
          host: url.hostname,
          port: Number(url.port || 5432),
          user: decodeURIComponent(url.username),
          password: decodeURIComponent(url.password),
          database: 'objectql_bench_cap',
        },
      };
    }
  }
}

/** An empty database for CAP to deploy its tables into. */
export async function resetCapStore(store: Store): Promise<void> {
  if (store === 'sqlite') for (const suffix of ['', '-wal', '-shm']) rmSync(CAP_SQLITE_FILE + suffix, { force: true });
  if (store === 'postgres') {
    await withPg(PG_URL, async (admin) => {
      await admin.query('DROP DATABASE IF EXISTS objectql_bench_cap WITH (FORCE)');
      await admin.query('CREATE DATABASE objectql_bench_cap');
    });
  }
}

/** As bench/seed.ts leaves ObjectQL's PostgreSQL database after the load (VACUUM cannot run in CAP's transactions). */
export async function vacuumCapStore(store: Store): Promise<void> {
  if (store === 'postgres') await withPg(CAP_PG_URL, (client) => client.query('VACUUM ANALYZE'));
}

async function withPg(url: string, fn: (client: import('pg').Client) => Promise<unknown>): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}
