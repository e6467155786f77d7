/**
 * A plugin's own bookkeeping table (the files plugin's file records, the events plugin's outbox and
 * deliveries) as an ObjectDefinition a datasource can sync: a text `id` key, the given fields and
 * indexes, and nothing else — no actions, rules or hooks. It is never registered as an object, so
 * no protocol serves it and no permission applies to it.
 */
import type { FieldDefinition, FieldType, ObjectDefinition } from './types';

/** A field of a storage table (its label is its name). */
export function storageField(name: string, type: FieldType, extra: Partial<FieldDefinition> = {}): FieldDefinition {
  return { name, type, label: name, ...extra };
}

/** A storage table kept in `datasource`: `id` (text) and `fields`, with `indexes`. */
export function storageTable(
  name: string,
  datasource: string,
  fields: FieldDefinition[],
  indexes: ObjectDefinition['indexes'] = [],
): ObjectDefinition {
  const all = [storageField('id', 'text', { system: true, readonly: true }), ...fields];
  return {
    name,
    label: name,
    datasource,
    fields: Object.fromEntries(all.map((f) => [f.name, f])),
    indexes,
    actions: {},
    rules: [],
    hooks: [],
  };
}
