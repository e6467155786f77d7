/**
 * Records ↔ OData entities. Out: JSON-valued fields (file, image, object, json) become JSON text,
 * an expanded relation moves to its navigation property (its foreign key stays under the field
 * name), and each entity gets `@odata.etag`. In: control information is dropped, `<nav>@odata.bind`
 * becomes the foreign key, JSON text is parsed back for the JSON-valued fields. The engine never
 * sees OData names. Pure: no I/O.
 */
import { ObjectQLError, type DataRecord, type ExpandOptions, type ObjectDefinition } from '../../kernel';
import { decodeJsonFields, etagOf, isJsonTextField, toJsonText } from '../../kernel/protocol';
import type { ODataModel, Relation } from './model';
import { parsePath } from './resource-path';

/** How the records of one level of an expand come back: per relation field expanded. */
export type ExpandPlan = Map<string, ExpandStep>;

export interface ExpandStep {
  relation: Relation;
  /** Expanded by its navigation property: the entity goes there and the foreign key stays. */
  byNav: boolean;
  /** Whether the foreign key property belongs in the entity (no $select, or selected). */
  keepKey: boolean;
  target: ObjectDefinition;
  plan: ExpandPlan;
  /** Properties the engine adds to the related records without a $select asking for them (a one-to-many relation's foreign key). */
  strip?: string[];
}

/**
 * The parser's expand (keyed by navigation property, or by relation field: both are accepted)
 * → the engine's (keyed by relation field) and the plan to shape the result. Unknown names are
 * passed on for the engine to report.
 */
export function translateExpand(
  model: ODataModel,
  def: ObjectDefinition,
  expand: Record<string, ExpandOptions>,
  fields: readonly string[] | null | undefined,
): { expand: Record<string, ExpandOptions>; plan: ExpandPlan } {
  const out: Record<string, ExpandOptions> = {};
  const plan: ExpandPlan = new Map();
  const relations = model.relations(def);
  const collections = model.collections(def);
  for (const [name, options] of Object.entries(expand)) {
    const relation =
      relations.find((r) => r.nav === name) ?? relations.find((r) => r.field === name) ?? collections.find((r) => r.nav === name);
    const target = relation && model.source.object(relation.target);
    if (!relation || !target) {
      out[name] = options;
      continue;
    }
    if (plan.has(relation.field)) {
      const message = `'${relation.nav}' is expanded twice (also as '${relation.field}'); expand it once`;
      throw new ObjectQLError('INVALID_REQUEST', message, [{ code: 'INVALID_REQUEST', message, target: '$expand' }]);
    }
    const selected = options?.fields && withoutNavigations(model, target, options.fields);
    const nested = options?.expand ? translateExpand(model, target, options.expand, selected) : undefined;
    // A relation field's expand goes by the field, a one-to-many one by its name (the kernel's relation names).
    const key = relation.reverse ? relation.nav : relation.field;
    out[key] = { ...options, ...(selected ? { fields: selected } : {}), ...(nested ? { expand: nested.expand } : {}) };
    const byNav = name === relation.nav;
    plan.set(key, {
      relation,
      byNav,
      keepKey: byNav && !relation.reverse && (!fields || fields.includes(relation.field)),
      target,
      plan: nested?.plan ?? new Map<string, ExpandStep>(),
      ...(relation.reverse && selected && !selected.includes(relation.field) ? { strip: [relation.field] } : {}),
    });
  }
  return { expand: out, plan };
}

/** $select names without the navigation properties (selecting one means nothing to the engine; expanding it is what brings it). */
export function withoutNavigations(model: ODataModel, def: ObjectDefinition, fields: readonly string[]): string[] {
  const navs = new Set([...model.relations(def), ...model.collections(def)].map((r) => r.nav));
  return fields.filter((f) => !navs.has(f));
}

export interface ShapeOptions {
  etags: boolean;
  /** Fields fetched only to compute the ETag, removed from the entity. */
  strip?: readonly string[];
}

