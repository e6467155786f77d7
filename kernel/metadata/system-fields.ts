/** The fields every record has, maintained by the engine: id first, the audit fields last. */
import type { FieldDefinition } from './types';

export function systemFieldsFirst(): FieldDefinition[] {
  return [{ name: 'id', type: 'text', label: 'ID', system: true, validations: [] }];
}

export function systemFieldsLast(): FieldDefinition[] {
  return [
    { name: 'created_at', type: 'datetime', label: 'Created At', system: true, validations: [] },
    { name: 'created_by', type: 'text', label: 'Created By', system: true, validations: [] },
    { name: 'updated_at', type: 'datetime', label: 'Updated At', system: true, validations: [] },
    { name: 'updated_by', type: 'text', label: 'Updated By', system: true, validations: [] },
  ];
}
