/**
 * The kernel's query AST: what every protocol translates into and every driver receives.
 * Drivers never see protocol syntax, special values ($now, $current_user, ...) or field names
 * the caller may not use: the engine resolves and checks all of that first.
 */

export const OPERATORS = [
  'eq',
  'ne',
  'gt',
  'ge',
  'lt',
  'le',
  'in',
  'nin',
  'like',
  'startswith',
  'endswith',
  'contains',
  'between',
  'isnull',
] as const;
export type Operator = (typeof OPERATORS)[number];

export type Scalar = string | number | boolean | null;

/**
 * Functions a condition may apply to its field before comparing. `length`: the number of
 * characters (Unicode code points) of a text value; null for a null value.
 */
export const FILTER_FUNCTIONS = ['length'] as const;
export type FilterFunction = (typeof FILTER_FUNCTIONS)[number];

/** Operators a condition with `fn` may use. */
export const FUNCTION_OPERATORS: readonly Operator[] = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'];

/**
 * A condition comparing a field with a literal value. `isnull` takes `true` (is null) or `false`
 * (is not null). With `fn` it compares `fn(field)` instead (`{field: 'name', op: 'gt', value: 3,
 * fn: 'length'}` is length(name) > 3), with the operators of FUNCTION_OPERATORS only; a null
 * field gives null, which only `ne` matches.
 */
export interface ValueCondition {
  field: string;
  op: Operator;
  value: unknown;
  fn?: FilterFunction;
}

/** A condition comparing a field with another field of the same record. */
export interface RefCondition {
  field: string;
  op: Exclude<Operator, 'in' | 'nin' | 'between' | 'isnull' | 'like'>;
  ref: string;
}

export type Condition = ValueCondition | RefCondition;

/** A tree of conditions combined with and, or and not. */
export type FilterOf<C> = { and: FilterOf<C>[] } | { or: FilterOf<C>[] } | { not: FilterOf<C> } | C;

/** What a driver receives: conditions on the object's own fields only. */
export type Filter = FilterOf<Condition>;

/**
 * A condition through a relation of the object (the names of `relationsOf`, kernel/metadata/relations.ts):
 * a lookup/master_detail field (to one, or to many when `multiple`) or a one-to-many relation (the
 * records of another object whose lookup points at this one). It holds when `any` (or `all`)
 * related records match `filter`, the related object read as the caller sees it (its permissions,
 * readable fields and record scope); `any` without a filter: there is a related record. On a
 * to-one relation `all` means `any`. The engine resolves it before the driver, so drivers never
 * see one.
 */
export interface RelationCondition {
  relation: string;
  quantifier: 'any' | 'all';
  filter?: RequestFilter;
}

/** What a protocol may hand the engine: conditions on fields and through relations. */
export type RequestFilter = FilterOf<Condition | RelationCondition>;

export type SortDirection = 'asc' | 'desc';
export interface SortKey {
  field: string;
  dir: SortDirection;
  /**
   * Sort by a field of the record a to-one relation (`field`) points at, as the caller may see it:
   * a related record outside `scope` (the caller's record scope on `object`) sorts as null. The
   * engine sets it from a path `relation.field` and keeps both objects on one datasource.
   */
  through?: { object: string; field: string; scope?: Filter };
}

export const AGGREGATE_FUNCS = ['count', 'sum', 'avg', 'min', 'max', 'countdistinct'] as const;
export type AggregateFunc = (typeof AGGREGATE_FUNCS)[number];
export interface AggregateSpec {
  func: AggregateFunc;
  /** Absent for count(*). */
  field?: string;
  alias: string;
}

export interface Query {
  fields?: string[];
  filter?: Filter;
  sort?: SortKey[];
  top?: number;
  skip?: number;
  /**
   * Paging per group: the rows are numbered in sort order within each distinct value of `field`,
   * and only those after the first `skip` and within `top` of each group are returned (then
   * `top`/`skip` of the query apply to what is left). Sent only to datasources whose capabilities
   * say `perGroupPaging`; the engine pages in memory for the others.
   */
  perGroup?: { field: string; top?: number; skip?: number };
}

export interface AggregateQuery {
  filter?: Filter;
  groupBy?: string[];
  aggregate: AggregateSpec[];
  /** May name groupBy fields and aggregate aliases. */
  sort?: SortKey[];
  top?: number;
  skip?: number;
}

export function isAnd(f: Filter): f is { and: Filter[] } {
  return 'and' in f;
}
export function isOr(f: Filter): f is { or: Filter[] } {
  return 'or' in f;
}
export function isNot(f: Filter): f is { not: Filter } {
  return 'not' in f;
}
export function isRef(c: Condition): c is RefCondition {
  return 'ref' in c;
}
export function isRelation(f: RequestFilter): f is RelationCondition {
  return 'relation' in f;
}

/** Combines filters with `and`, dropping empty ones. */
export function andFilters<F extends RequestFilter>(...filters: Array<F | undefined>): F | undefined {
  const parts = filters.filter((f): f is F => f !== undefined);
  if (parts.length === 0) return undefined;
  if (parts.length === 1) return parts[0];
  return { and: parts } as unknown as F;
}
