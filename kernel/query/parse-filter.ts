/**
 * The spec's filter language (docs/spec.md, "Filter expression") → the kernel's AST. Handles the array form
 * (`[[field, op, value], 'and', [...]]`, nested to any depth the limits allow) and the map form
 * of bulk operations (`{field: value}` or `{field: [op, value]}`). Purely syntactic: whether a
 * field exists or a value fits its type is checked by the engine against the object's metadata.
 */
import { ObjectQLError } from '../errors';
import type { Filter, Operator } from './ast';

/** Spec operator spelling → AST operator. */
export const OPERATOR_ALIASES: Readonly<Record<string, Operator>> = Object.freeze({
  '=': 'eq',
  '==': 'eq',
  eq: 'eq',
  '!=': 'ne',
  '<>': 'ne',
  ne: 'ne',
  '>': 'gt',
  gt: 'gt',
  '>=': 'ge',
  ge: 'ge',
  '<': 'lt',
  lt: 'lt',
  '<=': 'le',
  le: 'le',
  in: 'in',
  'not in': 'nin',
  notin: 'nin',
  nin: 'nin',
  like: 'like',
  startswith: 'startswith',
  endswith: 'endswith',
  contains: 'contains',
  between: 'between',
});

const SPEC_OPERATORS = '=, !=, >, >=, <, <=, in, not in, like, startswith, endswith, contains, between';

export interface FilterLimits {
  maxDepth: number;
  maxConditions: number;
}

const DEFAULT_LIMITS: FilterLimits = { maxDepth: 16, maxConditions: 200 };

/**
 * A value standing for another field of the same record: `{$field: 'budget'}`. The engine also
 * reads a bare string naming a field as a reference when the compared field is not text-like.
 */
export interface FieldRef {
  $field: string;
}
export function isFieldRef(v: unknown): v is FieldRef {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as FieldRef).$field === 'string' && Object.keys(v).length === 1
  );
}

export function parseOperator(op: unknown, where: string): Operator {
  const key = typeof op === 'string' ? op.trim().toLowerCase().replace(/\s+/g, ' ') : undefined;
  const mapped = key !== undefined ? OPERATOR_ALIASES[key] : undefined;
  if (!mapped) {
    throw new ObjectQLError('INVALID_REQUEST', `Unknown filter operator ${JSON.stringify(op)} at ${where}; use one of ${SPEC_OPERATORS}`, {
      operator: op,
    });
  }
  return mapped;
}

/** Parses a filter in array form, map form, or null/undefined (no filter). */
export function parseFilter(input: unknown, limits: FilterLimits = DEFAULT_LIMITS): Filter | undefined {
  if (input === undefined || input === null) return undefined;
  const state = { conditions: 0, limits };
  if (Array.isArray(input)) return input.length === 0 ? undefined : parseArray(input, 'filters', 1, state);
  if (typeof input === 'object') return parseMap(input as Record<string, unknown>, state);
  throw new ObjectQLError('INVALID_REQUEST', 'filters must be an array of conditions or a map of field values');
}

interface ParseState {
  conditions: number;
  limits: FilterLimits;
}

function isConditionTriple(arr: unknown[]): boolean {
  return arr.length === 3 && typeof arr[0] === 'string' && typeof arr[1] === 'string' && !isJoiner(arr[1]);
}

function isJoiner(v: unknown): v is string {
  return typeof v === 'string' && (v.toLowerCase() === 'and' || v.toLowerCase() === 'or');
}

