/**
 * The kernel's filter AST as one SQL condition, with evaluate.ts's semantics on every dialect:
 * - a comparison with a null side is false, except `ne` / `nin`, which match nulls;
 * - `not` negates exactly: under a NOT every condition is made two-valued (IS NOT NULL guards),
 *   so `not (qty < 6)` matches a null qty as the memory driver does. Outside a NOT, SQL's NULL
 *   already acts as false, and conditions stay plain (index-friendly);
 * - `like` / `contains` / `startswith` / `endswith` are case-insensitive (the dialect decides how);
 *   `like` patterns are canonicalised so `\` escapes `%`, `_` and itself on every engine;
 * - on a `multiple` field (a JSON array) `eq` / `in` test membership, `ne` / `nin` its absence,
 *   and `isnull: true` matches null and the empty array;
 * - `fn: 'length'` compares the column's length in characters (the dialect's charLength).
 */
import { ObjectQLError } from '../../kernel';
import type { FieldDefinition, Filter, RefCondition, SortKey, ValueCondition } from '../../kernel';
import { escapeLike, type SqlDialect, type TextOp } from './dialects/base';
import { FALSE, TRUE, frag, ident, join, sql, type Frag } from './fragment';
import { encodeValue, isMultiple, scalarText, storageFamily, type StorageFamily } from './values';

/** What filter compilation needs to know about the queried table. */
export interface ColumnScope {
  readonly dialect: SqlDialect;
  readonly table: string;
  field(name: string): FieldDefinition | undefined;
}

const COMPARE: Record<string, string> = { eq: '=', gt: '>', ge: '>=', lt: '<', le: '<=' };
const TEXT_OPS = new Set(['like', 'contains', 'startswith', 'endswith']);

export function whereSql(filter: Filter | undefined, scope: ColumnScope): Frag | undefined {
  return filter ? compile(filter, scope, false) : undefined;
}

/** `strict`: inside a NOT, where the condition must never be NULL. */
function compile(f: Filter, scope: ColumnScope, strict: boolean): Frag {
  if ('and' in f)
    return f.and.length
      ? join(
          f.and.map((p) => compile(p, scope, strict)),
          'AND',
          true,
        )
      : TRUE;
  if ('or' in f)
    return f.or.length
      ? join(
          f.or.map((p) => compile(p, scope, strict)),
          'OR',
          true,
        )
      : FALSE;
  if ('not' in f) return sql`(NOT ${compile(f.not, scope, true)})`;
  return 'ref' in f ? refCondition(f, scope) : valueCondition(f, scope, strict);
}

const isNullish = (v: unknown) => v === null || v === undefined;

function valueCondition(c: ValueCondition, scope: ColumnScope, strict: boolean): Frag {
  if (c.fn) return functionCondition(c, scope, strict);
  const field = scope.field(c.field);
  const family = storageFamily(field);
  const col = ident(c.field);
  const multiple = isMultiple(field);
  const enc = (v: unknown) => encodeValue(scope.dialect, family, v);
  const has = (v: unknown) => scope.dialect.jsonHasElement(`${scope.table}.${c.field}`, v);
  const hasAny = (list: unknown[]) => sql`(${scope.dialect.jsonHasAny(`${scope.table}.${c.field}`, list)})`;
  // Two-valued when strict: a null column makes the condition false, not NULL.
  const guard = (cond: Frag) => (strict ? sql`(${col} IS NOT NULL AND ${cond})` : sql`(${cond})`);
  const value = c.value;

  switch (c.op) {
    case 'isnull': {
      const test = nullTest(c.field, family, scope);
      return value ? test : sql`(NOT ${test})`;
    }
    case 'ne':
      if (isNullish(value)) return TRUE;
      return multiple ? sql`(${col} IS NULL OR NOT ${has(value)})` : sql`(${col} IS NULL OR ${col} <> ${enc(value)})`;
    case 'nin': {
      const list = listOf(value);
      if (list.length === 0) return TRUE;
      if (multiple) return sql`(${col} IS NULL OR NOT ${hasAny(list)})`;
      return sql`(${col} IS NULL OR NOT ${scope.dialect.inList(col, list.map(enc))})`;
    }
    case 'in': {
      const list = listOf(value);
      if (list.length === 0) return FALSE;
      if (multiple) return guard(hasAny(list));
      return guard(scope.dialect.inList(col, list.map(enc)));
    }
    case 'between': {
      const bounds: unknown[] = Array.isArray(value) ? value : [];
      const [low, high] = bounds;
      // As evaluate.ts: a null upper bound matches nothing, a null lower bound is no bound.
      if (isNullish(high)) return FALSE;
      if (isNullish(low)) return guard(sql`${col} <= ${enc(high)}`);
      return guard(sql`${col} >= ${enc(low)} AND ${col} <= ${enc(high)}`);
    }
    default:
      break;
  }
  if (isNullish(value)) return FALSE;
  if (multiple && c.op === 'eq') return guard(has(value));
  if (TEXT_OPS.has(c.op)) {
    const text = scalarText(value);
    return guard(scope.dialect.textMatch(c.op as TextOp, col, c.op === 'like' ? canonicalLike(text) : text));
  }
  const operator = COMPARE[c.op];
  if (!operator) throw new ObjectQLError('INVALID_REQUEST', `Unknown filter operator '${String(c.op)}'`);
  return guard(sql`${col} ${frag(operator)} ${enc(value)}`);
}

