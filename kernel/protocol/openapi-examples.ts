/**
 * Examples of the OpenAPI document, made per object from that object's own fields, so that every
 * example names fields the object has and values its fields accept. File and image fields never get
 * one (an attachment must name a real upload). A record id (a required lookup, a path's id) is that
 * of the first record of the object's data file when there is one, since the seeding loads it into
 * empty storage; else a placeholder naming the object, to be replaced.
 */
import type { FieldDefinition, ObjectDefinition } from '../metadata/types';
import { ATTACHMENT_TYPES, NUMERIC_TYPES, RELATION_TYPES } from '../metadata/types';

/** The id of a record of `object` that examples may name, or undefined when none is known. */
export type ExampleIds = (object: string) => string | undefined;

/** Example ids from the objects' data files (`<object>.data.yml`): the first record's id of each. */
export function dataFileIds(registry: { initialData(object: string): Record<string, unknown>[] }): ExampleIds {
  return (object) => {
    const id = registry.initialData(object)[0]?.id;
    return typeof id === 'string' && id ? id : undefined;
  };
}

/** A record id of `object` for an example: a known one, else the placeholder `<object id>`. */
export function exampleId(object: string, ids?: ExampleIds): string {
  return ids?.(object) ?? `<${object} id>`;
}

const writable = (f: FieldDefinition) => !f.system && !f.readonly && f.type !== 'auto_number' && f.type !== 'formula';

/** A value the field accepts, or undefined when none can be given without knowing the data (attachments, lookups, formulas). */
export function exampleValue(field: FieldDefinition): unknown {
  const one = scalarExample(field);
  if (one === undefined) return undefined;
  return field.multiple ? [one] : one;
}

function scalarExample(field: FieldDefinition): unknown {
  if (field.defaultValue !== undefined && field.defaultValue !== null && !field.multiple) return field.defaultValue;
  switch (field.type) {
    case 'email':
      return 'someone@example.org';
    case 'url':
      return 'https://example.org';
    case 'phone':
      return '+1 555 0100';
    case 'number':
    case 'currency':
    case 'percent': {
      const low = field.min ?? 0;
      return field.max !== undefined && field.max < low ? field.max : Math.max(low, Math.min(1, field.max ?? 1));
    }
    case 'boolean':
      return false;
    case 'date':
      return '2025-01-15';
    case 'datetime':
      return '2025-01-15T09:00:00.000Z';
    case 'time':
      return '09:00:00';
    case 'select':
      return field.options?.[0]?.value ?? 'value';
    case 'object':
      return {};
    case 'text':
    case 'textarea': {
      const text = `Example ${field.label || field.name}`.slice(0, field.max_length ?? Infinity);
      return text.padEnd(field.min_length ?? 0, 'x');
    }
    default:
      return undefined; // lookups, attachments, json, formulas, auto numbers
  }
}

/** Fields some permission entry denies (reading or editing) to the callers it matches. */
export function deniedFields(def: ObjectDefinition, right: 'allow_read' | 'allow_edit'): Set<string> {
  const out = new Set<string>();
  for (const entry of def.permissions ?? []) {
    for (const [name, rule] of Object.entries(entry.fields ?? {})) if (rule[right] === false) out.add(name);
  }
  return out;
}

/** A create body: the required fields without a default (a required lookup: an example id, a required attachment: none). */
export function createExample(def: ObjectDefinition, ids?: ExampleIds): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of Object.values(def.fields)) {
    if (!writable(field) || !field.required || field.defaultValue !== undefined) continue;
    if (RELATION_TYPES.has(field.type)) {
      const id = exampleId(String(field.reference_to), ids);
      out[field.name] = field.multiple ? [id] : id;
    } else if (ATTACHMENT_TYPES.has(field.type)) continue;
    else out[field.name] = exampleValue(field) ?? {};
  }
  return out;
}

/** An update body: one text-like field changed (one not ruled by a state machine), or nothing. */
export function updateExample(def: ObjectDefinition): Record<string, unknown> {
  const ruled = new Set(def.rules.flatMap((r) => ('field' in r ? [r.field] : [])));
  const skip = new Set([...deniedFields(def, 'allow_read'), ...deniedFields(def, 'allow_edit')]);
  const candidates = Object.values(def.fields).filter(
    (f) => writable(f) && !ruled.has(f.name) && !skip.has(f.name) && exampleValue(f) !== undefined && f.type !== 'object',
  );
  const field = candidates.find((f) => f.type === 'text' && !f.unique) ?? candidates.find((f) => !f.unique);
  return field ? { [field.name]: exampleValue(field) } : {};
}

/** Examples of the list options (query parameters) for one object; a key is absent when the object offers nothing fitting. */
export interface ListExamples {
  filter: string;
  sort: string;
  fields: string;
  expand?: string;
  groupBy?: string;
  aggregate: string;
}

export function listExamples(def: ObjectDefinition, relationNames: readonly string[]): ListExamples {
  const skip = deniedFields(def, 'allow_read');
  const readable = Object.values(def.fields).filter((f) => !skip.has(f.name));
  const own = readable.filter((f) => !f.system);
  const groupable = own.find((f) => (f.type === 'select' || f.type === 'boolean') && !f.multiple);
  const numeric = own.find((f) => NUMERIC_TYPES.has(f.type) && f.type !== 'auto_number' && !f.multiple);
  const filterField = groupable ?? own.find((f) => !f.multiple && scalarExample(f) !== undefined && f.type !== 'object');
  const filter = filterField ? [[filterField.name, '=', scalarExample(filterField)]] : [['id', '=', 'some-id']];
  const sorted = own.find((f) => (NUMERIC_TYPES.has(f.type) || f.type === 'date' || f.type === 'datetime') && !f.multiple);
  const aggregate: unknown[] = [{ func: 'count', alias: 'count' }];
  if (numeric) aggregate.push({ func: 'sum', field: numeric.name, alias: `total_${numeric.name}` });
  return {
    filter: JSON.stringify(filter),
    sort: sorted ? `-${sorted.name}` : '-created_at',
    fields: ['id', ...own.slice(0, 2).map((f) => f.name)].join(','),
    ...(relationNames.length ? { expand: relationNames[0] } : {}),
    ...(groupable ? { groupBy: groupable.name } : {}),
    aggregate: JSON.stringify(aggregate),
  };
}
