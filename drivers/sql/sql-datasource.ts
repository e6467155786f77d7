import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { knex as createKnex, type Knex } from 'knex';
import type { Logger } from 'pino';
import { inSpan, ObjectQLError } from '../../kernel';
import type {
  AggregateQuery,
  Datasource,
  DbRecord,
  DriverCapabilities,
  Filter,
  ObjectDefinition,
  PoolStats,
  Query,
  Transaction,
  TransactionOptions,
} from '../../kernel';
import { aggregateRows } from './aggregate-sql';
import type { SqlDatasourceOptions } from './config';
import { ConnectionGuard } from './connection-guard';
import { errorMessage, type DialectName, type SqlDialect } from './dialects/base';
import { storeError } from './errors';
import { applyWhere, columnScope, countRows, encodeRow, selectRows, type Db, type RowLock } from './query-sql';
import { whereSql } from './filter-sql';
import { ShapeParts } from './shape';
import { DEFAULT_STATEMENT_CACHE_SIZE } from './statement-cache';
import { Statements } from './statements';
import type { StorageFamily } from './values';
import { describeTables, syncSchema } from './schema-sync';
import { checkSchemaCurrent } from './migrate/startup-check';
import type { TableInfo } from './table-info';
import { SqlTransaction } from './transaction';

/** OpenTelemetry's names of the engines (semantic conventions, `db.system.name`). */
const DB_SYSTEM: Record<DialectName, string> = { sqlite: 'sqlite', postgres: 'postgresql', mysql: 'mysql' };

/** The storage families increment() adds to. */
const NUMERIC_FAMILIES = new Set<StorageFamily>(['number', 'integer', 'decimal']);
/** The most rows one INSERT of createMany carries (a power of two). */
const MANY_ROWS = 64;