/** A record of `def` as an OData entity (annotations first). */
export function toEntity(record: DataRecord, def: ObjectDefinition, plan: ExpandPlan, options: ShapeOptions): DataRecord {
  const etag = options.etags ? etagOf(record) : undefined;
  const entity: DataRecord = etag ? { '@odata.etag': etag } : {};
  for (const [key, value] of Object.entries(record)) {
    if (options.strip?.includes(key) && !plan.has(key)) continue;
    const step = plan.get(key);
    if (step?.relation.reverse) {
      // The engine's `<relation>@count` (expand option count) is OData's `<nav>@odata.count`, just before the collection.
      const count = record[`${key}@count`];
      if (count !== undefined) entity[`${step.relation.nav}@odata.count`] = count;
    } else if (key.endsWith('@count') && plan.get(key.slice(0, -'@count'.length))?.relation.reverse) continue;
    if (step) {
      const nested = { etags: options.etags, strip: step.strip };
      const shaped = Array.isArray(value)
        ? value.map((v) => toEntity(v as DataRecord, step.target, step.plan, nested))
        : value && typeof value === 'object'
          ? toEntity(value as DataRecord, step.target, step.plan, nested)
          : null;
      if (!step.byNav) {
        entity[key] = shaped;
        continue;
      }
      if (step.keepKey)
        entity[key] = Array.isArray(value)
          ? value.map((v) => (v as DataRecord).id)
          : value && typeof value === 'object'
            ? (value as DataRecord).id
            : null;
      entity[step.relation.nav] = shaped;
      continue;
    }
    entity[key] = isJsonTextField(def.fields[key]) ? toJsonText(value) : value;
  }
  return entity;
}

/**
 * A request body → the record data for the engine. `view` is the object as the caller sees it
 * (model.view): a field they may not read is passed on untouched, for the engine to reject as unknown.
 */
export function fromEntity(body: unknown, def: ObjectDefinition, view: ObjectDefinition, model: ODataModel, base: string): DataRecord {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ObjectQLError(
      'INVALID_REQUEST',
      `The request body must be a JSON object of ${def.name} properties, got ${body === undefined ? 'no body' : Array.isArray(body) ? 'an array' : JSON.stringify(body)}`,
    );
  }
  const data: DataRecord = {};
  const relations = model.relations(def).filter((r) => view.fields[r.field]);
  for (const [key, value] of Object.entries(body)) {
    if (key.startsWith('@')) continue;
    const at = key.indexOf('@');
    if (at > 0) {
      const name = key.slice(0, at);
      if (key.slice(at) !== '@odata.bind') continue;
      const relation = relations.find((r) => r.nav === name || r.field === name);
      if (!relation) throw invalidBind(key, `'${name}' is not a navigation property of ${def.name}`);
      data[relation.field] = relation.multiple
        ? listOf(value, key).map((v) => boundId(v, relation, key, base))
        : boundId(value, relation, key, base);
      continue;
    }
    const nav = relations.find((r) => r.nav === key);
    if (nav) {
      const message = `Deep insert and update are not supported: set '${nav.field}' to the id, or '${nav.nav}@odata.bind' to ${nav.target}('<id>')`;
      throw new ObjectQLError('INVALID_REQUEST', message, [{ code: 'INVALID_REQUEST', message, target: key }]);
    }
    data[key] = value;
  }
  return decodeJsonFields(data, view.fields);
}

function listOf(value: unknown, key: string): unknown[] {
  if (!Array.isArray(value)) throw invalidBind(key, 'must be an array of entity references (the navigation property is a collection)');
  return value;
}

/** `Set('id')`, `/odata/Set('id')` or an absolute URL of it → 'id'; the set must be the relation's target. */
function boundId(value: unknown, relation: Relation, key: string, base: string): string {
  if (typeof value !== 'string') throw invalidBind(key, `must be an entity reference such as "${relation.target}('<id>')"`);
  let path = value;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    try {
      path = new URL(path).pathname;
    } catch {
      throw invalidBind(key, `'${value}' is not a valid URL`);
    }
  }
  if (path.startsWith(`${base}/`)) path = path.slice(base.length);
  let resource;
  try {
    resource = parsePath(path);
  } catch {
    throw invalidBind(key, `'${value}' is not an entity reference such as "${relation.target}('<id>')"`);
  }
  if (resource.kind !== 'entity' || resource.set !== relation.target)
    throw invalidBind(key, `must reference a ${relation.target} entity such as "${relation.target}('<id>')", got '${value}'`);
  return resource.key;
}

function invalidBind(key: string, what: string): ObjectQLError {
  const message = `${key} ${what}`;
  return new ObjectQLError('INVALID_REQUEST', message, [{ code: 'INVALID_REQUEST', message, target: key }]);
}
