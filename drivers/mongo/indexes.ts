/**
 * The indexes an object's metadata asks for, and how to bring a collection's indexes in line.
 *
 * - `index: true` on a field → an ascending index `oql_ix_<field>`.
 * - `unique: true` on a field → a unique index `oql_uq_<field>`; an `indexes` entry → `oql_idx_<name>`.
 * - A unique index is partial: it holds only documents whose fields all have a value, because the
 *   contract says a null (or missing) value never conflicts, where a plain MongoDB unique index
 *   counts null as a value. The filter is a range that every value of the field's type falls in
 *   (`{$gte: ''}` for text, dates and times, which are stored as strings; `{$gte: -Infinity}` for
 *   numbers; `{$gte: false}` for booleans): MongoDB compares only values of one type in a range,
 *   so null and missing fall outside, and the query planner can still use the index for an
 *   equality or range query on that type (a `$type` filter would keep it from that).
 * - When one key pattern is asked for twice, one index serves: a unique one if any is unique.
 *
 * syncSchema drops the driver's own indexes (name starting `oql_`) the metadata no longer asks
 * for or asks for differently, then creates what is missing; indexes made by anyone else are left
 * alone. Dropping an index never drops data.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Document } from 'mongodb';
import { NUMERIC_TYPES, type FieldDefinition, type ObjectDefinition } from '../../kernel';
import { MONGO_ID, fieldPath } from './values';

export const INDEX_PREFIX = 'oql_';

export interface IndexSpec {
  name: string;
  /** The record fields, in key order. */
  fields: string[];
  key: Record<string, 1>;
  unique: boolean;
  partialFilterExpression?: Document;
}

const OBJECTS = new Set(['json', 'object', 'file', 'image']);

/** A filter every stored value of the field matches and null / missing never does. */
function hasValue(field: FieldDefinition | undefined): Document {
  if (!field) return { $exists: true };
  if (field.multiple) return { $type: 'array' };
  if (NUMERIC_TYPES.has(field.type)) return { $gte: -Infinity };
  if (field.type === 'boolean') return { $gte: false };
  if (OBJECTS.has(field.type)) return { $type: 'object' };
  return { $gte: '' };
}

function spec(def: ObjectDefinition, name: string, fields: string[], unique: boolean): IndexSpec {
  const paths = fields.map(fieldPath);
  const out: IndexSpec = { name, fields: [...fields], key: Object.fromEntries(paths.map((p) => [p, 1 as const])), unique };
  if (unique) {
    const parts = fields.filter((f) => fieldPath(f) !== MONGO_ID).map((f) => [fieldPath(f), hasValue(def.fields[f])] as const);
    if (parts.length > 0) out.partialFilterExpression = Object.fromEntries(parts);
  }
  return out;
}

export function indexSpecs(def: ObjectDefinition): IndexSpec[] {
  const wanted: IndexSpec[] = [];
  for (const [name, field] of Object.entries(def.fields ?? {})) {
    if (name === 'id') continue; // `_id` is unique and indexed already
    if (field.unique) wanted.push(spec(def, `${INDEX_PREFIX}uq_${name}`, [name], true));
    else if (field.index) wanted.push(spec(def, `${INDEX_PREFIX}ix_${name}`, [name], false));
  }
  for (const index of def.indexes ?? []) {
    if (index.fields.length > 0) wanted.push(spec(def, `${INDEX_PREFIX}idx_${index.name}`, index.fields, Boolean(index.unique)));
  }
  // One index per key pattern; a unique one wins.
  const byKey = new Map<string, IndexSpec>();
  for (const s of wanted) {
    const k = JSON.stringify(Object.keys(s.key));
    const seen = byKey.get(k);
    if (!seen || (s.unique && !seen.unique)) byKey.set(k, s);
  }
  return [...byKey.values()];
}

/** Whether an index as listIndexes describes it is exactly `spec`. */
export function sameIndex(existing: Document, spec: IndexSpec): boolean {
  const key = (existing.key ?? {}) as Document;
  return (
    existing.name === spec.name &&
    isDeepStrictEqual(Object.keys(key), Object.keys(spec.key)) &&
    Object.keys(key).every((k) => Number(key[k]) === 1) &&
    Boolean(existing.unique) === spec.unique &&
    isDeepStrictEqual(existing.partialFilterExpression ?? null, spec.partialFilterExpression ?? null)
  );
}

export interface IndexPlan {
  drop: string[];
  create: IndexSpec[];
}

/** What to drop and create so that the driver's indexes are exactly `wanted`. */
export function planIndexes(existing: Document[], wanted: IndexSpec[]): IndexPlan {
  const drop: string[] = [];
  const kept = new Set<string>();
  for (const index of existing) {
    const name = String(index.name);
    if (!name.startsWith(INDEX_PREFIX)) continue;
    const want = wanted.find((w) => w.name === name);
    if (want && sameIndex(index, want)) kept.add(name);
    else drop.push(name);
  }
  return { drop, create: wanted.filter((w) => !kept.has(w.name)) };
}
