import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { knex as createKnex, type Knex } from 'knex';
import type { Logger } from 'pino';
import { ObjectQLError } from '../../kernel';
import type { AggregateQuery, Datasource, DbRecord, DriverCapabilities, Filter, ObjectDefinition, Query, Transaction } from '../../kernel';
import { aggregateRows } from './aggregate-sql';
import type { SqlDatasourceOptions } from './config';
import { ConnectionGuard } from './connection-guard';
import { errorMessage, type SqlDialect } from './dialects/base';
import { storeError } from './errors';
import { countRows, encodeRow, selectRows, type Db } from './query-sql';
import { syncSchema } from './schema-sync';
import type { TableInfo } from './table-info';
import { SqlTransaction } from './transaction';

/** How often a read is retried after its connection died (each retry takes another pooled connection). */
const READ_RETRIES = 3;

/** A deep copy of caller data without its undefined keys. */
function copyInput(data: DbRecord): DbRecord {
  const out: DbRecord = {};
  for (const [k, v] of Object.entries(data)) if (v !== undefined) out[k] = structuredClone(v);
  return out;
}

/**
 * A datasource on a SQL database through knex. Every query is one statement with the filter,
 * sort, paging and aggregation pushed down (see filter-sql.ts, query-sql.ts, aggregate-sql.ts);
 * what differs per engine lives in the dialect.
 */
export class SqlDatasource implements Datasource {
  readonly capabilities: DriverCapabilities = {
    transactions: true,
    aggregation: true,
    fullTextSearch: false,
    perGroupPaging: true,
    sortThrough: true,
  };
  private knex: Knex | undefined;
  private guard: ConnectionGuard | undefined;
  private readonly tables = new Map<string, TableInfo>();
  // The transaction open in the current async context: detects nested transactions and writes
  // that would wait for the transaction they run inside.
  private readonly current = new AsyncLocalStorage<SqlTransaction>();

  constructor(
    readonly name: string,
    private readonly options: SqlDatasourceOptions,
    readonly dialect: SqlDialect,
    private readonly native: unknown,
    private readonly logger: Logger,
  ) {}

  async connect(): Promise<void> {
    if (this.knex) return;
    const log = (level: 'warn' | 'error' | 'debug') => (message: unknown) =>
      this.logger[level]({ datasource: this.name, knex: message instanceof Error ? message.message : message }, 'sql: knex');
    const guard = new ConnectionGuard(this.dialect, this.options.timeouts, (err) =>
      this.logger.warn({ err, datasource: this.name }, 'sql: a connection timed out or died; the pool replaces its connections'),
    );
    const db = createKnex({
      ...guard.apply(this.dialect.knexConfig(this.options, this.native)),
      log: { warn: log('warn'), error: log('error'), deprecate: log('warn'), debug: log('debug') },
    });
    try {
      await db.raw('SELECT 1');
      await this.dialect.init(db);
    } catch (err) {
      await db.destroy().catch(() => undefined);
      await this.dialect.close();
      this.logger.error({ err, datasource: this.name }, 'sql: cannot connect');
      const code = (err as { code?: unknown } | null | undefined)?.code;
      const reason = typeof code === 'string' || typeof code === 'number' ? String(code) : errorMessage(err);
      throw new ObjectQLError(
        'DATABASE_ERROR',
        `Cannot connect to datasource '${this.name}' (${this.dialect.name}${reason ? `: ${reason}` : ''})`,
      );
    }
    this.knex = db;
    this.guard = guard;
  }

  /** One round trip (SELECT 1) through the pool: fails SERVICE_UNAVAILABLE, naming the datasource, while the database is away. */
  async ping(): Promise<void> {
    try {
      await this.db().raw('SELECT 1');
    } catch (err) {
      throw storeError(err, this.scope('ping'));
    }
  }

  async disconnect(): Promise<void> {
    const db = this.knex;
    this.knex = undefined;
    this.guard = undefined;
    if (!db) return;
    try {
      await db.destroy();
    } finally {
      await this.dialect.close();
    }
  }

  async syncSchema(objects: ObjectDefinition[]): Promise<void> {
    const db = this.db();
    const infos = await this.guard!.forSchema(() =>
      this.exclusive(() => syncSchema({ knex: db, dialect: this.dialect, datasource: this.name, logger: this.logger }, objects)),
    );
    for (const info of infos) this.tables.set(info.object, info);
  }

  async find(object: string, query: Query, tx?: Transaction): Promise<DbRecord[]> {
    const info = this.info(object);
    return this.run(info, 'find', tx, false, (db) => selectRows(db, info, this.dialect, query, (related) => this.info(related)));
  }

  async count(object: string, filter: Filter | undefined, tx?: Transaction): Promise<number> {
    const info = this.info(object);
    return this.run(info, 'count', tx, false, (db) => countRows(db, info, this.dialect, filter));
  }

