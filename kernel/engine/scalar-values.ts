/**
 * Checks for the scalar field types (text, numbers, dates, ...). Each takes one non-null value and
 * returns the normalised value or a short, human error message. Pure: no I/O, no metadata lookups.
 */
import type { FieldDefinition } from '../metadata/types';
import { isPlainObject } from '../util/objects';
import { jsonLengthProblem, numberProblem, stringProblem, textLengthProblem, type ValueLimits, type ValueProblem } from './value-rules';

/** The normalised value, or what is wrong with it (and the configured limit it exceeds, if any). */
export type Checked = { value: unknown } | ValueProblem;

const ok = (value: unknown): Checked => ({ value });
const fail = (error: string): Checked => ({ error });

/* HTML5's e-mail grammar, but the domain needs at least one dot. */
const EMAIL_RE =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const PHONE_RE = /^\+?[0-9\s().-]+$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_RE = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;
const DATETIME_RE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * text, textarea, email, url, phone: a storable string within min_length and max_length (without
 * max_length: 255 characters, or limits.maxTextLength for textarea), in the type's format.
 */
export function checkString(field: FieldDefinition, value: unknown, limits: Pick<ValueLimits, 'maxTextLength'>): Checked {
  if (typeof value !== 'string') return fail('must be a string');
  const unstorable = stringProblem(value);
  if (unstorable) return fail(unstorable);
  const length = codePointCount(value);
  if (field.min_length !== undefined && length < field.min_length) return fail(`must be at least ${field.min_length} characters`);
  const tooLong = textLengthProblem(length, field, limits);
  if (tooLong) return tooLong;
  switch (field.type) {
    case 'email':
      return EMAIL_RE.test(value) ? ok(value) : fail('must be a valid email address');
    case 'url':
      return isHttpUrl(value) ? ok(value) : fail('must be a valid http or https URL');
    case 'phone': {
      const digits = value.replace(/\D/g, '').length;
      return PHONE_RE.test(value) && digits >= 4 ? ok(value) : fail('must be a valid phone number');
    }
    default:
      return ok(value);
  }
}

/** Characters as min_length / max_length count them: code points (the string is well-formed by now). */
function codePointCount(value: string): number {
  let n = value.length;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** number, currency, percent: a finite number (numeric strings are refused) within min / max and scale. */
export function checkNumber(field: FieldDefinition, value: unknown): Checked {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fail('must be a number');
  const inexact = numberProblem(value);
  if (inexact) return fail(inexact);
  if (field.min !== undefined && value < field.min) return fail(`must be at least ${field.min}`);
  if (field.max !== undefined && value > field.max) return fail(`must be at most ${field.max}`);
  if (field.scale !== undefined && decimalPlaces(value) > field.scale) {
    return fail(field.scale === 0 ? 'must be a whole number' : `must have at most ${field.scale} decimal places`);
  }
  return ok(value);
}

/** Digits after the decimal point of a number's shortest representation (1.5e-7 → 8). */
export function decimalPlaces(n: number): number {
  const [mantissa, exp] = String(Math.abs(n)).split('e');
  const fraction = mantissa.split('.')[1] ?? '';
  return Math.max(0, fraction.length - (exp ? Number(exp) : 0));
}

export function checkBoolean(value: unknown): Checked {
  return typeof value === 'boolean' ? ok(value) : fail('must be true or false');
}

function isCalendarDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[m - 1];
}

/** date: exactly 'YYYY-MM-DD', a real calendar date. */
export function checkDate(value: unknown): Checked {
  const m = typeof value === 'string' ? DATE_RE.exec(value) : null;
  if (!m || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) return fail('must be a valid date (YYYY-MM-DD)');
  return ok(value);
}

function validClock(h: string, mi: string, s: string | undefined): boolean {
  return Number(h) <= 23 && Number(mi) <= 59 && (s === undefined || Number(s) <= 59);
}

/**
 * datetime: an ISO 8601 date and time (a space may stand for the 'T'; no zone means UTC) or a
 * Date; normalised to `toISOString()` form.
 */
