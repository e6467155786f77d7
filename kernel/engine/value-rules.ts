/**
 * What every engine can store alike, checked by the engine before any driver sees a value (record
 * values, JSON values at any depth, filter values, ids). Engines disagree on the rest: PostgreSQL
 * refuses a NUL character (an error) where SQLite and MariaDB store it; an unpaired UTF-16
 * surrogate cannot be encoded as UTF-8 and comes back as U+FFFD (or is refused by jsonb); an
 * integer beyond 2^53 is not exact in JavaScript, nor in the double columns some engines use.
 */
import { configSchema } from '../config/schema';
import type { Limits } from './types';

/** The limits that bound values (config `limits`). */
export type ValueLimits = Pick<Limits, 'maxTextLength' | 'maxJsonValueDepth' | 'maxJsonLength' | 'maxPatternLength'>;

/** The configuration's defaults, for pure callers given no limits. */
export const DEFAULT_VALUE_LIMITS: ValueLimits = Object.freeze(configSchema.shape.limits.parse(undefined));

/** A problem with a value, and the configured limit it exceeds when it is one. */
export interface ValueProblem {
  error: string;
  limit?: { limit: keyof ValueLimits; max: number };
}

// NUL, or a high surrogate not followed by a low one, or a low one not preceded by a high one.
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored alike everywhere, or undefined. Linear in the string. */
export function stringProblem(text: string): string | undefined {
  const m = UNSTORABLE.exec(text);
  if (!m) return undefined;
  return m[0] === '\0' ? 'must not contain NUL characters (U+0000)' : 'must be well-formed Unicode (it holds an unpaired surrogate)';
}

/** Why a number cannot be stored exactly everywhere, or undefined. */
export function numberProblem(n: number): string | undefined {
  return Math.abs(n) > Number.MAX_SAFE_INTEGER
    ? `must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} (larger numbers are not exact on every engine)`
    : undefined;
}

/**
 * Walks any value without recursion: every string (object keys too) must be storable, and arrays
 * and objects nest at most `maxJsonValueDepth` levels. Run before anything recurses over the value.
 */
export function treeProblem(value: unknown, limits: Pick<ValueLimits, 'maxJsonValueDepth'>): ValueProblem | undefined {
  const max = limits.maxJsonValueDepth;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') {
      const error = stringProblem(v);
      if (error) return { error };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return { error: `is nested deeper than ${max} levels`, limit: { limit: 'maxJsonValueDepth', max } };
    if (Array.isArray(v)) {
      for (const item of v) stack.push([item, depth + 1]);
      continue;
    }
    for (const [key, item] of Object.entries(v)) {
      const error = stringProblem(key);
      if (error) return { error: `key ${JSON.stringify(key)}: ${error}` };
      stack.push([item, depth + 1]);
    }
  }
  return undefined;
}

/** The JSON text of a JSON value within `maxJsonLength` characters (checked after treeProblem). */
export function jsonLengthProblem(value: unknown, limits: Pick<ValueLimits, 'maxJsonLength'>): ValueProblem | undefined {
  const max = limits.maxJsonLength;
  const length = JSON.stringify(value)?.length ?? 0;
  return length > max
    ? { error: `is larger than ${max} characters as JSON (${length})`, limit: { limit: 'maxJsonLength', max } }
    : undefined;
}

/**
 * The widest text every engine stores in a column of its own without max_length: MySQL and
 * MariaDB keep short text (text, email, url, phone, select) in varchar(255), and PostgreSQL
 * select values too. A field declaring max_length gets a wider column (mediumtext) there.
 */
export const SHORT_TEXT_LENGTH = 255;
const SHORT_TEXT_TYPES = new Set(['text', 'email', 'url', 'phone', 'select']);

/**
 * A text value's length bound: the field's own max_length when it declares one; else 255 for
 * short text types and limits.maxTextLength for textarea.
 */
export function textLengthProblem(
  length: number,
  field: { type: string; max_length?: number },
  limits: Pick<ValueLimits, 'maxTextLength'>,
): ValueProblem | undefined {
  if (field.max_length !== undefined)
    return length > field.max_length ? { error: `must be at most ${field.max_length} characters` } : undefined;
  if (SHORT_TEXT_TYPES.has(field.type)) {
    return length > SHORT_TEXT_LENGTH
      ? {
          error: `must be at most ${SHORT_TEXT_LENGTH} characters (a ${field.type} field without max_length; use textarea or declare max_length for longer text)`,
        }
      : undefined;
  }
  const max = limits.maxTextLength;
  return length > max ? { error: `must be at most ${max} characters`, limit: { limit: 'maxTextLength', max } } : undefined;
}