function parseArray(arr: unknown[], where: string, depth: number, state: ParseState): Filter {
  if (depth > state.limits.maxDepth) {
    throw new ObjectQLError('INVALID_REQUEST', `Filter is nested deeper than ${state.limits.maxDepth} levels at ${where}`);
  }
  if (isConditionTriple(arr)) return parseCondition(arr, where, state);
  if (arr.length === 2 && typeof arr[0] === 'string' && arr[0].toLowerCase() === 'not' && Array.isArray(arr[1])) {
    return { not: parseArray(arr[1], `${where}[1]`, depth + 1, state) };
  }

  // A list of terms joined by 'and' / 'or' (adjacent terms without a joiner mean 'and');
  // 'and' binds tighter than 'or', as in SQL.
  const orGroups: Filter[][] = [[]];
  let expectTerm = true;
  arr.forEach((item, i) => {
    const at = `${where}[${i}]`;
    if (isJoiner(item)) {
      if (expectTerm) throw new ObjectQLError('INVALID_REQUEST', `Unexpected '${item}' at ${at}: a condition must come before it`);
      if (item.toLowerCase() === 'or') orGroups.push([]);
      expectTerm = true;
      return;
    }
    if (!Array.isArray(item)) {
      throw new ObjectQLError(
        'INVALID_REQUEST',
        `Invalid filter at ${at}: expected a condition [field, operator, value], a nested list, 'and' or 'or'; got ${JSON.stringify(item)}`,
      );
    }
    if (item.length === 0) throw new ObjectQLError('INVALID_REQUEST', `Empty condition at ${at}`);
    orGroups[orGroups.length - 1].push(parseArray(item, at, depth + 1, state));
    expectTerm = false;
  });
  if (expectTerm) throw new ObjectQLError('INVALID_REQUEST', `Filter at ${where} ends with a joiner; a condition must follow it`);
  const ors = orGroups.map((g) => (g.length === 1 ? g[0] : { and: g }));
  return ors.length === 1 ? ors[0] : { or: ors };
}

function parseCondition(arr: unknown[], where: string, state: ParseState): Filter {
  state.conditions += 1;
  if (state.conditions > state.limits.maxConditions) {
    throw new ObjectQLError('INVALID_REQUEST', `Filter has more than ${state.limits.maxConditions} conditions`);
  }
  const [field, rawOp, value] = arr as [string, string, unknown];
  if (!field.trim()) throw new ObjectQLError('INVALID_REQUEST', `Empty field name at ${where}`);
  const op = parseOperator(rawOp, where);
  return buildCondition(field, op, value, where);
}

/** Builds one condition, turning `= null` / `!= null` into null tests and checking the value's shape. */
export function buildCondition(field: string, op: Operator, value: unknown, where: string): Filter {
  if (value === null && (op === 'eq' || op === 'ne')) return { field, op: 'isnull', value: op === 'eq' };
  if (value === undefined) throw new ObjectQLError('INVALID_REQUEST', `Condition on '${field}' at ${where} has no value`);
  if ((op === 'in' || op === 'nin') && !Array.isArray(value)) {
    throw new ObjectQLError('INVALID_REQUEST', `Operator '${op === 'in' ? 'in' : 'not in'}' on '${field}' needs an array value`);
  }
  if (op === 'between' && !(Array.isArray(value) && value.length === 2)) {
    throw new ObjectQLError('INVALID_REQUEST', `Operator 'between' on '${field}' needs a value [low, high]`);
  }
  if (isFieldRef(value)) {
    if (op === 'in' || op === 'nin' || op === 'between' || op === 'like' || op === 'isnull') {
      throw new ObjectQLError('INVALID_REQUEST', `Operator '${op}' on '${field}' cannot compare with another field`);
    }
    return { field, op, ref: value.$field };
  }
  return { field, op, value };
}

function parseMap(map: Record<string, unknown>, state: ParseState): Filter | undefined {
  const parts: Filter[] = [];
  for (const [field, spec] of Object.entries(map)) {
    const where = `filters.${field}`;
    state.conditions += 1;
    if (state.conditions > state.limits.maxConditions) {
      throw new ObjectQLError('INVALID_REQUEST', `Filter has more than ${state.limits.maxConditions} conditions`);
    }
    if (Array.isArray(spec) && spec.length === 2 && typeof spec[0] === 'string' && OPERATOR_ALIASES[spec[0].trim().toLowerCase()]) {
      parts.push(buildCondition(field, parseOperator(spec[0], where), spec[1], where));
    } else if (Array.isArray(spec)) {
      throw new ObjectQLError('INVALID_REQUEST', `Invalid filter for '${field}': use a value for equality or [operator, value]`);
    } else {
      parts.push(buildCondition(field, 'eq', spec, where));
    }
  }
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : { and: parts };
}
