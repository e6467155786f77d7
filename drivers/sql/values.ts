/**
 * Field values between the engine's JS form and their column form, per field type. The JS form is
 * the same on every engine: numbers, booleans, JSON values, dates 'YYYY-MM-DD', datetimes as
 * `toISOString()` strings, times 'HH:MM:SS' ('.sss' when not zero). What differs per engine
 * (datetime literals on MySQL, booleans on SQLite) comes from the dialect.
 */
import { isDecimalField, type FieldDefinition } from '../../kernel';
import type { SqlDialect } from './dialects/base';

/**
 * How a field is stored: each family has one column type per dialect (`decimal`'s carries the
 * field's precision and scale, see decimal.ts).
 */
export type StorageFamily = 'text' | 'number' | 'decimal' | 'integer' | 'boolean' | 'date' | 'datetime' | 'time' | 'json';

const FAMILY: Record<FieldDefinition['type'], StorageFamily> = {
  text: 'text',
  textarea: 'text',
  email: 'text',
  url: 'text',
  phone: 'text',
  formula: 'text',
  select: 'text',
  lookup: 'text',
  master_detail: 'text',
  number: 'number',
  currency: 'number',
  percent: 'number',
  auto_number: 'integer',
  boolean: 'boolean',
  date: 'date',
  datetime: 'datetime',
  time: 'time',
  file: 'json',
  image: 'json',
  object: 'json',
  json: 'json',
};

/** A `multiple` field (any type but json, auto_number and formula) holds a JSON array. */
export function isMultiple(field: FieldDefinition | undefined): boolean {
  return Boolean(field?.multiple) && field!.type !== 'json' && field!.type !== 'auto_number' && field!.type !== 'formula';
}

export function storageFamily(field: FieldDefinition | undefined): StorageFamily {
  if (!field) return 'text';
  if (isMultiple(field)) return 'json';
  if (isDecimalField(field)) return 'decimal';
  return FAMILY[field.type] ?? 'text';
}

/**
 * A scalar as text: a string as it is; a number, bigint, boolean or date (what databases return,
 * what filters carry once the engine has checked them) by its own toString.
 */
export function scalarText(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}

/** A value as bound into SQL for this field (writes and filter values alike). */
export function encodeValue(dialect: SqlDialect, family: StorageFamily, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (family) {
    case 'json':
      return JSON.stringify(value);
    case 'boolean':
      return dialect.encodeBoolean(Boolean(value));
    case 'datetime':
      return dialect.encodeDateTime(toIso(value));
    case 'text':
      return typeof value === 'object' ? JSON.stringify(value) : scalarText(value);
    default:
      return value;
  }
}

/** A column value as read back, in the engine's JS form. */
export function decodeValue(family: StorageFamily, raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  switch (family) {
    case 'json':
      return typeof raw === 'string' ? JSON.parse(raw) : Buffer.isBuffer(raw) ? JSON.parse(raw.toString('utf8')) : raw;
    case 'boolean':
      return raw === true || raw === 1 || raw === '1' || raw === 't' || raw === 'true';
    case 'number':
    case 'decimal':
    case 'integer':
      // PostgreSQL's numeric and exact sums come back as decimal strings.
      return typeof raw === 'number' ? raw : Number(raw);
    case 'date':
      return raw instanceof Date ? dateOnly(raw) : scalarText(raw).slice(0, 10);
    case 'datetime':
      return toIso(raw);
    case 'time':
      return normalizeTime(scalarText(raw));
    default:
      return Buffer.isBuffer(raw) ? raw.toString('utf8') : scalarText(raw);
  }
}

/** Dates, ISO strings with any zone, and zone-less 'YYYY-MM-DD HH:MM:SS.sss' (UTC) → toISOString form. */
export function toIso(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  const text = String(value);
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(text)) return text;
  const zoned = /(Z|[+-]\d{2}(:?\d{2})?)$/i.test(text) && text.length > 10;
  const parsed = new Date(zoned ? text.replace(' ', 'T') : `${text.replace(' ', 'T')}${text.length > 10 ? 'Z' : 'T00:00:00Z'}`);
  return Number.isNaN(parsed.getTime()) ? text : parsed.toISOString();
}

function dateOnly(d: Date): string {
  // A DATE read as a Date object is local midnight of that day (drivers' default parsers).
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** 'HH:MM:SS[.fff…]' → 'HH:MM:SS', with '.sss' when the milliseconds are not zero. */
export function normalizeTime(text: string): string {
  const m = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$/.exec(text.trim());
  if (!m) return text;
  const base = `${m[1]}:${m[2]}:${m[3] ?? '00'}`;
  const ms = (m[4] ?? '').slice(0, 3).padEnd(3, '0');
  return Number(ms) > 0 ? `${base}.${ms}` : base;
}

/** 'YYYY-MM-DDTHH:MM:SS.sssZ' → 'YYYY-MM-DD HH:MM:SS.sss' (UTC), for DATETIME columns without a zone. */
export function isoToZoneless(iso: string): string {
  return iso.replace('T', ' ').replace(/Z$/, '');
}
