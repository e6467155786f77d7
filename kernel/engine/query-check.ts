/**
 * Checks a query against an object's metadata and the caller's readable fields, and turns it into
 * the exact AST a driver receives: unknown or hidden fields and operators a type does not support
 * are errors (a hidden field reads as unknown, so its existence is not revealed), values are
 * coerced to the field's type, special values are resolved and bare field names become references.
 */
import { ObjectQLError, validationError } from '../errors';
import { JSON_VALUE_TYPES, NUMERIC_TYPES, TEXTUAL_TYPES, type FieldDefinition, type ObjectDefinition } from '../metadata/types';
import {
  FILTER_FUNCTIONS,
  FUNCTION_OPERATORS,
  isRelation,
  type Condition,
  type RelationCondition,
  type RequestFilter,
  type Filter,
  type Operator,
  type SortKey,
  type ValueCondition,
} from '../query/ast';
import type { Relation } from '../metadata/relations';
import { checkDate, checkDateTime } from './scalar-values';
import { isSpecial, resolveSpecial, type Specials } from './special-values';
import type { SortInput } from './types';
import { DEFAULT_VALUE_LIMITS, numberProblem, stringProblem, type ValueLimits } from './value-rules';

export interface CheckEnv {
  object: ObjectDefinition;
  /** Fields the caller may read, filter, sort and group by. */
  readable: ReadonlySet<string>;
  specials: Specials;
  /** Bounds of filter values and of nesting through relations; the configuration's defaults when absent. */
  limits?: ValueLimits & { maxExpandDepth?: number };
  /**
   * The relation of this name the caller may follow, with the related object as they see it:
   * undefined for no such relation (or a hidden lookup field), FORBIDDEN when they may not read
   * the related object. Absent where conditions through relations cannot run (record_filters,
   * in-memory matching).
   */
  related?: (relation: string) => RelatedEnv | undefined;
}

export interface RelatedEnv {
  relation: Relation;
  env: CheckEnv;
}

const SUBSTRING_OPS = new Set<Operator>(['like', 'contains', 'startswith', 'endswith']);
const MEMBERSHIP_OPS = new Set<Operator>(['eq', 'ne', 'in', 'nin', 'isnull']);
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,3})?)?$/;

export function fieldOf(env: CheckEnv, name: unknown, purpose: string): FieldDefinition {
  if (typeof name !== 'string')
    throw new ObjectQLError('INVALID_REQUEST', `${purpose}: field names must be strings, got ${JSON.stringify(name)}`);
  const field = env.object.fields[name];
  if (!field || !env.readable.has(name)) {
    throw new ObjectQLError('INVALID_REQUEST', `${purpose}: unknown field '${name}' on object '${env.object.name}'`, {
      field: name,
      object: env.object.name,
    });
  }
  return field;
}

/** Checks a filter without conditions through relations (record_filters, in-memory matching). */
export function checkFilter(filter: Filter, env: CheckEnv): Filter {
  return checkRequestFilter(filter, { ...env, related: undefined }) as Filter;
}

/**
 * Checks a filter that may go through relations (`{relation, quantifier, filter}` or a dotted
 * path `project.name`): each relation must be one the caller may follow, and its condition is
 * checked against the related object as the caller sees it. Nesting through relations is bounded
 * by limits.maxExpandDepth, as expand is.
 */
export function checkRequestFilter(filter: RequestFilter, env: CheckEnv, depth = 0): RequestFilter {
  if ('and' in filter) return { and: filter.and.map((f) => checkRequestFilter(f, env, depth)) };
  if ('or' in filter) return { or: filter.or.map((f) => checkRequestFilter(f, env, depth)) };
  if ('not' in filter) return { not: checkRequestFilter(filter.not, env, depth) };
  if (isRelation(filter)) return checkRelation(filter, env, depth);
  if (typeof filter.field === 'string' && filter.field.includes('.') && env.object.fields[filter.field] === undefined) {
    const dot = filter.field.indexOf('.');
    const inner = { ...filter, field: filter.field.slice(dot + 1) };
    return checkRelation({ relation: filter.field.slice(0, dot), quantifier: 'any', filter: inner }, env, depth, filter.field);
  }
  return checkCondition(filter, env);
}

