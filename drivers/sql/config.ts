/**
 * A datasource's configuration, checked when the datasource is made:
 *
 *   {driver: 'sql', client: 'better-sqlite3' | 'pg' | 'mysql2',
 *    connection: {filename} (SQLite; relative to the config's folder; ':memory:')
 *              | 'postgres://…' | 'mysql://…' | {host, port, user, password, database, …},
 *    pool?: {min, max, idleTimeoutMillis, acquireTimeoutMillis, …},
 *    searchPath?: 'schema' | ['schema', …]   (PostgreSQL),
 *    timeouts?: {connectMillis, acquireMillis, statementMillis, queryMillis, schemaSyncMillis,
 *                keepAliveMillis, busyMillis}   (connection-guard.ts: defaults and meaning),
 *    statementCacheSize?: number   (compiled statements kept per datasource and prepared ones
 *                                   per SQLite or PostgreSQL connection, default 500; 0 turns
 *                                   the cache off),
 *    schemaSync?: 'auto' | 'off'   (start-up: extend the tables, the default; or change nothing and
 *                                   refuse to start when the database is behind, docs/migrations.md)}
 *
 * Unknown keys and wrong shapes stop start-up with a message naming the datasource and the key.
 */
import { isAbsolute, resolve } from 'node:path';
import { isPlainObject, PluginError } from '../../kernel';
import type { DatasourceConfig } from '../../kernel';
import type { SqlOptions } from './dialects/base';
import { CLIENT_ALIASES, SQL_CLIENTS, resolveClient } from './dialects';
import { DEFAULT_SQL_TIMEOUTS, type SqlTimeouts } from './connection-guard';

/** A datasource's options: what the dialect reads, and the limits the connection guard applies. */
export interface SqlDatasourceOptions extends SqlOptions {
  timeouts: SqlTimeouts;
  schemaSync?: SchemaSyncMode;
}

export const SCHEMA_SYNC_MODES = ['auto', 'off'] as const;
export type SchemaSyncMode = (typeof SCHEMA_SYNC_MODES)[number];

const KEYS = new Set(['driver', 'client', 'connection', 'pool', 'searchPath', 'timeouts', 'statementCacheSize', 'schemaSync']);
const POOL_KEYS = new Set([
  'min',
  'max',
  'idleTimeoutMillis',
  'acquireTimeoutMillis',
  'createTimeoutMillis',
  'reapIntervalMillis',
  'createRetryIntervalMillis',
]);

export function parseSqlConfig(name: string, config: DatasourceConfig, baseDir: string): SqlDatasourceOptions {
  const fail = (what: string) => new PluginError(`Datasource '${name}' (driver 'sql'): ${what}`);
  for (const key of Object.keys(config)) {
    if (!KEYS.has(key)) throw fail(`unknown option '${key}'; known: ${[...KEYS].join(', ')}`);
  }
  const known = [...Object.keys(SQL_CLIENTS), ...Object.keys(CLIENT_ALIASES)].join(', ');
  if (typeof config.client !== 'string') throw fail(`'client' must name the SQL client: ${known}`);
  const client = resolveClient(config.client);
  if (!client) throw fail(`unknown client '${config.client}'; known: ${known}`);

  const options: SqlDatasourceOptions = {
    client,
    connection: client === 'better-sqlite3' ? sqliteFile(config.connection, baseDir, fail) : serverConnection(config.connection, fail),
    timeouts: parseTimeouts(config.timeouts, fail),
  };

  if (config.pool !== undefined) {
    if (!isPlainObject(config.pool)) throw fail("'pool' must be an object such as {min: 0, max: 10}");
    for (const [key, value] of Object.entries(config.pool)) {
      if (!POOL_KEYS.has(key)) throw fail(`unknown pool option '${key}'; known: ${[...POOL_KEYS].join(', ')}`);
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
        throw fail(`pool option '${key}' must be a non-negative integer`);
    }
    options.pool = { ...config.pool };
  }

  if (config.statementCacheSize !== undefined) {
    const size = config.statementCacheSize;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 0)
      throw fail("'statementCacheSize' must be a non-negative integer (0 turns the statement cache off)");
    options.statementCacheSize = size;
  }

  if (config.schemaSync !== undefined) {
    if (!SCHEMA_SYNC_MODES.includes(config.schemaSync as SchemaSyncMode))
      throw fail(
        `'schemaSync' must be one of ${SCHEMA_SYNC_MODES.map((m) => `'${m}'`).join(', ')} (got ${JSON.stringify(config.schemaSync)})`,
      );
    options.schemaSync = config.schemaSync as SchemaSyncMode;
  }

  if (config.searchPath !== undefined) {
    if (client !== 'pg') throw fail("'searchPath' applies to PostgreSQL only");
    const list = typeof config.searchPath === 'string' ? [config.searchPath] : config.searchPath;
    if (!Array.isArray(list) || list.length === 0 || !list.every((s) => typeof s === 'string' && s !== '')) {
      throw fail("'searchPath' must be a schema name or a list of them");
    }
    options.searchPath = list as string[];
  }
  return options;
}

function parseTimeouts(input: unknown, fail: (what: string) => Error): SqlTimeouts {
  if (input === undefined) return { ...DEFAULT_SQL_TIMEOUTS };
  const known = Object.keys(DEFAULT_SQL_TIMEOUTS);
  if (!isPlainObject(input))
    throw fail(`'timeouts' must be an object of milliseconds such as {queryMillis: 12000}; known: ${known.join(', ')}`);
  const timeouts = { ...DEFAULT_SQL_TIMEOUTS };
  for (const [key, value] of Object.entries(input)) {
    if (!known.includes(key)) throw fail(`unknown timeouts option '${key}'; known: ${known.join(', ')}`);
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
      throw fail(`timeouts option '${key}' must be a non-negative integer (milliseconds)`);
    timeouts[key as keyof SqlTimeouts] = value;
  }
  for (const key of ['connectMillis', 'acquireMillis', 'schemaSyncMillis'] as const) {
    if (timeouts[key] === 0) throw fail(`timeouts option '${key}' must be positive`);
  }
  if (timeouts.queryMillis > 0 && timeouts.queryMillis < timeouts.statementMillis) {
    throw fail(
      "timeouts option 'queryMillis' must not be below 'statementMillis' (the server's own timeout answers first and keeps the connection)",
    );
  }
  return timeouts;
}

/** SQLite: an absolute file path (relative ones resolve against the config's folder) or ':memory:'. */
function sqliteFile(connection: unknown, baseDir: string, fail: (what: string) => Error): string {
  const filename = typeof connection === 'string' ? connection : isPlainObject(connection) ? connection.filename : undefined;
  if (isPlainObject(connection)) {
    const extra = Object.keys(connection).filter((k) => k !== 'filename');
    if (extra.length) throw fail(`unknown SQLite connection option '${extra[0]}'; give {filename}`);
  }
  if (typeof filename !== 'string' || filename === '') throw fail("SQLite needs 'connection: {filename}' (a file path, or ':memory:')");
  if (filename === ':memory:') return filename;
  return isAbsolute(filename) ? filename : resolve(baseDir, filename);
}

function serverConnection(connection: unknown, fail: (what: string) => Error): string | Record<string, unknown> {
  if (typeof connection === 'string') {
    try {
      new URL(connection);
    } catch {
      throw fail("'connection' is not a valid URL (e.g. postgres://user@host:5432/db)");
    }
    return connection;
  }
  if (isPlainObject(connection)) return { ...connection };
  throw fail("'connection' must be a URL or {host, port, user, password, database}");
}
