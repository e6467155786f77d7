/**
 * Values of JSON-holding fields (json, object, file, image) where a protocol has no JSON type:
 * GraphQL's String and OData's Edm.String carry them as JSON text, both ways. One codec, one message.
 */
import { validationError } from '../errors';
import { JSON_VALUE_TYPES, type FieldDefinition } from '../metadata/types';
import type { DataRecord } from '../engine/types';

/** Whether the field's values travel as JSON text. */
export function isJsonTextField(field: FieldDefinition | undefined): boolean {
  return field !== undefined && JSON_VALUE_TYPES.has(field.type);
}

/** A stored value as JSON text; null and undefined stay null. */
export function toJsonText(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** JSON text → the value it holds, or the problem (a message for `details.fields`). */
export function fromJsonText(field: FieldDefinition, text: string): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { problem: `must be JSON text (a ${field.type} value travels as JSON in a string)` };
  }
}

/**
 * Field values from a protocol: the JSON text of each JSON-holding field among `fields` parsed.
 * Text that is not JSON is a VALIDATION_ERROR naming every such field; other values pass unchanged.
 */
export function decodeJsonFields(data: DataRecord, fields: Readonly<Record<string, FieldDefinition>>): DataRecord {
  const out: DataRecord = { ...data };
  const problems: Record<string, string> = {};
  for (const [name, value] of Object.entries(data)) {
    const field = fields[name];
    if (!field || !isJsonTextField(field) || typeof value !== 'string') continue;
    const decoded = fromJsonText(field, value);
    if ('problem' in decoded) problems[name] = decoded.problem;
    else out[name] = decoded.value;
  }
  if (Object.keys(problems).length) throw validationError(problems);
  return out;
}
