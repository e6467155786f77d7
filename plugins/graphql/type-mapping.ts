/**
 * Field types → GraphQL types, by the spec's type mapping (docs/spec.md, "Type mapping"). Pure.
 *
 * - json, object, file and image fields are `String` holding the value as JSON text, both ways
 *   (the protocol layer's `isJsonTextField`, `toJsonText`, `decodeJsonFields`).
 * - A `multiple` field (a select or lookup holding several values) is a list of its type.
 * - A required field is non-null in the output type; the input type has every field optional.
 * - Types the spec's table does not name (formula) are `String`.
 */
import type { FieldDefinition, FieldType } from '../../kernel';
import { isJsonTextField } from '../../kernel/protocol';

export type ScalarName = 'String' | 'Float' | 'Int' | 'Boolean';

const SCALARS: Partial<Record<FieldType, ScalarName>> = {
  number: 'Float',
  currency: 'Float',
  percent: 'Float',
  auto_number: 'Int',
  boolean: 'Boolean',
};

/** Field types no caller writes: left out of the input type. */
const NOT_WRITTEN: ReadonlySet<FieldType> = new Set<FieldType>(['auto_number', 'formula']);

/** The GraphQL type of a field, without the non-null mark. */
export function baseType(field: FieldDefinition): string {
  const scalar = SCALARS[field.type] ?? 'String';
  // A JSON-holding field is one JSON text, whatever it holds.
  return field.multiple && !isJsonTextField(field) ? `[${scalar}]` : scalar;
}

/** The type of the field in the output type: `id` is `String!`, required fields are non-null. */
export function outputType(field: FieldDefinition): string {
  if (field.name === 'id') return 'String!';
  return field.required ? `${baseType(field)}!` : baseType(field);
}

/** Whether the field belongs in the input type (callers may write it). */
export function isInputField(field: FieldDefinition): boolean {
  return !field.system && !NOT_WRITTEN.has(field.type);
}
