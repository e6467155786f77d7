/**
 * The connection guard on each engine: the configured session limits are in force on pooled
 * connections, a statement the server cancels for its timeout maps to SERVICE_UNAVAILABLE and keeps
 * its connection, and the error mapping of a database that is away. The faults themselves (stall,
 * black hole, reset) are cut for real in test/server/db-faults.test.ts.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import pino from 'pino';
import { createSqlDatasource, type SqlDatasource } from '../../drivers/sql';
import { QUERY_TIMEOUT_CODE } from '../../drivers/sql/connection-guard';
import { PostgresDialect } from '../../drivers/sql/dialects';
import { storeError, unavailable } from '../../drivers/sql/errors';
import { objectqlRejection as rejection } from '../helpers/rejection';
import { describeDialects } from './sql/helpers';
import { field, objectDef } from './sql/objects';

const NOTE = objectDef('timeout_note', [field('text', 'text')]);
const TIMEOUTS = { statementMillis: 300, queryMillis: 2000, busyMillis: 1234 };

/** The datasource's own knex, to run what the data API never sends (a slow statement, a SHOW). */
function knexOf(ds: SqlDatasource): Knex {
  return (ds as unknown as { knex: Knex }).knex;
}

describeDialects('sql driver timeouts', (ns, label) => {
  let ds: SqlDatasource;
  beforeEach(async () => {
    ds = createSqlDatasource('default', { ...ns().config(), timeouts: TIMEOUTS }, { baseDir: process.cwd() });
    await ds.connect();
    await ds.syncSchema([NOTE]);
  });
  afterEach(() => ds.disconnect());

  it('puts the configured limits on pooled connections', async () => {
    const db = knexOf(ds);
    if (label === 'sqlite') {
      expect(await db.raw('PRAGMA busy_timeout')).to.deep.equal([{ timeout: 1234 }]);
    } else if (label === 'postgres') {
      const result: { rows: Array<{ statement_timeout: string }> } = await db.raw('SHOW statement_timeout');
      expect(result.rows[0].statement_timeout).to.equal('300ms');
    } else {
      const [rows]: Array<Array<Record<string, unknown>>> = await db.raw('SELECT @@max_statement_time AS t');
      expect(Number(rows[0].t)).to.equal(0.3);
    }
    await ds.ping();
  });

  if (label !== 'sqlite') {
    it("runs a migration session under schemaSyncMillis on the same connection, the data statements' limit back after", async () => {
      const db = knexOf(ds);
      const limit = async (knex: Knex): Promise<number> => {
        if (label === 'postgres') {
          const result: { rows: Array<{ ms: string }> } = await knex.raw(
            "SELECT setting AS ms FROM pg_settings WHERE name = 'statement_timeout'",
          );
          return Number(result.rows[0].ms);
        }
        const [rows]: Array<Array<Record<string, unknown>>> = await knex.raw('SELECT @@max_statement_time * 1000 AS ms');
        return Number(rows[0].ms);
      };
      const connection = async (knex: Knex): Promise<number> => {
        const result: any = await knex.raw(label === 'postgres' ? 'SELECT pg_backend_pid() AS id' : 'SELECT CONNECTION_ID() AS id');
        return Number(label === 'postgres' ? result.rows[0].id : result[0][0].id);
      };
      const before = await connection(db);
      const during = await ds.migrationSession(async ({ knex }) => ({ limit: await limit(knex), id: await connection(knex) }));
      expect(during).to.deep.equal({ limit: 300_000, id: before });
      expect(await limit(db)).to.equal(300);
      expect(await connection(db)).to.equal(before);
    });

    it("maps the server's statement timeout to SERVICE_UNAVAILABLE and keeps the connection", async () => {
      const db = knexOf(ds);
      const slow = label === 'postgres' ? 'SELECT pg_sleep(3)' : 'SELECT SLEEP(3)';
      const err = await db.raw(slow).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(unavailable(err), String(err)).to.equal('statement timeout');
      await ds.create('timeout_note', { id: 'n1', text: 'after the timeout' });
      expect(await ds.count('timeout_note', undefined)).to.equal(1);
    });
  }
});

describe('sql driver: errors of a database that is away', () => {
  const scope = {
    datasource: 'main',
    object: 'note',
    operation: 'find',
    dialect: new PostgresDialect(),
    logger: pino({ level: 'silent' }),
  };
  const error = (props: Record<string, unknown>, message = 'x') => Object.assign(new Error(message), props);

  it('names the reason in a few words for socket, pool, timeout and server codes', () => {
    expect(unavailable(error({ code: 'ECONNREFUSED' }))).to.equal('connection refused');
    expect(unavailable(error({ code: 'ECONNRESET' }))).to.equal('connection lost');
    expect(unavailable(error({ code: 'ETIMEDOUT' }))).to.equal('connection timed out');
    expect(unavailable(error({ code: QUERY_TIMEOUT_CODE }))).to.equal('no answer in time');
    expect(unavailable(error({ name: 'KnexTimeoutError' }, 'Knex: Timeout acquiring a connection. The pool is probably full.'))).to.equal(
      'no free connection in time',
    );
    expect(unavailable(new Error('Query read timeout'))).to.equal('no answer in time');
    expect(unavailable(new Error('Connection terminated due to connection timeout'))).to.equal('connection timed out');
    expect(unavailable(new Error('Connection terminated unexpectedly'))).to.equal('connection lost');
    expect(unavailable(error({ code: '57014' }))).to.equal('statement timeout');
    expect(unavailable(error({ code: 'ER_STATEMENT_TIMEOUT', errno: 1969 }))).to.equal('statement timeout');
    expect(unavailable(error({ errno: 1969 }))).to.equal('statement timeout');
    expect(unavailable(error({ code: '53300' }))).to.equal('too many connections');
    // A deadlock victim's transaction was rolled back: the same write, run again, passes.
    expect(unavailable(error({ code: 'ER_LOCK_DEADLOCK', errno: 1213 }))).to.equal('deadlock');
    expect(unavailable(error({ errno: 1205 }))).to.equal('lock wait timeout');
    expect(unavailable(error({ code: '40P01' }))).to.equal('deadlock');
    expect(unavailable(error({ code: '40001' }))).to.equal('serialization failure');
    expect(unavailable(error({ code: '23505' }))).to.equal(undefined);
    expect(unavailable(new Error('syntax error at or near "x"'))).to.equal(undefined);
  });

  it('answers 503 SERVICE_UNAVAILABLE naming the datasource, and DATABASE_ERROR for anything else', async () => {
    const down = storeError(error({ code: 'ECONNREFUSED' }, 'connect ECONNREFUSED 10.0.0.5:5432'), scope);
    expect(down.code).to.equal('SERVICE_UNAVAILABLE');
    expect(down.status).to.equal(503);
    expect(down.message).to.equal("Datasource 'main' is unavailable (connection refused); try again later");
    expect(down.details).to.deep.equal({ datasource: 'main' });
    expect(storeError(error({ code: '42601' }), scope).code).to.equal('DATABASE_ERROR');
    expect(await rejection(Promise.reject(down))).to.equal(down);
  });
});
