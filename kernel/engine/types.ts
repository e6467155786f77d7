import type { Relation } from '../metadata/relations';
import type { ResolvedConfig } from '../config/schema';
import type { User, RequestContext } from '../context';
import type { AggregateSpec, RequestFilter, SortKey } from '../query/ast';
import type { HookEvent } from '../metadata/types';

export type DataRecord = Record<string, unknown>;

/** Sort as any protocol writes it: 'name', '-name', 'name desc', ['name', 'desc'] or {field, dir}; or a list of those. */
export type SortInput = string | Array<string | [string, string?] | SortKey>;

/** Options of one expanded relation. `filter` is an AST (as FindOptions.filter), and-ed with `filters`. */
export interface ExpandOptions {
  fields?: string[];
  filters?: unknown;
  filter?: RequestFilter;
  sort?: SortInput;
  /** Forward relation: records kept of a multiple lookup; one-to-many: records per parent (default limits.defaultTop, at most limits.maxTop). */
  top?: number;
  /**
   * Forward relation, for protocols (refused in a client's map): put the related record (or list)
   * under this key instead of the lookup field, which keeps its id — GraphQL's `<field>_record`.
   */
  into?: string;
  /** One-to-many only: records skipped per parent. */
  skip?: number;
  /** One-to-many only: also set `<relation>@count` on each parent, the number of its related records matching the filter. */
  count?: boolean;
  expand?: Record<string, ExpandOptions>;
}

/**
 * A find request. `filters` is the spec's filter (docs/spec.md: array form or map form); `filter` is an AST
 * built by a protocol that has its own syntax (OData). When both are given they are and-ed.
 */
export interface FindOptions {
  fields?: string[] | null;
  filters?: unknown;
  /** May go through relations (RelationCondition); checked and resolved by the engine. */
  filter?: RequestFilter;
  sort?: SortInput;
  top?: number;
  skip?: number;
  expand?: Record<string, ExpandOptions>;
  groupBy?: string[];
  aggregate?: AggregateSpec[];
}

export interface CountOptions {
  filters?: unknown;
  filter?: RequestFilter;
}

export interface PageMeta {
  total: number;
  page: number;
  size: number;
  pages: number;
  has_next: boolean;
}

export interface FindResult {
  items: DataRecord[];
  meta: PageMeta;
}

export interface BulkItemError {
  index: number;
  id?: string;
  error: { code: string; message: string; details?: unknown };
}

export interface CreateManyResult {
  items: DataRecord[];
  count: number;
  errors?: BulkItemError[];
}

export interface BulkCountResult {
  count: number;
  errors?: BulkItemError[];
}

export interface ActionRequest {
  id?: string;
  input?: Record<string, unknown>;
}

/**
 * What one caller may see of one object's records (`repo.visibility()`): for whoever has a record
 * in hand that it did not read as that caller — a change event, a deleted record, a file's holder —
 * and must decide what that caller may be shown of it, by the same rules as a query.
 */
export interface Visibility {
  /** Whether the caller may read records of this object at all. */
  readonly canRead: boolean;
  /** The fields the caller may read (and filter, sort and group by); empty when it may not read. */
  readonly readable: ReadonlySet<string>;
  /**
   * Whether the record, as stored, is within the caller's read scope (record_filters, special
   * values resolved for this caller) and, when `filters` (the spec's filter, array or map form) is
   * given, matches it as the caller sees the record. `filters` is checked as a query's: an unknown
   * or hidden field is INVALID_REQUEST. Always false when the caller may not read.
   */
  matches(record: DataRecord, filters?: unknown): boolean;
  /** The record with only the fields the caller may read (of `fields` when given; `id` always). */
  mask(record: DataRecord, fields?: readonly string[]): DataRecord;
}

/** What one caller may do with one object (`repo.permissions()`), as the engine enforces it. */
export interface CallerPermissions {
  canRead: boolean;
  canCreate: boolean;
  canEdit: boolean;
  canDelete: boolean;
  /** Fields the caller may read. */
  readable: ReadonlySet<string>;
  /** Fields the caller may write on create and update (never system, read-only or computed fields). */
  editable: ReadonlySet<string>;
}

/** Options of a one-record update or delete (`repo.update(id, data, options)`, `repo.delete(id, options)`). */
export interface WriteOptions {
  /**
   * Optimistic concurrency: the record's last-change stamp (`updated_at`, else `created_at`, an
   * ISO 8601 instant) as the caller last read it, or several accepted ones. The write fails with
   * PRECONDITION_FAILED (412) unless the stored record's stamp, as this caller may see it, is the
   * same instant (one of them; an empty list or an unreadable value matches nothing). Checked in
   * the write's transaction right after the record is loaded: the permission, record-scope and
   * not-found errors come first. Absent: no precondition.
   */
  ifUnchangedSince?: string | readonly string[];
}

