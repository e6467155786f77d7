/**
 * Where the bench data lives: the memory driver, a SQLite file, or PostgreSQL (PG_URL, default
 * the local test server; the bench uses a database of its own, objectql_bench, made and dropped
 * by the run). BENCH_STORES picks them (default: memory,sqlite,postgres).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatasourceConfig } from '../kernel';

export type Store = 'memory' | 'sqlite' | 'postgres';

export const STORES: Store[] = (process.env.BENCH_STORES ?? 'memory,sqlite,postgres').split(',').map((s) => s.trim()) as Store[];

export const PG_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const SQLITE_FILE = join(tmpdir(), 'objectql-bench.sqlite');
export const PG_BENCH_URL = PG_URL.replace(/\/[^/?]+(\?|$)/, '/objectql_bench$1');

export function datasource(store: Store): DatasourceConfig {
  switch (store) {
    case 'memory':
      return { driver: 'memory' };
    case 'sqlite':
      return { driver: 'sql', client: 'better-sqlite3', connection: { filename: SQLITE_FILE } };
    case 'postgres':
      return { driver: 'sql', client: 'pg', connection: PG_BENCH_URL };
  }
}

/** A fresh, empty store: the SQLite file removed, the PostgreSQL bench database recreated. */
export async function resetStore(store: Store): Promise<void> {
  if (store === 'sqlite') {
    const { rmSync } = await import('node:fs');
    for (const suffix of ['', '-wal', '-shm']) rmSync(SQLITE_FILE + suffix, { force: true });
  }
  if (store === 'postgres') {
    const { Client } = await import('pg');
    const admin = new Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      await admin.query('DROP DATABASE IF EXISTS objectql_bench WITH (FORCE)');
      await admin.query('CREATE DATABASE objectql_bench');
    } finally {
      await admin.end();
    }
  }
}