  async create(object: string, data: DbRecord, tx?: Transaction): Promise<DbRecord> {
    const info = this.info(object);
    const { id: given, ...rest } = copyInput(data);
    const id = given === undefined || given === null ? randomUUID() : typeof given === 'string' ? given : JSON.stringify(given);
    const row = encodeRow(info, this.dialect, { ...rest, id });
    await this.run(info, 'create', tx, true, (db) => db(info.table).insert(row), id);
    return { id, ...rest };
  }

  async update(object: string, id: string, data: DbRecord, tx?: Transaction): Promise<DbRecord | null> {
    const info = this.info(object);
    const { id: _ignored, ...patch } = data;
    const row = encodeRow(info, this.dialect, patch);
    const byId: Query = { filter: { field: 'id', op: 'eq', value: id }, top: 1 };
    return this.run(
      info,
      'update',
      tx,
      true,
      async (db) => {
        if (Object.keys(row).length > 0) {
          const changed = await db(info.table).where('id', id).update(row);
          if (Number(changed) === 0) return null;
        }
        const [record] = await selectRows(db, info, this.dialect, byId);
        return record ?? null;
      },
      id,
    );
  }

  async delete(object: string, id: string, tx?: Transaction): Promise<boolean> {
    const info = this.info(object);
    const deleted = await this.run(info, 'delete', tx, true, (db) => db(info.table).where('id', id).del(), id);
    return Number(deleted) > 0;
  }

  async aggregate(object: string, query: AggregateQuery, tx?: Transaction): Promise<DbRecord[]> {
    const info = this.info(object);
    return this.run(info, 'aggregate', tx, false, (db) => aggregateRows(db, info, this.dialect, query));
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    if (this.current.getStore()?.active) {
      throw new ObjectQLError(
        'DATABASE_ERROR',
        `Nested transactions are not supported on datasource '${this.name}'; pass the open transaction instead`,
      );
    }
    const db = this.db();
    let thrown: { error: unknown } | undefined;
    try {
      return await this.exclusive(() =>
        db.transaction(async (trx) => {
          const tx = new SqlTransaction(this.name, this, trx);
          try {
            return await this.current.run(tx, () => fn(tx));
          } catch (error) {
            thrown = { error };
            throw error;
          } finally {
            tx.active = false;
          }
        }),
      );
    } catch (err) {
      // The function's own error passes through unchanged; begin / commit failures are the store's.
      if (thrown && err === thrown.error) throw err;
      throw storeError(err, this.scope('transaction'));
    }
  }

  /** The error scope of an operation on the whole datasource rather than one object. */
  private scope(operation: string) {
    return {
      datasource: this.name,
      object: this.name,
      operation,
      dialect: this.dialect,
      logger: this.logger,
      subject: `datasource '${this.name}'`,
    };
  }

  /**
   * Runs one operation, on the transaction's connection when given, mapping store errors. A read
   * outside a transaction whose connection turns out dead (the server restarted, an operator
   * terminated it) is retried on another pooled connection; a write is not, as it may have run.
   */
  private async run<T>(
    info: TableInfo,
    operation: string,
    tx: Transaction | undefined,
    write: boolean,
    fn: (db: Db) => Promise<T>,
    id?: unknown,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        const db = tx ? this.useTx(tx) : this.db();
        const lock = write && !tx ? this.dialect.writeLock() : undefined;
        if (!lock) return await fn(db);
        if (this.current.getStore()?.active) {
          throw new ObjectQLError(
            'DATABASE_ERROR',
            `A write on '${info.object}' outside the open transaction of datasource '${this.name}' would wait for that transaction; pass the transaction`,
          );
        }
        return await lock.runExclusive(() => fn(db));
      } catch (err) {
        if (!write && !tx && attempt < READ_RETRIES && this.dialect.connectionLost(err)) {
          this.logger.warn({ err, datasource: this.name, object: info.object, operation }, 'sql: connection lost; retrying the read');
          continue;
        }
        throw storeError(err, {
          datasource: this.name,
          object: info.object,
          operation,
          dialect: this.dialect,
          logger: this.logger,
          info,
          id,
        });
      }
    }
  }

  /** Runs fn holding the dialect's write lock, when it has one. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const lock = this.dialect.writeLock();
    return lock ? lock.runExclusive(fn) : fn();
  }

  private useTx(tx: Transaction): Knex.Transaction {
    if (!(tx instanceof SqlTransaction) || tx.owner !== this) {
      throw new ObjectQLError('DATABASE_ERROR', `Transaction does not belong to datasource '${this.name}'`);
    }
    if (!tx.active) throw new ObjectQLError('DATABASE_ERROR', 'Transaction has already finished');
    return tx.trx;
  }

  private db(): Knex {
    if (!this.knex) throw new ObjectQLError('DATABASE_ERROR', `Datasource '${this.name}' is not connected`);
    return this.knex;
  }

  private info(object: string): TableInfo {
    const info = this.tables.get(object);
    if (!info)
      throw new ObjectQLError(
        'DATABASE_ERROR',
        `Object '${object}' is not stored in datasource '${this.name}' (schema sync did not include it)`,
      );
    return info;
  }
}