/** What a write answers with when asked to read the record back: the fields and relations of a find. */
export type ReadBack = Pick<FindOptions, 'fields' | 'expand'>;

/** One object, seen by one caller. Every protocol and every hook reaches data through this. */
export interface Repository {
  find(options?: FindOptions): Promise<FindResult>;
  /** A record by id, or the first match of a filter; null when there is none the caller may see. */
  findOne(idOrOptions: string | FindOptions): Promise<DataRecord | null>;
  count(options?: CountOptions): Promise<number>;
  create(data: DataRecord): Promise<DataRecord>;
  /** Returns the changed fields with id and updated_at. */
  update(id: string, data: DataRecord, options?: WriteOptions): Promise<DataRecord>;
  delete(id: string, options?: WriteOptions): Promise<{ id: string; deleted: true }>;
  /**
   * create, then the record as findOne with `read` shows it, in one unit of work: a read the caller
   * may not make undoes the write. Where the caller may not see the record it wrote (record scope),
   * what create returned. Reads again only when the answer could differ from what was written.
   */
  createAndRead(data: DataRecord, read?: ReadBack): Promise<DataRecord>;
  /** update, then the whole record as findOne with `read` shows it (see createAndRead). */
  updateAndRead(id: string, data: DataRecord, read?: ReadBack): Promise<DataRecord>;
  createMany(items: DataRecord[]): Promise<CreateManyResult>;
  updateMany(filters: unknown, data: DataRecord): Promise<BulkCountResult>;
  deleteMany(filters: unknown): Promise<BulkCountResult>;
  aggregate(options: FindOptions): Promise<DataRecord[]>;
  action(name: string, request?: ActionRequest): Promise<unknown>;
  /** What the caller may see of records it holds without having read them (see Visibility). */
  visibility(): Visibility;
  /** What the caller may do with this object. */
  permissions(): CallerPermissions;
}

/** The kernel's limits on what one request may ask (config `limits`). */
export type Limits = ResolvedConfig['limits'];

/** The data engine (`kernel.engine`): the only road to data, for every protocol and every hook. */
export interface DataEngine {
  readonly limits: Limits;
  /** Whether an object of this name is defined. */
  has(object: string): boolean;
  /**
   * The relations of an object, both directions, by the one naming rule of every protocol
   * (kernel/metadata/relations.ts); an unknown object is NOT_FOUND. What the caller may follow is
   * checked when a query uses one.
   */
  relations(object: string): Relation[];
  /**
   * One object as seen by one caller; an unknown object is NOT_FOUND. Inside the function of an
   * `engine.transaction()`, the repository joins that transaction.
   */
  repo(object: string, request?: RequestContext): Repository;
  /**
   * Runs `fn` as one unit of work: every write through `api.repo(x)` (and by the hooks and actions
   * it triggers) commits when `fn` resolves and rolls back when it throws; `recordChanged` fires
   * after the commit only. See docs/plugins.md, "Several writes in one transaction".
   */
  transaction<T>(request: RequestContext, fn: (api: DataApi) => Promise<T>): Promise<T>;
}

/** What hooks and actions get to reach other objects as the same caller, inside the same transaction. */
export interface DataApi {
  repo(object: string): Repository;
}

export type Operation = 'find' | 'findOne' | 'count' | 'aggregate' | 'create' | 'update' | 'delete';

export interface HookContext {
  object: string;
  event: HookEvent;
  operation: Operation;
  user?: User;
  /** find, findOne, count and aggregate: the query, which before hooks may change. */
  query?: FindOptions;
  /** create and update: the incoming data, which before hooks may fill or change. */
  data?: DataRecord;
  id?: string;
  /** update and delete: the record as stored before the change. */
  previous?: DataRecord;
  /** after hooks: the operation's result; a hook may replace it. */
  result?: unknown;
  api: DataApi;
  request: RequestContext;
}

export interface RecordChange {
  object: string;
  type: 'created' | 'updated' | 'deleted';
  id: string;
  /** The stored record after the change (before it, for deletes), unmasked: listeners apply their own permissions. */
  record: DataRecord;
  previous?: DataRecord;
  user?: User;
  /** The request that made the change, when there was one (X-Request-Id). */
  requestId?: string;
  /**
   * Set by a `recordChanging` tap that numbers changes (the events plugin: the change's position in
   * its datasource's change feed), so that listeners after commit see the same number.
   */
  position?: number;
}
