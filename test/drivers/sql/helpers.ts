/**
 * Shared set-up of the SQL driver tests. Each test that needs storage opens a namespace of its
 * own — a database file (SQLite), a schema (PostgreSQL) or a database (MySQL / MariaDB) — and
 * drops it afterwards, so tests and runs never see each other's tables. The server engines are
 * guarded with needService: skipped with a reason when unreachable, failing when REQUIRE_SERVICES
 * names them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { knex, type Knex } from 'knex';
import type { Context } from 'mocha';
import pino, { type Logger } from 'pino';
import { createSqlDatasource, type SqlDatasource } from '../../../drivers/sql';
import type { DatasourceConfig } from '../../../kernel/drivers';
import { SERVICE_URLS, needService } from '../../helpers/services';

export type DialectLabel = 'sqlite' | 'postgres' | 'mysql';
export const DIALECTS: DialectLabel[] = ['sqlite', 'postgres', 'mysql'];

/** A throwaway folder, removed by the returned function. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'objectql-sql-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function sqliteDatasource(filename = ':memory:', baseDir = process.cwd(), name = 'default', logger?: Logger): SqlDatasource {
  return createSqlDatasource(name, { driver: 'sql', client: 'better-sqlite3', connection: { filename } }, { baseDir, logger });
}

/** A logger that keeps what it is given, to check what the driver logs. */
export function memoryLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** The probe's own connection errors are reported by needService, not printed by knex. */
const quiet = { warn() {}, error() {}, deprecate() {}, debug() {} };

function serverConnection(label: 'postgres' | 'mysql', database?: string): Knex.Config {
  if (label === 'postgres') return { client: 'pg', connection: SERVICE_URLS.postgres!, pool: { min: 0, max: 2 }, log: quiet };
  const url = new URL(SERVICE_URLS.mysql!);
  return {
    client: 'mysql2',
    connection: {
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: database ?? (url.pathname.slice(1) || undefined),
    },
    pool: { min: 0, max: 2 },
    log: quiet,
  };
}

/** Skips (or, with REQUIRE_SERVICES, fails) the calling hook when the engine is unreachable. */
export async function requireDialect(ctx: Context, label: DialectLabel): Promise<void> {
  if (label === 'sqlite') return;
  await needService(ctx, label, async () => {
    const db = knex(serverConnection(label));
    try {
      await db.raw('select 1');
    } finally {
      await db.destroy();
    }
  });
}

export interface Namespace {
  readonly label: DialectLabel;
  /** Where the driver stores: the schema or database name, or the SQLite file. */
  readonly where: string;
  /** The datasource configuration for this namespace (as in objectql.config). */
  config(): DatasourceConfig;
  /** A fresh, unconnected datasource on this namespace. */
  make(name?: string, logger?: Logger): SqlDatasource;
  /** A connection of the test's own to the namespace, behind the driver's back. */
  admin(): Knex;
  drop(): Promise<void>;
}

export async function openNamespace(label: DialectLabel): Promise<Namespace> {
  const id = `objectql_test_${randomBytes(4).toString('hex')}`;
  let admin: Knex | undefined;
  if (label === 'sqlite') {
    const tmp = tempDir();
    const file = join(tmp.dir, `${id}.sqlite`);
    return {
      label,
      where: file,
      config: () => ({ driver: 'sql', client: 'better-sqlite3', connection: { filename: file } }),
      make: (name = 'default', logger) => sqliteDatasource(file, tmp.dir, name, logger),
      admin: () => (admin ??= knex({ client: 'better-sqlite3', connection: { filename: file }, useNullAsDefault: true })),
      async drop() {
        await admin?.destroy();
        tmp.remove();
      },
    };
  }
  const setup = knex(serverConnection(label));
  try {
    await setup.raw(label === 'postgres' ? 'CREATE SCHEMA ??' : 'CREATE DATABASE ?? CHARACTER SET utf8mb4', [id]);
  } finally {
    await setup.destroy();
  }
  // application_name lets a test find (and terminate) this run's PostgreSQL connections only.
  const config = (): DatasourceConfig => {
    if (label === 'postgres') {
      return {
        driver: 'sql',
        client: 'pg',
        connection: { connectionString: SERVICE_URLS.postgres!, application_name: id },
        searchPath: id,
        pool: { min: 0, max: 4 },
      };
    }
    const url = new URL(SERVICE_URLS.mysql!);
    url.pathname = `/${id}`;
    return { driver: 'sql', client: 'mysql2', connection: url.toString(), pool: { min: 0, max: 4 } };
  };
  return {
    label,
    where: id,
    config,
    make: (name = 'default', logger) => createSqlDatasource(name, config(), { baseDir: process.cwd(), logger }),
    admin: () => (admin ??= knex(label === 'postgres' ? { ...serverConnection(label), searchPath: [id] } : serverConnection(label, id))),
    async drop() {
      await admin?.destroy();
      const db = knex(serverConnection(label));
      try {
        await db.raw(label === 'postgres' ? 'DROP SCHEMA ?? CASCADE' : 'DROP DATABASE ??', [id]);
      } finally {
        await db.destroy();
      }
    },
  };
}

/**
 * Defines the body once per dialect, each in a describe guarded by requireDialect; every test
 * gets a fresh namespace through `ns()`.
 */
export function describeDialects(
  title: string,
  body: (ns: () => Namespace, label: DialectLabel) => void,
  labels: DialectLabel[] = DIALECTS,
): void {
  for (const label of labels) {
    describe(`${title} (${label})`, function () {
      let current: Namespace | undefined;
      before(async function () {
        await requireDialect(this, label);
      });
      beforeEach(async () => {
        current = await openNamespace(label);
      });
      afterEach(async () => {
        const ns = current;
        current = undefined;
        await ns?.drop();
      });
      body(() => {
        if (!current) throw new Error('no namespace outside a test');
        return current;
      }, label);
    });
  }
}

/** A namespace for a whole describe (the driver suite makes a datasource per test in it). */
export function sharedNamespace(label: DialectLabel): {
  prepare(ctx: Context): Promise<void>;
  make(): SqlDatasource;
  readonly namespace: Namespace;
  drop(): Promise<void>;
} {
  let ns: Namespace | undefined;
  return {
    async prepare(ctx) {
      await requireDialect(ctx, label);
      ns = await openNamespace(label);
    },
    make() {
      if (!ns) throw new Error('namespace not prepared');
      return ns.make();
    },
    get namespace() {
      if (!ns) throw new Error('namespace not prepared');
      return ns;
    },
    async drop() {
      await ns?.drop();
    },
  };
}