/** The part of knex's pool (tarn) that poolStats reads. */
interface TarnPool {
  max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/** A pooled connection while a transaction runs on it (knex's own markers). */
interface TxConnection {
  __knexTxId?: string;
  __knex__disposed?: unknown;
}

/**
 * knex with every statement run on `conn`: Statements asks `db.client` for its connection, and
 * gets this one; builders still compile with knex's own client.
 */
function onConnection(knex: Knex, conn: unknown): Db {
  const client = Object.create(knex.client as object, {
    acquireConnection: { value: () => Promise.resolve(conn) },
    releaseConnection: { value: () => Promise.resolve() },
  }) as Knex.Client;
  return new Proxy(knex, { get: (target, key): unknown => (key === 'client' ? client : Reflect.get(target, key)) });
}

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
  private statements: Statements | undefined;
  /** Transactions begun, to name each (knex's query events carry the name as __knexTxId). */
  private transactions = 0;
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
    /** A span per statement (config `tracing`, kernel/tracing.ts). */
    private readonly tracing = false,
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
    guard.attach(db);
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
        { datasource: this.name, dialect: this.dialect.name, reason },
      );
    }
    this.knex = db;
    this.guard = guard;
    this.statements = new Statements(this.dialect, this.options.statementCacheSize ?? DEFAULT_STATEMENT_CACHE_SIZE);
  }

  /** The compiled statements kept, and how many shapes knex compiled so far (tests, diagnostics). */
  statementStats(): { cached: number; compiled: number } {
    return { cached: this.statements?.size ?? 0, compiled: this.statements?.compiled ?? 0 };
  }

  /** One round trip (SELECT 1) through the pool: fails SERVICE_UNAVAILABLE, naming the datasource, while the database is away. */
  poolStats(): PoolStats | undefined {
    const pool = (this.knex?.client as { pool?: TarnPool } | undefined)?.pool;
    if (!pool) return undefined;
    return { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires(), max: pool.max };
  }

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
    this.statements = undefined;
    if (!db) return;
    try {
      await db.destroy();
    } finally {
      await this.dialect.close();
    }
  }

  /**
   * `schemaSync: 'auto'` (the default) extends the tables (schema-sync.ts); `'off'` changes nothing
   * and refuses to start when the database is behind the metadata (migrate/startup-check.ts).
   */
  async syncSchema(objects: ObjectDefinition[]): Promise<void> {
    const infos = await this.migrationSession(async (ctx) => {
      const sync = { ...ctx, logger: this.logger };
      if (this.options.schemaSync !== 'off') return syncSchema(sync, objects);
      await checkSchemaCurrent(ctx, objects, this.logger);
      return describeTables(sync, objects);
    });
    for (const info of infos) this.tables.set(info.object, info);
  }

  /** Runs fn on the datasource's knex, holding the write lock, with schema-sync timeouts (start-up sync, `objectql migrate`). */
  async migrationSession<T>(fn: (ctx: { knex: Knex; dialect: SqlDialect; datasource: string }) => Promise<T>): Promise<T> {
    const db = this.db();
    return this.guard!.forSchema(() => this.exclusive(() => fn({ knex: db, dialect: this.dialect, datasource: this.name })));
  }

  find(object: string, query: Query, tx?: Transaction): Promise<DbRecord[]> {
    return this.select(object, query, tx);
  }

  /** SQLite runs one transaction at a time (and has no FOR UPDATE): a find in the transaction holds what it read. */
  lockRows(object: string, query: Query, tx: Transaction, options: { skipLocked?: boolean } = {}): Promise<DbRecord[]> {
    return this.select(object, query, tx, this.dialect.rowLocks ? (options.skipLocked ? 'skip' : 'wait') : undefined);
  }

  private async select(object: string, query: Query, tx: Transaction | undefined, lock?: RowLock): Promise<DbRecord[]> {
    const info = this.info(object);
    return this.run(info, 'find', tx, false, (db, st) =>
      selectRows(db, st, info, this.dialect, query, (related) => this.info(related), lock),
    );
  }

  async count(object: string, filter: Filter | undefined, tx?: Transaction): Promise<number> {
    const info = this.info(object);
    return this.run(info, 'count', tx, false, (db, st) => countRows(db, st, info, this.dialect, filter));
  }

  async create(object: string, data: DbRecord, tx?: Transaction): Promise<DbRecord> {
    const info = this.info(object);
    const { id: given, ...rest } = copyInput(data);
    const id = given === undefined || given === null ? randomUUID() : typeof given === 'string' ? given : JSON.stringify(given);
    const row = encodeRow(info, this.dialect, { ...rest, id });
    const parts = new ShapeParts('insert', info.table);
    const columns = Object.keys(row);
    parts.names(columns);
    const slots = columns.map((c) => parts.value(row[c]));
    const insert = (db: Db) => parts.shape((v) => db(info.table).insert(Object.fromEntries(columns.map((c, i) => [c, v[slots[i]]]))));
    await this.run(info, 'create', tx, true, (db, st) => st.run(db, insert(db)), id);
    return { id, ...rest };
  }

  /**
   * One INSERT per power of two of rows (13 rows: 8, 4 and 1), at most MANY_ROWS each: a handful
   * of statement shapes per table, kept compiled like any other (statements.ts).
   */
  async createMany(object: string, records: DbRecord[], tx?: Transaction): Promise<void> {
    if (records.length === 0) return;
    if (!tx) return this.transaction((t) => this.createMany(object, records, t));
    const info = this.info(object);
    const rows = records.map((data) => {
      const { id: given, ...rest } = copyInput(data);
      const id = given === undefined || given === null ? randomUUID() : typeof given === 'string' ? given : JSON.stringify(given);
      return encodeRow(info, this.dialect, { ...rest, id });
    });
    const columns = Object.keys(rows[0]);
    const odd = rows.find((row) => Object.keys(row).length !== columns.length || columns.some((c) => !(c in row)));
    if (odd) {
      throw new ObjectQLError('INVALID_REQUEST', `createMany on object '${object}': every record must set the same fields`, { object });
    }
    for (let start = 0; start < rows.length;) {
      let size = MANY_ROWS;
      while (size > rows.length - start) size /= 2;
      const chunk = rows.slice(start, start + size);
      start += size;
      const parts = new ShapeParts('insertMany', info.table);
      parts.names(columns);
      parts.text(String(size));
      const slots = chunk.map((row) => columns.map((c) => parts.value(row[c])));
      const insert = (db: Db) =>
        parts.shape((v) => db(info.table).insert(slots.map((slot) => Object.fromEntries(columns.map((c, i) => [c, v[slot[i]]])))));
      await this.run(info, 'createMany', tx, true, (db, st) => st.run(db, insert(db)));
    }
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
      async (db, st) => {
        const columns = Object.keys(row);
        if (columns.length > 0) {
          const parts = new ShapeParts('update', info.table);
          parts.names(columns);
          const slots = columns.map((c) => parts.value(row[c]));
          const key = parts.value(id, 'text');
          const shape = parts.shape((v) =>
            db(info.table)
              .where('id', v[key] as string)
              .update(Object.fromEntries(columns.map((c, i) => [c, v[slots[i]]]))),
          );
          const { changes } = await st.run(db, shape);
          if (changes === 0) return null;
        }
        const [record] = await selectRows(db, st, info, this.dialect, byId);
        return record ?? null;
      },
      id,
    );
  }

  async updateWhere(object: string, filter: Filter, data: DbRecord, tx?: Transaction): Promise<number> {
    const info = this.info(object);
    const { id: _ignored, ...patch } = data;
    const row = encodeRow(info, this.dialect, patch);
    const columns = Object.keys(row);
    if (columns.length === 0) return 0;
    const parts = new ShapeParts('updateWhere', info.table);
    parts.names(columns);
    const slots = columns.map((c) => parts.value(row[c]));
    const where = parts.frag(whereSql(filter, columnScope(info, this.dialect)));
    const shape = (db: Db) =>
      parts.shape((v) => applyWhere(db(info.table), where(v)).update(Object.fromEntries(columns.map((c, i) => [c, v[slots[i]]]))));
    const { changes } = await this.run(info, 'updateWhere', tx, true, (db, st) => st.run(db, shape(db)));
    return changes;
  }

  /**
   * UPDATE ... SET field = field + by ... RETURNING field: one statement, which takes the row's
   * lock. MariaDB and MySQL have no UPDATE ... RETURNING: there the value is read back after the
   * update, in its transaction, under the lock the update took.
   */
  async increment(object: string, id: string, field: string, by: number, tx?: Transaction): Promise<number | undefined> {
    const info = this.info(object);
    if (!NUMERIC_FAMILIES.has(info.families.get(field) ?? 'text')) {
      throw new ObjectQLError('INVALID_REQUEST', `Field '${field}' of object '${object}' is not a number field`, { object, field });
    }
    // The read back must see this update alone: under its lock, in one transaction.
    if (!tx && !this.dialect.updateReturning) return this.transaction((t) => this.increment(object, id, field, by, t));
    const parts = new ShapeParts('increment', info.table);
    parts.names([field]);
    const key = parts.value(id, 'text');
    const amount = parts.value(by);
    const shape = (db: Db) =>
      parts.shape((v) => {
        const update = db(info.table)
          .where('id', v[key] as string)
          .increment(field, v[amount] as number);
        return this.dialect.updateReturning ? update.returning(field) : update;
      });
    return this.run(info, 'increment', tx, true, async (db, st) => {
      const { rows, changes } = await st.run(db, shape(db));
      if (this.dialect.updateReturning) return rows.length > 0 ? Number(rows[0][field]) : undefined;
      if (changes === 0) return undefined;
      const [row] = await selectRows(db, st, info, this.dialect, { fields: [field], filter: { field: 'id', op: 'eq', value: id } }, (o) =>
        this.info(o),
      );
      return row ? Number(row[field]) : undefined;
    });
  }

  async delete(object: string, id: string, tx?: Transaction): Promise<boolean> {
    const info = this.info(object);
    const parts = new ShapeParts('delete', info.table);
    const key = parts.value(id, 'text');
    const { changes } = await this.run(
      info,
      'delete',
      tx,
      true,
      (db, st) =>
        st.run(
          db,
          parts.shape((v) =>
            db(info.table)
              .where('id', v[key] as string)
              .del(),
          ),
        ),
      id,
    );
    return changes > 0;
  }

  async aggregate(object: string, query: AggregateQuery, tx?: Transaction): Promise<DbRecord[]> {
    const info = this.info(object);
    return this.run(info, 'aggregate', tx, false, (db, st) => aggregateRows(db, st, info, this.dialect, query));
  }

  /**
   * BEGIN, the function's statements, then COMMIT (ROLLBACK when it throws), on one pooled
   * connection. Written here rather than with knex's transaction, which builds a transaction
   * client per call: the statements already run through Statements on a connection of knex's pool.
   */
  async transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T> {
    if (this.current.getStore()?.active) {
      throw new ObjectQLError(
        'DATABASE_ERROR',
        `Nested transactions are not supported on datasource '${this.name}'; pass the open transaction instead`,
      );
    }
    const db = this.db();
    const statements = this.statements ?? this.notConnected();
    let thrown: { error: unknown } | undefined;
    try {
      return await this.exclusive(async () => {
        const client = db.client as Knex.Client;
        const conn = (await client.acquireConnection()) as TxConnection;
        let reusable = true;
        try {
          await statements.raw(db, conn, this.dialect.begin(options?.durable ?? true));
          conn.__knexTxId = `trx${++this.transactions}`;
          const tx = new SqlTransaction(this.name, this, onConnection(db, conn));
          let result: T;
          try {
            result = await this.current.run(tx, () => fn(tx));
          } catch (error) {
            thrown = { error };
            tx.active = false;
            // A connection whose transaction did not end cleanly is not handed out again.
            await statements.raw(db, conn, 'ROLLBACK').catch(() => (reusable = false));
            throw error;
          }
          tx.active = false;
          try {
            await statements.raw(db, conn, 'COMMIT');
          } catch (err) {
            await statements.raw(db, conn, 'ROLLBACK').catch(() => (reusable = false));
            throw err;
          }
          return result;
        } catch (err) {
          if (!thrown) reusable &&= !this.dialect.connectionLost(err);
          throw err;
        } finally {
          delete conn.__knexTxId;
          if (!reusable) conn.__knex__disposed ??= 'a transaction did not end cleanly';
          await client.releaseConnection(conn);
        }
      });
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

  /** Runs one operation (runRetrying), in a span of its own when tracing is on. */
  private run<T>(
    info: TableInfo,
    operation: string,
    tx: Transaction | undefined,
    write: boolean,
    fn: (db: Db, statements: Statements) => Promise<T>,
    id?: unknown,
  ): Promise<T> {
    if (!this.tracing) return this.runRetrying(info, operation, tx, write, fn, id);
    const attributes = { 'db.system.name': DB_SYSTEM[this.dialect.name], 'db.collection.name': info.table, 'db.operation.name': operation };
    return inSpan(`${operation} ${info.table}`, attributes, () => this.runRetrying(info, operation, tx, write, fn, id));
  }

  /**
   * Runs one operation, on the transaction's connection when given, mapping store errors. A read
   * outside a transaction whose connection turns out dead (the server restarted, an operator
   * terminated it) is retried on another pooled connection; a write is not, as it may have run.
   */
  private async runRetrying<T>(
    info: TableInfo,
    operation: string,
    tx: Transaction | undefined,
    write: boolean,
    fn: (db: Db, statements: Statements) => Promise<T>,
    id?: unknown,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        const db = tx ? this.useTx(tx) : this.db();
        const statements = this.statements ?? this.notConnected();
        const lock = write && !tx ? this.dialect.writeLock() : undefined;
        if (!lock) return await fn(db, statements);
        if (this.current.getStore()?.active) {
          throw new ObjectQLError(
            'DATABASE_ERROR',
            `A write on '${info.object}' outside the open transaction of datasource '${this.name}' would wait for that transaction; pass the transaction`,
          );
        }
        return await lock.runExclusive(() => fn(db, statements));
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

  private useTx(tx: Transaction): Db {
    if (!(tx instanceof SqlTransaction) || tx.owner !== this) {
      throw new ObjectQLError('DATABASE_ERROR', `Transaction does not belong to datasource '${this.name}'`);
    }
    if (!tx.active) throw new ObjectQLError('DATABASE_ERROR', 'Transaction has already finished');
    return tx.trx;
  }

  private db(): Knex {
    return this.knex ?? this.notConnected();
  }

  private notConnected(): never {
    throw new ObjectQLError('DATABASE_ERROR', `Datasource '${this.name}' is not connected`);
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
