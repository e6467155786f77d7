/**
 * SQL clients by the name a datasource's `client` gives, knex-style: each entry names the native
 * package, loaded only when a datasource uses it, and makes the dialect (one per datasource, as a
 * dialect keeps what it learned about its server).
 */
import { PluginError } from '../../../kernel';
import type { SqlDialect } from './base';
import { MysqlDialect } from './mysql';
import { PostgresDialect } from './postgres';
import { SqliteDialect } from './sqlite';

export interface SqlClient {
  /** The npm package knex drives. */
  readonly module: string;
  makeDialect(): SqlDialect;
}

export const SQL_CLIENTS: Readonly<Record<string, SqlClient>> = Object.freeze({
  'better-sqlite3': { module: 'better-sqlite3', makeDialect: () => new SqliteDialect() },
  pg: { module: 'pg', makeDialect: () => new PostgresDialect() },
  mysql2: { module: 'mysql2', makeDialect: () => new MysqlDialect() },
});

/** Other names accepted for the clients above. */
export const CLIENT_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  sqlite: 'better-sqlite3',
  postgres: 'pg',
  postgresql: 'pg',
  mysql: 'mysql2',
  mariadb: 'mysql2',
});

/** The canonical client name, or undefined when unknown. */
export function resolveClient(name: string): string | undefined {
  if (Object.prototype.hasOwnProperty.call(SQL_CLIENTS, name)) return name;
  return Object.prototype.hasOwnProperty.call(CLIENT_ALIASES, name) ? CLIENT_ALIASES[name] : undefined;
}

/**
 * Loads a client's native package, with an actionable message when it is missing or broken.
 * `load` is injectable for tests.
 */
export function loadNativeClient(datasource: string, client: SqlClient, load: (id: string) => unknown = require): unknown {
  try {
    return load(client.module);
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    if (e?.code === 'MODULE_NOT_FOUND' && String(e.message).includes(`'${client.module}'`)) {
      throw new PluginError(
        `Datasource '${datasource}' needs the SQL client package '${client.module}', which is not installed: run \`npm install ${client.module}\``,
      );
    }
    throw new PluginError(
      `Datasource '${datasource}' could not load the SQL client package '${client.module}' (${String(e?.message ?? err)}); reinstall it with \`npm rebuild ${client.module}\` or \`npm install ${client.module}\``,
    );
  }
}

export { SqlDialect } from './base';
export { SqliteDialect, PostgresDialect, MysqlDialect };
