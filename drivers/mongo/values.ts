/**
 * Records ↔ MongoDB documents. A record's `id` is stored as the document's `_id` (a string; the
 * driver generates a UUID when none is given), every other field under its own name. Field names
 * reach the store only through `fieldPath`, which accepts identifiers (what the metadata allows)
 * and so never lets a name act as an operator (`$where`) or a path into a sub-document (`a.b`).
 */
import { randomUUID } from 'node:crypto';
import type { Document } from 'mongodb';
import { ObjectQLError } from '../../kernel';
import type { DbRecord } from '../../kernel';

export const MONGO_ID = '_id';
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The document path of a field: `id` → `_id`; anything but an identifier is refused. */
export function fieldPath(field: string): string {
  if (field === 'id') return MONGO_ID;
  if (typeof field !== 'string' || !NAME.test(field) || field === MONGO_ID) {
    throw new ObjectQLError(
      'INVALID_REQUEST',
      `Field name ${JSON.stringify(field)} cannot be stored in MongoDB: use letters, digits and _ (and not _id)`,
    );
  }
  return field;
}

/** The record field a document path holds: `_id` → `id`. */
export function fieldOfPath(path: string): string {
  return path === MONGO_ID ? 'id' : path;
}

/** The fields to write, keyed by document path: `id` dropped, undefined values left out, values copied. */
function fieldsOf(data: DbRecord): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(data)) {
    if (key === 'id' || value === undefined) continue;
    out.push([fieldPath(key), structuredClone(value)]);
  }
  return out;
}

/** The document to insert for a new record; `id` is generated when the record has none. */
export function toDocument(data: DbRecord): Document {
  const given = data.id;
  const id = given === undefined || given === null ? randomUUID() : typeof given === 'string' ? given : JSON.stringify(given);
  return Object.fromEntries([[MONGO_ID, id], ...fieldsOf(data)]);
}

/** The `$set` body of an update (never `_id`); empty when there is nothing to change. */
export function toPatch(data: DbRecord): Document {
  return Object.fromEntries(fieldsOf(data));
}

/**
 * A stored document as a record: `_id` becomes `id` (an ObjectId of a document written by another
 * tool reads as its hex string), the other fields as stored.
 */
export function fromDocument(doc: Document): DbRecord {
  const { _id, ...rest } = doc;
  return { id: typeof _id === 'string' ? _id : String(_id), ...rest };
}

/** The projection of `fields` (the id always comes); undefined for every field. */
export function toProjection(fields: string[] | undefined): Document | undefined {
  if (!fields || fields.length === 0) return undefined;
  return Object.fromEntries([[MONGO_ID, 1], ...fields.map((f) => [fieldPath(f), 1] as const)]);
}
