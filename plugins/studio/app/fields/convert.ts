/**
 * Field values between the API and the form. A form value is what its input holds while it is
 * edited — numbers as typed text, JSON as text, datetimes as local 'YYYY-MM-DDTHH:MM' — so that a
 * value not yet valid stays as typed; `fromForm` turns it back into the API's value (or an error).
 */
import type { FieldDescriptor, ParamDescriptor } from '../types';

export type FormValues = Record<string, unknown>;

/** Fields that are typed in as text of some kind. */
export const TEXT_INPUT_TYPES: Record<string, string> = { text: 'text', email: 'email', url: 'url', phone: 'tel' };
export const NUMBER_TYPES = new Set(['number', 'currency', 'percent']);
export const LOOKUP_TYPES = new Set(['lookup', 'master_detail']);
export const FILE_TYPES = new Set(['file', 'image']);
export const JSON_TYPES = new Set(['json', 'object']);

/** A system or service-assigned field: never typed in. */
export function isSystemField(field: FieldDescriptor): boolean {
  return Boolean(field.system || field.readonly || field.type === 'auto_number' || field.type === 'formula');
}

/** A value as text: strings as they are, anything else as JSON. */
export function str(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return value.toString();
  return JSON.stringify(value);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** ISO timestamp → the local 'YYYY-MM-DDTHH:MM[:SS]' a datetime-local input holds. */
export function isoToLocal(value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  const date = new Date(str(value));
  if (Number.isNaN(date.getTime())) return str(value);
  const base = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
  return date.getSeconds() ? `${base}:${pad(date.getSeconds())}` : base;
}

/** A datetime-local value (local time) → ISO 8601 in UTC. */
export function localToIso(value: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error('Enter a date and time');
  return date.toISOString();
}

/** The form value of an API value. */
export function toForm(field: FieldDescriptor, value: unknown): unknown {
  const empty = value === null || value === undefined;
  if (field.type === 'boolean') return value === true || value === 'true';
  if (field.type === 'select' && field.multiple) {
    if (Array.isArray(value)) return value.map(str);
    return empty || value === '' ? [] : str(value).split(',');
  }
  if (FILE_TYPES.has(field.type)) return empty ? (field.multiple ? [] : null) : value;
  if (JSON_TYPES.has(field.type)) {
    if (empty) return '';
    return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  }
  if (field.type === 'datetime') return isoToLocal(value);
  if (field.type === 'date') return empty ? '' : str(value).slice(0, 10);
  if (LOOKUP_TYPES.has(field.type)) {
    if (empty || value === '') return null;
    return typeof value === 'object' ? str((value as { id?: unknown }).id) : str(value);
  }
  return empty ? '' : str(value);
}

/** The API value of a form value; throws an Error whose message is shown beside the field. */
export function fromForm(field: FieldDescriptor, value: unknown): unknown {
  if (field.type === 'boolean') return Boolean(value);
  if (field.type === 'select' && field.multiple) return Array.isArray(value) ? value : [];
  if (FILE_TYPES.has(field.type)) {
    if (field.multiple) return Array.isArray(value) ? value : [];
    return value ?? null;
  }
  if (LOOKUP_TYPES.has(field.type)) return value ? value : null;
  const text = str(value);
  if (text.trim() === '') return null;
  if (NUMBER_TYPES.has(field.type) || field.type === 'auto_number') {
    const n = Number(text);
    if (!Number.isFinite(n)) throw new Error('Enter a number');
    return n;
  }
  if (JSON_TYPES.has(field.type)) {
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new Error(`Not valid JSON: ${(err as Error).message}`, { cause: err });
    }
  }
  if (field.type === 'datetime') return localToIso(text);
  if (field.type === 'time') return /^\d\d:\d\d$/.test(text) ? `${text}:00` : text;
  return text;
}

/** Whether a form value is empty (a required field then needs one). */
export function isEmptyForm(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  return Array.isArray(value) && value.length === 0;
}

export function sameForm(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** An action's param as a field, for the same inputs. */
export function paramField(name: string, param: ParamDescriptor): FieldDescriptor {
  return {
    name,
    type: param.type,
    label: param.label || name,
    required: Boolean(param.required),
    unique: false,
    multiple: Boolean(param.multiple),
    options: param.options,
    option_labels: param.option_labels,
    reference_to: param.reference_to,
    min: param.min,
    max: param.max,
  };
}