function checkRelation(c: RelationCondition, env: CheckEnv, depth: number, path?: string): RequestFilter {
  const where = `Filter on '${path ?? c.relation}'`;
  if (typeof c.relation !== 'string') throw new ObjectQLError('INVALID_REQUEST', 'Filter: a relation name must be a string');
  if (!env.related) {
    throw new ObjectQLError('INVALID_REQUEST', `${where}: conditions through relations are not available here`, { field: c.relation });
  }
  const related = env.related(c.relation);
  if (!related) {
    throw new ObjectQLError('INVALID_REQUEST', `${where}: unknown relation '${c.relation}' on object '${env.object.name}'`, {
      field: c.relation,
      object: env.object.name,
    });
  }
  if (c.quantifier !== 'any' && c.quantifier !== 'all')
    throw new ObjectQLError('INVALID_REQUEST', `${where}: quantifier must be 'any' or 'all', got ${JSON.stringify(c.quantifier)}`);
  const max = env.limits?.maxExpandDepth ?? 3;
  if (depth >= max) {
    throw new ObjectQLError('EXPAND_DEPTH_EXCEEDED', `${where}: conditions may go through at most ${max} relations`, { max_depth: max });
  }
  const inner = c.filter && checkRequestFilter(c.filter, related.env, depth + 1);
  return inner
    ? { relation: related.relation.name, quantifier: c.quantifier, filter: inner }
    : { relation: related.relation.name, quantifier: c.quantifier };
}

function checkCondition(c: Condition, env: CheckEnv): Filter {
  const field = fieldOf(env, c.field, 'Filter');
  const where = `Filter on '${field.name}'`;
  if ('fn' in c && c.fn !== undefined) return checkFunction(field, c, where);
  checkOperator(field, c.op, where);
  if ('ref' in c) return { field: field.name, op: c.op, ref: checkRef(field, c.ref, env, where) };

  let value = resolveSpecials(c.value, env.specials);
  let op = c.op;
  // A special the caller lacks (anonymous, no such key) resolves to null and equals no value: it
  // must not become a null test, or `owner = $current_user` would match every ownerless record.
  if (value === null && isSpecial(c.value) && op !== 'ne' && op !== 'nin') return { field: field.name, op: 'in', value: [] };
  // $current_user.role is a list: '=' means "is one of my roles".
  if (Array.isArray(value) && (op === 'eq' || op === 'ne') && isSpecial(c.value)) op = op === 'eq' ? 'in' : 'nin';
  if (value === null && (op === 'eq' || op === 'ne')) return { field: field.name, op: 'isnull', value: op === 'eq' };
  if (op === 'isnull') return { field: field.name, op, value: Boolean(value) };

  // A bare string naming another readable field compares with that field when a literal string
  // could not fit; a hidden field's name stays a literal, so its existence is not revealed.
  if (
    typeof value === 'string' &&
    !TEXTUAL_TYPES.has(field.type) &&
    field.name !== 'id' &&
    env.readable.has(value) &&
    env.object.fields[value] &&
    !['in', 'nin', 'between', 'like'].includes(op)
  ) {
    return { field: field.name, op, ref: checkRef(field, value, env, where) } as Condition;
  }
  if (op === 'in' || op === 'nin' || op === 'between') {
    if (!Array.isArray(value)) throw new ObjectQLError('INVALID_REQUEST', `${where}: operator '${op}' needs an array value`);
    value = value.map((v) => coerce(field, v, op, where));
  } else if (SUBSTRING_OPS.has(op)) {
    if (typeof value !== 'string') throw new ObjectQLError('INVALID_REQUEST', `${where}: operator '${op}' needs a string value`);
    assertStorable(field, value);
    assertPattern(field, op, value, env.limits ?? DEFAULT_VALUE_LIMITS);
  } else {
    value = coerce(field, value, op, where);
  }
  return { field: field.name, op, value };
}

/** A condition on fn(field): `length` of a single-valued text field, compared with a number. */
function checkFunction(field: FieldDefinition, c: ValueCondition, where: string): Filter {
  const fn = c.fn!;
  if (!FILTER_FUNCTIONS.includes(fn)) throw new ObjectQLError('INVALID_REQUEST', `${where}: unknown function ${JSON.stringify(fn)}`);
  if (!TEXTUAL_TYPES.has(field.type) || field.multiple) {
    throw new ObjectQLError(
      'INVALID_REQUEST',
      `${where}: ${fn}() applies to single-valued text fields, not ${field.type}${field.multiple ? ' (multiple)' : ''}`,
    );
  }
  if (!FUNCTION_OPERATORS.includes(c.op)) {
    throw new ObjectQLError(
      'INVALID_REQUEST',
      `${where}: ${fn}() can be compared with ${FUNCTION_OPERATORS.join(', ')} only, not '${c.op}'`,
    );
  }
  const value = typeof c.value === 'string' && c.value.trim() !== '' ? Number(c.value) : c.value;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ObjectQLError('INVALID_REQUEST', `${where}: ${fn}() must be compared with a number, got ${JSON.stringify(c.value)}`, {
      field: field.name,
    });
  }
  return { field: field.name, op: c.op, value, fn };
}

