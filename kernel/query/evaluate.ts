/**
 * Evaluates the AST against one record in JavaScript. The memory driver filters with it and the
 * engine's validation rules (`conditional.when`, `cross_field`) use it. These are the semantics
 * every driver shares:
 * - `eq`, `in`, `gt`... compare exactly (case-sensitive); strings compare by code unit.
 * - `like`, `contains`, `startswith`, `endswith` are case-insensitive; `like` takes SQL wildcards
 *   `%` and `_` (a backslash escapes them); the other three take their value literally.
 * - `ne` and `nin` match null values (a missing value is not equal to 'x'); every other
 *   comparison with a null side is false. `isnull: true` matches null, undefined and [].
 * - On an array value (a `multiple` field) `eq` / `in` match when any element matches, `ne` /
 *   `nin` when no element does.
 * - `between` is inclusive at both ends.
 * - Sorting puts nulls first in ascending order, last in descending order.
 * - `fn: 'length'` compares the number of Unicode code points of the value (null stays null).
 */
import type { Condition, Filter, FilterFunction } from './ast';
import { compileLike } from './like';

export { compileLike };

type Rec = Record<string, unknown>;

/**
 * Compiles a filter once into a predicate, for testing many records: the common shapes (equality,
 * membership and ordering against plain values) get direct closures; everything else goes through
 * the general evaluator, so both give the same answers.
 */
export function compileFilter(filter: Filter | undefined): (record: Rec) => boolean {
  if (!filter) return () => true;
  if ('and' in filter) {
    const parts = filter.and.map(compileFilter);
    return (r) => parts.every((p) => p(r));
  }
  if ('or' in filter) {
    const parts = filter.or.map(compileFilter);
    return (r) => parts.some((p) => p(r));
  }
  if ('not' in filter) {
    const inner = compileFilter(filter.not);
    return (r) => !inner(r);
  }
  return compileCondition(filter);
}

const isPrimitive = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

function compileCondition(c: Condition): (record: Rec) => boolean {
  const general = (r: Rec) => evaluateCondition(c, r);
  if ('ref' in c || c.fn) return general;
  const { field, value } = c;
  if (c.op === 'eq' && isPrimitive(value)) {
    return (r) => {
      const a = r[field];
      return a === value || (Array.isArray(a) && a.includes(value));
    };
  }
  if (c.op === 'in' && Array.isArray(value) && value.every(isPrimitive)) {
    const set = new Set<unknown>(value);
    return (r) => {
      const a = r[field];
      return Array.isArray(a) ? a.some((x) => set.has(x)) : a !== null && a !== undefined && set.has(a);
    };
  }
  if (c.op === 'like' && value !== null && value !== undefined) {
    const matches = compileLike(asText(value));
    return (r) => {
      const a = r[field];
      return !isNullish(a) && matches(String(a));
    };
  }
  if (typeof value === 'number' && (c.op === 'gt' || c.op === 'ge' || c.op === 'lt' || c.op === 'le')) {
    const test = {
      gt: (a: number) => a > value,
      ge: (a: number) => a >= value,
      lt: (a: number) => a < value,
      le: (a: number) => a <= value,
    }[c.op];
    return (r) => {
      const a = r[field];
      return typeof a === 'number' ? test(a) : general(r);
    };
  }
  return general;
}

export function evaluateFilter(filter: Filter | undefined, record: Rec): boolean {
  if (!filter) return true;
  if ('and' in filter) return filter.and.every((f) => evaluateFilter(f, record));
  if ('or' in filter) return filter.or.some((f) => evaluateFilter(f, record));
  if ('not' in filter) return !evaluateFilter(filter.not, record);
  return evaluateCondition(filter, record);
}

/**
 * A scalar as text, the way the text operators compare it: a string as it is, a number, boolean or
 * date by its own toString (the engine has checked a filter's values against the field's type).
 */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}

function isNullish(v: unknown): boolean {
  return v === null || v === undefined || (Array.isArray(v) && v.length === 0);
}

/** `fn` applied to a stored value; null and undefined stay as they are. */
function applyFunction(fn: FilterFunction, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const text = asText(value);
  switch (fn) {
    case 'length':
      return codePoints(text);
  }
}

/** The length in Unicode code points, as SQL's CHAR_LENGTH and MongoDB's $strLenCP count. */
function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function evaluateCondition(c: Condition, record: Rec): boolean {
  const raw = record[c.field];
  const actual = 'fn' in c && c.fn ? applyFunction(c.fn, raw) : raw;
  const expected = 'ref' in c ? record[c.ref] : c.value;
  switch (c.op) {
    case 'isnull':
      return isNullish(actual) === Boolean(expected);
    case 'ne':
      if (Array.isArray(actual)) return !actual.some((a) => valuesEqual(a, expected));
      return isNullish(actual) || !valuesEqual(actual, expected);
    case 'nin': {
      const list = expected as unknown[];
      if (Array.isArray(actual)) return !actual.some((a) => list.some((e) => valuesEqual(a, e)));
      return isNullish(actual) || !list.some((e) => valuesEqual(actual, e));
    }
    default:
      break;
  }
  if (isNullish(actual) || expected === null || expected === undefined) return false;
  if (Array.isArray(actual) && (c.op === 'eq' || c.op === 'in')) {
    return actual.some((a) => evaluateCondition({ field: '$', op: c.op, value: expected }, { $: a }));
  }
  switch (c.op) {
    case 'eq':
      return valuesEqual(actual, expected);
    case 'in':
      return (expected as unknown[]).some((e) => valuesEqual(actual, e));
    case 'gt':
      return compareValues(actual, expected) > 0;
    case 'ge':
      return compareValues(actual, expected) >= 0;
    case 'lt':
      return compareValues(actual, expected) < 0;
    case 'le':
      return compareValues(actual, expected) <= 0;
    case 'between': {
      const [low, high] = expected as [unknown, unknown];
      return compareValues(actual, low) >= 0 && compareValues(actual, high) <= 0;
    }
    case 'like':
      return compileLike(asText(expected))(asText(actual));
    case 'contains':
      return asText(actual).toLowerCase().includes(asText(expected).toLowerCase());
    case 'startswith':
      return asText(actual).toLowerCase().startsWith(asText(expected).toLowerCase());
    case 'endswith':
      return asText(actual).toLowerCase().endsWith(asText(expected).toLowerCase());
    default:
      return false;
  }
}

export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    return JSON.stringify(a) === JSON.stringify(b);
  }
  return false;
}

/** Total order over stored values: nulls first, then numbers, booleans, strings. */
export function compareValues(a: unknown, b: unknown): number {
  // The common cases first: this runs inside every sort comparison.
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const an = isNullish(a);
  const bn = isNullish(b);
  if (an || bn) return an === bn ? 0 : an ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const as = typeof a === 'string' ? a : JSON.stringify(a);
  const bs = typeof b === 'string' ? b : JSON.stringify(b);
  return as < bs ? -1 : as > bs ? 1 : 0;
}

/**
 * SQL LIKE pattern → anchored, case-insensitive RegExp. `\` escapes `%`, `_` and itself. Kept for
 * drivers that want a RegExp; patterns with several `%` backtrack badly: evaluate with compileLike.
 */
export function likeToRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\' && i + 1 < pattern.length) {
      out += escapeRegExp(pattern[++i]);
    } else if (ch === '%') {
      out += '[\\s\\S]*';
    } else if (ch === '_') {
      out += '[\\s\\S]';
    } else {
      out += escapeRegExp(ch);
    }
  }
  return new RegExp(`^${out}$`, 'i');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
