/**
 * Value validation of record data against an object's fields: type checks and normalisation of
 * each value, read-only and unknown fields, required fields, and defaults. Pure functions; the
 * engine calls them on the final data (after before-hooks) and turns errors into VALIDATION_ERROR.
 */
import type { FieldDefinition, ObjectDefinition } from '../metadata/types';
import { checkAttachment } from './attachment-value';
import {
  checkBoolean,
  checkDate,
  checkDateTime,
  checkJson,
  checkNumber,
  checkObject,
  checkReference,
  checkSelect,
  checkString,
  checkTime,
  type Checked,
} from './scalar-values';
import { DEFAULT_VALUE_LIMITS, treeProblem, type ValueLimits, type ValueProblem } from './value-rules';

export type { Checked };

function checkOne(field: FieldDefinition, value: unknown, limits: ValueLimits): Checked {
  switch (field.type) {
    case 'text':
    case 'textarea':
    case 'email':
    case 'url':
    case 'phone':
      return checkString(field, value, limits);
    case 'number':
    case 'currency':
    case 'percent':
      return checkNumber(field, value);
    case 'auto_number':
      return { error: 'is read-only (generated automatically)' };
    case 'formula':
      return { error: 'is read-only (computed)' };
    case 'boolean':
      return checkBoolean(value);
    case 'date':
      return checkDate(value);
    case 'datetime':
      return checkDateTime(value);
    case 'time':
      return checkTime(value);
    case 'select':
      return checkSelect(field, value, limits);
    case 'lookup':
    case 'master_detail':
      return checkReference(value);
    case 'file':
    case 'image':
      return checkAttachment(field, value);
    case 'object':
      return checkObject(value, limits);
    case 'json':
      return checkJson(value, limits);
    default:
      return { error: `has an unsupported field type '${String(field.type)}'` };
  }
}

/**
 * Checks and normalises one non-null value for a field. With `multiple: true` (any type but json,
 * whose value may itself be an array) the value must be an array and each element is checked.
 * First, without recursion, what no engine stores alike (value-rules.ts): NUL characters, unpaired
 * surrogates, nesting deeper than limits.maxJsonValueDepth.
 */
export function normalizeFieldValue(field: FieldDefinition, value: unknown, limits: ValueLimits = DEFAULT_VALUE_LIMITS): Checked {
  const unstorable = treeProblem(value, limits);
  if (unstorable) return unstorable;
  if (!field.multiple || field.type === 'json' || field.type === 'auto_number' || field.type === 'formula') {
    return checkOne(field, value, limits);
  }
  if (!Array.isArray(value)) return { error: 'must be an array (the field allows multiple values)' };
  const out: unknown[] = [];
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (item === null || item === undefined) return { error: `item ${i + 1}: must not be null` };
    const r = checkOne(field, item, limits);
    if ('error' in r) return { ...r, error: `item ${i + 1}: ${r.error}` };
    out.push(r.value);
  }
  return { value: out };
}

/** Why callers may not write a field, or undefined when they may. */
export function readOnlyReason(field: FieldDefinition): string | undefined {
  if (field.system || field.readonly) return 'is read-only';
  if (field.type === 'auto_number') return 'is read-only (generated automatically)';
  if (field.type === 'formula') return 'is read-only (computed)';
  return undefined;
}

/** A value that stands for "no value": null, undefined, '' and, for a multiple field, []. */
export function isEmptyValue(field: FieldDefinition | undefined, value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  return Boolean(field?.multiple) && field?.type !== 'json' && Array.isArray(value) && value.length === 0;
}

/** Fields a create must fill: required, and neither maintained by the engine nor computed. */
function mustBeGiven(field: FieldDefinition): boolean {
  return Boolean(field.required) && !field.system && field.type !== 'auto_number' && field.type !== 'formula';
}

/**
 * Checks every key of `data` against the object's fields; returns the normalised copy of the
 * given keys ('' becomes null; a key set to undefined is dropped) and every error found, keyed by
 * field name, with the first configured limit a value exceeds. On create, required fields that
 * are missing or empty are errors too.
 */
export function checkRecordValues(
  object: ObjectDefinition,
  data: Record<string, unknown>,
  mode: 'create' | 'update',
  limits: ValueLimits = DEFAULT_VALUE_LIMITS,
): { data: Record<string, unknown>; errors: Record<string, string>; limit?: ValueProblem['limit'] } {
  const out: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  let limit: ValueProblem['limit'];
  for (const [key, value] of Object.entries(data)) {
    const field = Object.prototype.hasOwnProperty.call(object.fields, key) ? object.fields[key] : undefined;
    if (!field) {
      // Defined, not assigned: a '__proto__' key (own property of parsed JSON) must be reported
      // too, not swallowed by the prototype setter.
      Object.defineProperty(errors, key, { value: 'unknown field', enumerable: true, writable: true, configurable: true });
      continue;
    }
    if (value === undefined) continue;
    const readOnly = readOnlyReason(field);
    if (readOnly) {
      errors[key] = readOnly;
      continue;
    }
    if (isEmptyValue(field, value)) {
      if (field.required) errors[key] = 'is required';
      else out[key] = value === '' ? null : value;
      continue;
    }
    const r = normalizeFieldValue(field, value, limits);
    if ('error' in r) {
      errors[key] = r.error;
      limit ??= r.limit;
    } else out[key] = r.value;
  }
  if (mode === 'create') {
    for (const [name, field] of Object.entries(object.fields)) {
      if (mustBeGiven(field) && !(name in errors) && isEmptyValue(field, data[name])) errors[name] = 'is required';
    }
  }
  return { data: out, errors, ...(limit ? { limit } : {}) };
}

export interface DefaultSpecials {
  now: string;
  today: string;
  userId?: string;
}

const NO_VALUE = Symbol('no value');

function resolveSpecial(value: unknown, specials: DefaultSpecials): unknown {
  if (value === '$now') return specials.now;
  if (value === '$today') return specials.today;
  if (value === '$current_user') return specials.userId ?? NO_VALUE;
  return value;
}

/**
 * For a create: fields absent from `data` that declare a defaultValue get it. The special values
 * '$now', '$today' and '$current_user' (also inside an array default) are resolved; without a
 * user '$current_user' leaves the field absent. Object and array defaults are copied.
 */
export function applyDefaults(object: ObjectDefinition, data: Record<string, unknown>, specials: DefaultSpecials): Record<string, unknown> {
  const out: Record<string, unknown> = { ...data };
  for (const [name, field] of Object.entries(object.fields)) {
    if (field.system || field.defaultValue === undefined || out[name] !== undefined) continue;
    let value: unknown;
    if (Array.isArray(field.defaultValue)) {
      value = field.defaultValue.map((v) => resolveSpecial(v, specials)).filter((v) => v !== NO_VALUE);
    } else {
      value = resolveSpecial(field.defaultValue, specials);
    }
    if (value === NO_VALUE) continue;
    out[name] = value !== null && typeof value === 'object' ? structuredClone(value) : value;
  }
  return out;
}