function checkOperator(field: FieldDefinition, op: Operator, where: string): void {
  if (JSON_VALUE_TYPES.has(field.type) && op !== 'isnull') {
    throw new ObjectQLError('INVALID_REQUEST', `${where}: a ${field.type} field can only be tested against null`);
  }
  if (field.multiple && !MEMBERSHIP_OPS.has(op)) {
    throw new ObjectQLError('INVALID_REQUEST', `${where}: a multiple-value field supports =, !=, in, not in and null tests only`);
  }
  if (
    SUBSTRING_OPS.has(op) &&
    !TEXTUAL_TYPES.has(field.type) &&
    field.name !== 'id' &&
    field.name !== 'created_by' &&
    field.name !== 'updated_by'
  ) {
    throw new ObjectQLError('INVALID_REQUEST', `${where}: operator '${op}' applies to text fields, not ${field.type}`);
  }
}

function checkRef(field: FieldDefinition, ref: string, env: CheckEnv, where: string): string {
  const other = fieldOf(env, ref, where);
  const family = (f: FieldDefinition) =>
    NUMERIC_TYPES.has(f.type)
      ? 'number'
      : f.type === 'date' || f.type === 'datetime'
        ? 'date'
        : TEXTUAL_TYPES.has(f.type)
          ? 'text'
          : f.type;
  if (family(other) !== family(field) || other.multiple || field.multiple || JSON_VALUE_TYPES.has(other.type)) {
    throw new ObjectQLError('INVALID_REQUEST', `${where}: cannot compare a ${field.type} field with '${ref}' (${other.type})`);
  }
  return ref;
}

function resolveSpecials(value: unknown, specials: Specials): unknown {
  if (isSpecial(value)) return resolveSpecial(value, specials);
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    return items.map((v) => (isSpecial(v) ? resolveSpecial(v, specials) : v));
  }
  return value;
}

/**
 * A filter value no stored value can be, because no engine stores it alike (value-rules.ts): a
 * VALIDATION_ERROR naming the field, as the same value in a write gets, before any driver sees it.
 */
function assertStorable(field: FieldDefinition, value: unknown): void {
  const problem = typeof value === 'string' ? stringProblem(value) : typeof value === 'number' ? numberProblem(value) : undefined;
  if (problem) throw validationError({ [field.name]: `filter value ${problem}` });
}

/** A like / contains / startswith / endswith value within limits.maxPatternLength characters. */
function assertPattern(field: FieldDefinition, op: Operator, value: string, limits: ValueLimits): void {
  const max = limits.maxPatternLength;
  if (value.length <= max) return;
  const message = `'${op}' value must be at most ${max} characters (got ${value.length})`;
  throw new ObjectQLError('VALIDATION_ERROR', `Filter on '${field.name}': ${message}`, {
    fields: { [field.name]: message },
    limit: 'maxPatternLength',
    max,
  });
}

/** Coerces one filter value to the field's storage form; a value that cannot fit is an error naming the field. */
function coerce(field: FieldDefinition, value: unknown, op: Operator, where: string): unknown {
  const bad = (expected: string) =>
    new ObjectQLError('INVALID_REQUEST', `${where}: ${JSON.stringify(value)} is not ${expected}`, { field: field.name });
  if (value === null || value === undefined) throw bad('a value (use = null or != null to test for null)');
  assertStorable(field, value);
  if (NUMERIC_TYPES.has(field.type)) {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n)) throw bad('a number');
    assertStorable(field, n);
    return n;
  }
  switch (field.type) {
    case 'boolean':
      if (value === 'true' || value === 'false') return value === 'true';
      if (typeof value !== 'boolean') throw bad('a boolean');
      return value;
    // A real calendar date, as a write needs: 2025-02-30 is refused, not read as 2025-03-02.
    case 'date':
      if ('error' in checkDate(value)) throw bad('a date (YYYY-MM-DD)');
      return value;
    case 'datetime': {
      const checked = checkDateTime(typeof value === 'string' && DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
      if ('error' in checked) throw bad('a date-time (ISO 8601)');
      return checked.value;
    }
    case 'time':
      if (typeof value !== 'string' || !TIME.test(value)) throw bad('a time (HH:MM or HH:MM:SS)');
      return value.length === 5 ? `${value}:00` : value;
    case 'select':
      if (typeof value !== 'string') throw bad('a string');
      if ((op === 'eq' || op === 'ne' || op === 'in' || op === 'nin') && field.options && !field.options.some((o) => o.value === value)) {
        throw bad(`one of: ${field.options.map((o) => o.value).join(', ')}`);
      }
      return value;
    default:
      if (typeof value !== 'string') throw bad('a string');
      return value;
  }
}