export function checkDateTime(value: unknown): Checked {
  const message = 'must be a valid ISO 8601 date and time';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? fail(message) : ok(value.toISOString());
  const m = typeof value === 'string' ? DATETIME_RE.exec(value) : null;
  if (!m) return fail(message);
  const [, date, hh, mi, ss, frac, zone] = m;
  const [y, mo, d] = date.split('-').map(Number);
  if (!isCalendarDate(y, mo, d) || !validClock(hh, mi, ss)) return fail(message);
  let tz = zone ? zone.toUpperCase() : 'Z';
  if (tz !== 'Z') {
    const digits = tz.slice(1).replace(':', '').padEnd(4, '0');
    if (Number(digits.slice(0, 2)) > 23 || Number(digits.slice(2)) > 59) return fail(message);
    tz = `${tz[0]}${digits.slice(0, 2)}:${digits.slice(2)}`;
  }
  const ms = (frac ?? '').slice(0, 3).padEnd(3, '0');
  const parsed = new Date(`${date}T${hh}:${mi}:${ss ?? '00'}.${ms}${tz}`);
  return Number.isNaN(parsed.getTime()) ? fail(message) : ok(parsed.toISOString());
}

/** time: 'HH:MM', 'HH:MM:SS' or 'HH:MM:SS.sss' → 'HH:MM:SS' ('.sss' kept when not zero). */
export function checkTime(value: unknown): Checked {
  const m = typeof value === 'string' ? TIME_RE.exec(value) : null;
  if (!m || !validClock(m[1], m[2], m[3])) return fail('must be a valid time (HH:MM or HH:MM:SS)');
  const base = `${m[1]}:${m[2]}:${m[3] ?? '00'}`;
  const ms = (m[4] ?? '').padEnd(3, '0');
  return ok(Number(ms) > 0 ? `${base}.${ms}` : base);
}

/** select: one of the options' values (any storable string within maxTextLength when the field declares no options). */
export function checkSelect(field: FieldDefinition, value: unknown, limits: Pick<ValueLimits, 'maxTextLength'>): Checked {
  const values = (field.options ?? []).map((o) => o.value);
  if (typeof value !== 'string') return fail(values.length ? `must be one of: ${values.join(', ')}` : 'must be a string');
  if (values.length) return values.includes(value) ? ok(value) : fail(`must be one of: ${values.join(', ')}`);
  return checkString(field, value, limits);
}

/** lookup, master_detail: a record id; whether the record exists is the engine's business. */
export function checkReference(value: unknown): Checked {
  if (typeof value !== 'string' || value.trim() === '') return fail('must be a record id (a non-empty string)');
  return checkId(value);
}

/** A record id: a storable string of at most 255 characters (the id column's width everywhere). */
export function checkId(value: string): Checked {
  if (value.length > 255) return fail('must be a record id of at most 255 characters');
  const unstorable = stringProblem(value);
  return unstorable ? fail(unstorable) : ok(value);
}

/**
 * True for values JSON represents faithfully: null, booleans, finite numbers, strings, plain arrays
 * and objects. Recursive: call it on values whose depth is known to be bounded (treeProblem).
 */
export function isJsonValue(v: unknown, seen: Set<object> = new Set()): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v !== 'object' || seen.has(v)) return false;
  if (!Array.isArray(v) && !isPlainObject(v)) return false;
  seen.add(v);
  const items = Array.isArray(v) ? v : Object.values(v);
  const okAll = items.every((item) => isJsonValue(item, seen));
  seen.delete(v);
  return okAll;
}

/** object: a plain JSON object (not an array), within maxJsonLength as JSON text. */
export function checkObject(value: unknown, limits: Pick<ValueLimits, 'maxJsonLength'>): Checked {
  if (!isPlainObject(value)) return fail('must be an object');
  if (!isJsonValue(value)) return fail('must contain only JSON values');
  return jsonLengthProblem(value, limits) ?? ok(value);
}

/** json: any JSON-serialisable value, within maxJsonLength as JSON text. */
export function checkJson(value: unknown, limits: Pick<ValueLimits, 'maxJsonLength'>): Checked {
  if (!isJsonValue(value)) return fail('must be a JSON value');
  return jsonLengthProblem(value, limits) ?? ok(value);
}
