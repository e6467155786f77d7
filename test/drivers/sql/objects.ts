import type { FieldDefinition, FieldType, IndexDefinition, ObjectDefinition } from '../../../kernel/metadata/types';

export function field(name: string, type: FieldType, extra: Partial<FieldDefinition> = {}): FieldDefinition {
  return { name, type, label: name, ...extra };
}

/** An object definition as the registry makes it: the given fields plus the system fields. */
export function objectDef(name: string, fields: FieldDefinition[], indexes: IndexDefinition[] = []): ObjectDefinition {
  const system = [
    field('id', 'text', { system: true, readonly: true }),
    field('created_at', 'datetime', { system: true, readonly: true }),
    field('created_by', 'text', { system: true, readonly: true }),
    field('updated_at', 'datetime', { system: true, readonly: true }),
    field('updated_by', 'text', { system: true, readonly: true }),
  ];
  const all = [...fields, ...system];
  return {
    name,
    label: name,
    datasource: 'default',
    fields: Object.fromEntries(all.map((f) => [f.name, f])),
    indexes,
    actions: {},
    rules: [],
    hooks: [],
  };
}
