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

export type Filter = { and: Filter[] } | { or: Filter[] } | { not: Filter } | Condition;

export type SortDirection = 'asc' | 'desc';
export interface SortKey {
  field: string;
  dir: SortDirection;
}

export const AGGREGATE_FUNCS = ['count', 'sum', 'avg', 'min', 'max'] as const;
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

/** Combines filters with `and`, dropping empty ones. */
export function andFilters(...filters: Array<Filter | undefined>): Filter | undefined {
  const parts = filters.filter((f): f is Filter => f !== undefined);
  if (parts.length === 0) return undefined;
  if (parts.length === 1) return parts[0];
  return { and: parts };
}
