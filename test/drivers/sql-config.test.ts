import { expect } from 'chai';
import { join } from 'node:path';
import type { DriverFactory } from '../../kernel/drivers';
import type { Kernel } from '../../kernel/kernel';
import { BUILTINS } from '../../server';
import sqlDriver, { SQL_CLIENTS, SqlDatasource, createSqlDatasource, loadNativeClient, parseSqlConfig } from '../../drivers/sql';
import { DEFAULT_SQL_TIMEOUTS } from '../../drivers/sql/connection-guard';

const base = '/srv/app';

function configError(config: Record<string, unknown>): string {
  try {
    parseSqlConfig('main', { driver: 'sql', ...config }, base);
  } catch (e) {
    expect((e as Error).name).to.equal('PluginError');
    return (e as Error).message;
  }
  throw new Error('expected a configuration error');
}

describe('sql driver plugin and configuration', () => {
  it('registers the sql driver as plugin driver-sql, and is a built-in driver', () => {
    const drivers = new Map<string, DriverFactory>();
    const kernel = { registerDriver: (name: string, factory: DriverFactory) => drivers.set(name, factory) };
    const plugin = sqlDriver({});
    expect(plugin.name).to.equal('driver-sql');
    void plugin.register(kernel as unknown as Kernel, {});
    const made = drivers.get('sql')!(
      'reports',
      { driver: 'sql', client: 'better-sqlite3', connection: { filename: ':memory:' } },
      { logger: undefined as never, baseDir: base },
    );
    expect(made).to.be.instanceOf(SqlDatasource);
    expect(made.name).to.equal('reports');
    expect(made.capabilities).to.deep.equal({
      transactions: true,
      aggregation: true,
      fullTextSearch: false,
      perGroupPaging: true,
      sortThrough: true,
    });
    expect(BUILTINS.drivers).to.have.property('sql');
  });

  it('resolves a relative SQLite filename against the config folder; keeps :memory: and absolute paths', () => {
    expect(
      parseSqlConfig('main', { driver: 'sql', client: 'better-sqlite3', connection: { filename: 'data/app.db' } }, base).connection,
    ).to.equal(join(base, 'data/app.db'));
    expect(parseSqlConfig('main', { driver: 'sql', client: 'sqlite', connection: './app.db' }, base).connection).to.equal(
      join(base, 'app.db'),
    );
    expect(
      parseSqlConfig('main', { driver: 'sql', client: 'better-sqlite3', connection: { filename: ':memory:' } }, base).connection,
    ).to.equal(':memory:');
    expect(
      parseSqlConfig('main', { driver: 'sql', client: 'better-sqlite3', connection: { filename: '/var/db.sqlite' } }, base).connection,
    ).to.equal('/var/db.sqlite');
  });

  it('accepts client aliases, URLs, connection objects, pool and searchPath', () => {
    const pg = parseSqlConfig(
      'main',
      { driver: 'sql', client: 'postgres', connection: 'postgres://u:p@db:5432/app', pool: { min: 1, max: 5 }, searchPath: 'tenant' },
      base,
    );
    expect(pg).to.deep.equal({
      client: 'pg',
      connection: 'postgres://u:p@db:5432/app',
      pool: { min: 1, max: 5 },
      searchPath: ['tenant'],
      timeouts: DEFAULT_SQL_TIMEOUTS,
    });
    const my = parseSqlConfig(
      'main',
      { driver: 'sql', client: 'mariadb', connection: { host: 'db', user: 'root', database: 'app' } },
      base,
    );
    expect(my).to.deep.equal({
      client: 'mysql2',
      connection: { host: 'db', user: 'root', database: 'app' },
      timeouts: DEFAULT_SQL_TIMEOUTS,
    });
  });

  it('takes timeouts over safe defaults, and refuses unknown, negative or inconsistent ones', () => {
    const sqlite = { client: 'sqlite', connection: ':memory:' };
    expect(
      parseSqlConfig('main', { driver: 'sql', ...sqlite, timeouts: { queryMillis: 3000, statementMillis: 2000 } }, base).timeouts,
    ).to.deep.equal({
      ...DEFAULT_SQL_TIMEOUTS,
      queryMillis: 3000,
      statementMillis: 2000,
    });
    expect(
      parseSqlConfig('main', { driver: 'sql', ...sqlite, timeouts: { statementMillis: 0, queryMillis: 0 } }, base).timeouts.queryMillis,
    ).to.equal(0);
    expect(configError({ ...sqlite, timeouts: { queryMilis: 1 } }))
      .to.contain("Datasource 'main'")
      .and.contain("unknown timeouts option 'queryMilis'");
    expect(configError({ ...sqlite, timeouts: { connectMillis: -1 } })).to.contain("'connectMillis' must be a non-negative integer");
    expect(configError({ ...sqlite, timeouts: { acquireMillis: 0 } })).to.contain("'acquireMillis' must be positive");
    expect(configError({ ...sqlite, timeouts: { statementMillis: 5000, queryMillis: 1000 } })).to.contain(
      "'queryMillis' must not be below",
    );
    expect(configError({ ...sqlite, timeouts: 5 })).to.contain("'timeouts' must be an object");
  });

  it('refuses a configuration it cannot use, naming the datasource and the key', () => {
    expect(configError({ client: 'better-sqlite3', connection: { filename: 'a.db' }, poool: {} }))
      .to.contain("Datasource 'main'")
      .and.contain("unknown option 'poool'");
    expect(configError({ client: 'oracle', connection: 'x' }))
      .to.contain("unknown client 'oracle'")
      .and.contain('better-sqlite3, pg, mysql2');
    expect(configError({ connection: 'x' })).to.contain("'client'");
    expect(configError({ client: 'better-sqlite3' })).to.contain('filename');
    expect(configError({ client: 'better-sqlite3', connection: { file: 'a.db' } })).to.contain("'file'");
    expect(configError({ client: 'pg', connection: 'not a url' })).to.contain('URL');
    expect(configError({ client: 'pg', connection: 5 })).to.contain("'connection'");
    expect(configError({ client: 'pg', connection: 'postgres://h/db', pool: { max: -1 } })).to.contain("'max'");
    expect(configError({ client: 'pg', connection: 'postgres://h/db', pool: { size: 3 } })).to.contain("'size'");
    expect(configError({ client: 'mysql2', connection: 'mysql://h/db', searchPath: 's' })).to.contain('PostgreSQL only');
  });

  it('names the package to install when a native client is missing', () => {
    const missing = (id: string) => {
      const e = new Error(`Cannot find module '${id}'`) as Error & { code: string };
      e.code = 'MODULE_NOT_FOUND';
      throw e;
    };
    expect(() => loadNativeClient('main', SQL_CLIENTS.pg, missing)).to.throw(
      /Datasource 'main' needs the SQL client package 'pg', which is not installed: run `npm install pg`/,
    );
    expect(() =>
      createSqlDatasource('main', { driver: 'sql', client: 'mysql2', connection: 'mysql://h/db' }, { baseDir: base }, missing),
    ).to.throw(/npm install mysql2/);
    const broken = () => {
      throw new Error('was compiled against a different Node.js version');
    };
    expect(() => loadNativeClient('main', SQL_CLIENTS['better-sqlite3'], broken)).to.throw(/npm rebuild better-sqlite3/);
  });

  it('fails to connect with DATABASE_ERROR naming the datasource', async () => {
    const ds = createSqlDatasource(
      'remote',
      { driver: 'sql', client: 'pg', connection: 'postgres://nobody@127.0.0.1:1/none', pool: { acquireTimeoutMillis: 2000 } },
      { baseDir: base },
    );
    let error: { code?: string; message?: string } | undefined;
    try {
      await ds.connect();
    } catch (e) {
      error = e as typeof error;
    }
    expect(error?.code).to.equal('DATABASE_ERROR');
    expect(error?.message).to.contain("datasource 'remote'");
  });
});
