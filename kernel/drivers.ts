import type { Logger } from './logger';
import type { AggregateQuery, Filter, Query } from './query/ast';
import type { ObjectDefinition } from './metadata/types';

export type DbRecord = Record<string, unknown>;

export interface DriverCapabilities {
  transactions: boolean;
  aggregation: boolean;
  fullTextSearch: boolean;
  /** Pages per group (Query.perGroup) in the store, e.g. with a window function. */
  perGroupPaging?: boolean;
  /** Sorts through a to-one relation (SortKey.through) in the store. */
  sortThrough?: boolean;
}

/**
 * What a datasource sees of a running transaction. Passed back into every call made inside it;
 * drivers attach their own state by extending it.
 */
export interface Transaction {
  readonly datasource: string;
}

/**
 * A storage backend for a set of objects. It receives the kernel's AST (never protocol syntax),
 * values already validated and normalised by the engine, and pushes filter, sort, paging and
 * aggregation down to its store. Records go in and come out with `id` as their key.
 *
 * Storage errors: a unique violation throws ObjectQLError('CONFLICT'); a store that is away, does
 * not answer in time or has no free connection throws ObjectQLError('SERVICE_UNAVAILABLE') naming
 * the datasource; any other failure throws ObjectQLError('DATABASE_ERROR') with a message that
 * leaks no store internals.
 */
export interface Datasource {
  readonly name: string;
  readonly capabilities: DriverCapabilities;
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /**
   * One cheap round trip to the store, for readiness (GET /health/ready): resolves when it answers,
   * rejects (SERVICE_UNAVAILABLE) when it does not. Optional: a datasource without it is reported
   * as not checked.
   */
  ping?(): Promise<void>;
  /** Its connection pool now, for metrics. Optional: a datasource without a pool has none. */
  poolStats?(): PoolStats | undefined;
  /** Creates or extends storage for these objects; never drops data. */
  syncSchema(objects: ObjectDefinition[]): Promise<void>;
  find(object: string, query: Query, tx?: Transaction): Promise<DbRecord[]>;
  count(object: string, filter: Filter | undefined, tx?: Transaction): Promise<number>;
  create(object: string, data: DbRecord, tx?: Transaction): Promise<DbRecord>;
  /** Returns the whole updated record, or null when no record has that id. */
  update(object: string, id: string, data: DbRecord, tx?: Transaction): Promise<DbRecord | null>;
  /** Returns whether a record was deleted. */
  delete(object: string, id: string, tx?: Transaction): Promise<boolean>;
  aggregate(object: string, query: AggregateQuery, tx?: Transaction): Promise<DbRecord[]>;
  /** Runs fn in a transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Optional, for counters and work queues shared by instances: a find inside `tx` whose rows stay
   * locked against other transactions' writes and locks until `tx` ends (SELECT ... FOR UPDATE).
   * With `skipLocked`, rows another transaction holds are left out instead of waited for (SKIP
   * LOCKED). A store whose transactions run one at a time (SQLite, memory) finds as usual.
   */
  lockRows?(object: string, query: Query, tx: Transaction, options?: { skipLocked?: boolean }): Promise<DbRecord[]>;
  /**
   * Optional, for bookkeeping tables written in bulk (the events plugin's deliveries): sets the same
   * values on every record the filter matches, in one statement (`UPDATE ... WHERE`), and returns
   * how many it changed. Writes the store directly: no hooks, no validation, no change events.
   */
  updateWhere?(object: string, filter: Filter, data: DbRecord, tx?: Transaction): Promise<number>;
  /**
   * Optional, for bookkeeping tables written in bulk (the events plugin's deliveries): creates the
   * records, which all set the same fields, with as few statements as the store allows (multi-row
   * INSERT), all or none. A record without an id gets one. Writes the store directly: no hooks, no
   * validation, no change events.
   */
  createMany?(object: string, records: DbRecord[], tx?: Transaction): Promise<void>;
  /**
   * Optional, for counters shared by writers (the events plugin's feed counter): adds `by` to a
   * number field of one record and returns the new value, or undefined when no record has that id.
   * Inside `tx` the record stays locked until `tx` ends, as with `lockRows`. One statement where the
   * store can (UPDATE ... RETURNING). Writes the store directly: no hooks, no validation, no change events.
   */
  increment?(object: string, id: string, field: string, by: number, tx?: Transaction): Promise<number | undefined>;
}

export interface TransactionOptions {
  /**
   * false: the commit may return before the store has flushed it to disk, so it waits for no disk
   * write; a crash of the store right after can undo the transaction (whole, never in part). For
   * bookkeeping that is safe to lose, such as a delivery marked done that is then sent again.
   * PostgreSQL: `synchronous_commit = off` for this transaction; stores without such a setting
   * commit as usual. Default true.
   */
  durable?: boolean;
}

export interface PoolStats {
  /** Connections lent out now. */
  used: number;
  /** Connections open and idle. */
  free: number;
  /** Callers waiting for a connection. */
  pending: number;
  max: number;
}

export interface DatasourceConfig {
  driver: string;
  [option: string]: unknown;
}

/** What a driver factory is given besides its datasource's name and config. */
export interface DriverDeps {
  logger: Logger;
  /** The config file's folder, for relative paths in the driver's options. */
  baseDir: string;
  /** Config `tracing`: the driver may open a span per statement with @opentelemetry/api (kernel/tracing.ts). */
  tracing?: boolean;
}

/** Makes a datasource (not connected yet: the kernel calls `connect`). */
export type DriverFactory = (name: string, config: DatasourceConfig, deps: DriverDeps) => Datasource;