/** Fields to return: all readable when absent or null; each named field must exist and be readable. */
export function checkFields(fields: unknown, env: CheckEnv): string[] | undefined {
  if (fields === undefined || fields === null) return undefined;
  if (!Array.isArray(fields)) throw new ObjectQLError('INVALID_REQUEST', "'fields' must be an array of field names");
  return [...new Set(fields.map((f) => fieldOf(env, f, 'fields').name))];
}

/** Normalises every sort syntax: 'a', '-a', 'a desc', 'a,b desc', ['a','desc'], [['a','desc']], {field, dir}. */
export function parseSort(input: SortInput | undefined): SortKey[] {
  if (input === undefined || input === null) return [];
  const keys: SortKey[] = [];
  const fromString = (s: string) => {
    for (const part of s.split(',')) {
      const item = part.trim();
      if (!item) throw new ObjectQLError('INVALID_REQUEST', `'sort' has an empty entry in '${s}'`);
      const [token, word, ...rest] = item.split(/\s+/);
      const sign = token[0] === '-' || token[0] === '+' ? token[0] : '';
      const field = token.slice(sign.length);
      if (rest.length || !field)
        throw new ObjectQLError('INVALID_REQUEST', `'sort' has an invalid entry '${item}': use 'field', '-field' or 'field desc'`);
      if (word !== undefined && sign)
        throw new ObjectQLError(
          'INVALID_REQUEST',
          `'sort' entry '${item}' gives the direction twice: use '${sign}${field}' or '${field} ${word}'`,
        );
      keys.push({ field, dir: word !== undefined ? direction(word, item) : sign === '-' ? 'desc' : 'asc' });
    }
  };
  if (typeof input === 'string') fromString(input);
  else if (Array.isArray(input)) {
    // A single pair ['name', 'desc'] as well as a list of pairs.
    const list =
      input.length === 2 && typeof input[0] === 'string' && typeof input[1] === 'string' && /^(asc|desc)$/i.test(input[1])
        ? [input as [string, string]]
        : input;
    for (const item of list) {
      if (typeof item === 'string') fromString(item);
      else if (Array.isArray(item) && typeof item[0] === 'string')
        keys.push({ field: item[0], dir: item[1] === undefined ? 'asc' : direction(item[1], JSON.stringify(item)) });
      else if (item && typeof item === 'object' && typeof (item as SortKey).field === 'string')
        keys.push({
          field: (item as SortKey).field,
          dir: (item as SortKey).dir === undefined ? 'asc' : direction((item as SortKey).dir, JSON.stringify(item)),
        });
      else throw new ObjectQLError('INVALID_REQUEST', `Invalid sort entry ${JSON.stringify(item)}: use [field, 'asc' | 'desc']`);
    }
  } else throw new ObjectQLError('INVALID_REQUEST', "'sort' must be a field name or a list of [field, 'asc' | 'desc']");
  return keys;
}

function direction(dir: unknown, where: string): 'asc' | 'desc' {
  const d = typeof dir === 'string' ? dir.toLowerCase() : '';
  if (d !== 'asc' && d !== 'desc')
    throw new ObjectQLError('INVALID_REQUEST', `'sort' has an invalid direction ${JSON.stringify(dir)} in ${where}: use asc or desc`);
  return d;
}

/** Resolves a sort key naming `relation.field` (kernel/engine/sort-through.ts). */
export type SortPathResolver = (path: string, dir: SortKey['dir']) => SortKey;

/**
 * Each key checked; a key repeating a field sorted by already can never decide an order and is
 * dropped. A key naming a path `relation.field` goes to `through` when given (else it is an unknown field).
 */
export function checkSort(
  input: SortInput | undefined,
  env: CheckEnv,
  aliases: ReadonlySet<string> = new Set(),
  through?: SortPathResolver,
): SortKey[] {
  const seen = new Set<string>();
  const keys: SortKey[] = [];
  for (const k of parseSort(input)) {
    if (seen.has(k.field)) continue;
    seen.add(k.field);
    if (through && !aliases.has(k.field) && k.field.includes('.')) {
      keys.push(through(k.field, k.dir));
      continue;
    }
    if (!aliases.has(k.field)) {
      const field = fieldOf(env, k.field, 'sort');
      if (JSON_VALUE_TYPES.has(field.type) || field.multiple)
        throw new ObjectQLError(
          'INVALID_REQUEST',
          `sort: cannot sort by '${field.name}' (${field.type}${field.multiple ? ', multiple' : ''})`,
        );
    }
    keys.push(k);
  }
  return keys;
}