/** fn(column) compared with a number: null when the column is null, so only `ne` matches it. */
function functionCondition(c: ValueCondition, scope: ColumnScope, strict: boolean): Frag {
  if (c.fn !== 'length' || isMultiple(scope.field(c.field)))
    throw new ObjectQLError('INVALID_REQUEST', `Filter on '${c.field}': function '${String(c.fn)}' is not supported here`);
  const col = ident(c.field);
  const bound = integerBound(c.op, c.value);
  if (bound === 'none') return FALSE;
  if (bound === 'all') return TRUE;
  const expr = scope.dialect.charLength(col);
  if (bound.op === 'ne') return sql`(${col} IS NULL OR ${expr} <> ${bound.value})`;
  const operator = COMPARE[bound.op];
  if (!operator) throw new ObjectQLError('INVALID_REQUEST', `Operator '${c.op}' cannot compare ${c.fn}(${c.field})`);
  const cond = sql`${expr} ${frag(operator)} ${bound.value}`;
  return strict ? sql`(${col} IS NOT NULL AND ${cond})` : sql`(${cond})`;
}

const MAX_LENGTH = 2147483647;

/**
 * A length (a whole number) compared with any number, as the same comparison with an integer
 * within a 32-bit integer's range: PostgreSQL types the bound parameter after CHAR_LENGTH's
 * integer result and would refuse 2.5 or 1e12. `none` / `all`: no / every record matches.
 */
function integerBound(op: string, value: unknown): { op: string; value: number } | 'none' | 'all' {
  if (typeof value !== 'number' || Number.isNaN(value)) return op === 'ne' ? 'all' : 'none';
  let v = value;
  if (!Number.isInteger(v)) {
    if (op === 'eq') return 'none';
    if (op === 'ne') return 'all';
    v = op === 'gt' || op === 'le' ? Math.floor(v) : Math.ceil(v);
  }
  return { op, value: Math.min(Math.max(v, -1), MAX_LENGTH) };
}

function refCondition(c: RefCondition, scope: ColumnScope): Frag {
  if (isMultiple(scope.field(c.field)) || isMultiple(scope.field(c.ref))) {
    throw new ObjectQLError('INVALID_REQUEST', `Filter on '${c.field}': a multiple-value field cannot be compared with another field`);
  }
  const a = ident(c.field);
  const b = ident(c.ref);
  if (c.op === 'ne') return sql`(${a} IS NULL OR ${b} IS NULL OR ${a} <> ${b})`;
  const both = sql`${a} IS NOT NULL AND ${b} IS NOT NULL`;
  if (c.op === 'contains' || c.op === 'startswith' || c.op === 'endswith') {
    return sql`(${both} AND ${scope.dialect.textMatchRef(c.op, a, b)})`;
  }
  const operator = COMPARE[c.op];
  if (!operator) throw new ObjectQLError('INVALID_REQUEST', `Operator '${String(c.op)}' cannot compare two fields`);
  return sql`(${both} AND ${a} ${frag(operator)} ${b})`;
}

/** isnull: NULL, and for JSON columns (multiple, json, object, file, image) also the empty array. */
function nullTest(field: string, family: StorageFamily, scope: ColumnScope): Frag {
  const col = ident(field);
  if (family !== 'json') return sql`(${col} IS NULL)`;
  return sql`(${col} IS NULL OR ${scope.dialect.jsonIsEmptyArray(`${scope.table}.${field}`)})`;
}

function listOf(value: unknown): unknown[] {
  return (Array.isArray(value) ? value : [value]).filter((v) => !isNullish(v));
}

/**
 * A `like` pattern in one canonical form: `%` and `_` wildcards, and every literal `%`, `_` or
 * `\` escaped with `\`. As in evaluate.ts, `\` followed by any character means that character and
 * a trailing lone `\` is a literal backslash (which PostgreSQL would otherwise reject).
 */
export function canonicalLike(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\' && i + 1 < pattern.length) out += escapeLike(pattern[++i]);
    else if (ch === '%' || ch === '_') out += ch;
    else out += escapeLike(ch);
  }
  return out;
}

const NO_COLUMNS: ReadonlySet<string> = new Set();

/**
 * ORDER BY terms; nulls first ascending, last descending, on every dialect. `notNull`: keys that
 * never hold null (a key through a relation always may).
 */
export function orderSql(
  sort: SortKey[] | undefined,
  scope: ColumnScope,
  expressionOf: (field: string, key: SortKey) => Frag | undefined = ident,
  notNull = NO_COLUMNS,
): Frag | undefined {
  const terms: Frag[] = [];
  for (const key of sort ?? []) {
    const expr = expressionOf(key.field, key);
    if (expr) terms.push(scope.dialect.orderBy(expr, key.dir, key.through !== undefined || !notNull.has(key.field)));
  }
  return terms.length ? join(terms, ',') : undefined;
}
