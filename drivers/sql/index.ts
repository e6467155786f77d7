import pino, { type Logger } from 'pino';
import { definePlugin } from '../../kernel';
import type { DatasourceConfig } from '../../kernel';
import { parseSqlConfig } from './config';
import { SQL_CLIENTS, loadNativeClient } from './dialects';
import { SqlDatasource } from './sql-datasource';

export { SqlDatasource };
export { SqlDialect, SqliteDialect, PostgresDialect, MysqlDialect, SQL_CLIENTS, CLIENT_ALIASES, loadNativeClient } from './dialects';
export { parseSqlConfig } from './config';

/**
 * Makes a SQL datasource from its config (see config.ts); the client's native package is loaded
 * here, so a missing one stops start-up with the package to install.
 */
export function createSqlDatasource(
  name: string,
  config: DatasourceConfig,
  deps: { logger?: Logger; baseDir: string; tracing?: boolean },
  load?: (id: string) => unknown,
): SqlDatasource {
  const options = parseSqlConfig(name, config, deps.baseDir);
  const client = SQL_CLIENTS[options.client];
  const native = loadNativeClient(name, client, load);
  return new SqlDatasource(name, options, client.makeDialect(), native, deps.logger ?? pino({ level: 'silent' }), deps.tracing);
}

/** The `sql` driver: SQLite (better-sqlite3), PostgreSQL (pg) and MySQL / MariaDB (mysql2) through knex. */
export default definePlugin(() => ({
  name: 'driver-sql',
  register(kernel) {
    kernel.registerDriver('sql', (name, config, deps) => createSqlDatasource(name, config, deps));
  },
}));
