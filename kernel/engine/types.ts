import type { User, RequestContext } from '../context';
import type { AggregateSpec, Filter, SortKey } from '../query/ast';
import type { HookEvent } from '../metadata/types';

export type DataRecord = Record<string, unknown>;

/** Sort as any protocol writes it: 'name', '-name', 'name desc', ['name', 'desc'] or {field, dir}; or a list of those. */
export type SortInput = string | Array<string | [string, string?] | SortKey>;

/** Options of one expanded relation. `filter` is an AST (as FindOptions.filter), and-ed with `filters`. */
export interface ExpandOptions {
  fields?: string[];
  filters?: unknown;
  filter?: Filter;
  sort?: SortInput;
  top?: number;
  expand?: Record<string, ExpandOptions>;
}

/**
 * A find request. `filters` is the spec's filter (array form or map form); `filter` is an AST
 * built by a protocol that has its own syntax (OData). When both are given they are and-ed.
 */
export interface FindOptions {
  fields?: string[] | null;
  filters?: unknown;
  filter?: Filter;
  sort?: SortInput;
  top?: number;
  skip?: number;
  expand?: Record<string, ExpandOptions>;
  groupBy?: string[];
  aggregate?: AggregateSpec[];
}

export interface CountOptions {
  filters?: unknown;
  filter?: Filter;
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

/** One object, seen by one caller. Every protocol and every hook reaches data through this. */
export interface Repository {
  find(options?: FindOptions): Promise<FindResult>;
  /** A record by id, or the first match of a filter; null when there is none the caller may see. */
  findOne(idOrOptions: string | FindOptions): Promise<DataRecord | null>;
  count(options?: CountOptions): Promise<number>;
  create(data: DataRecord): Promise<DataRecord>;
  /** Returns the changed fields with id and updated_at. */
  update(id: string, data: DataRecord): Promise<DataRecord>;
  delete(id: string): Promise<{ id: string; deleted: true }>;
  createMany(items: DataRecord[]): Promise<CreateManyResult>;
  updateMany(filters: unknown, data: DataRecord): Promise<BulkCountResult>;
  deleteMany(filters: unknown): Promise<BulkCountResult>;
  aggregate(options: FindOptions): Promise<DataRecord[]>;
  action(name: string, request?: ActionRequest): Promise<unknown>;
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
}
