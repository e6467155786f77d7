import type { Collection, Db, Document } from 'mongodb';
import { PluginError } from '../../kernel';
import type { ObjectDefinition } from '../../kernel';
import { isDuplicateKey } from './errors';
import { indexSpecs, planIndexes, type IndexSpec } from './indexes';

const NAMESPACE_EXISTS = 48;

/**
 * Creates an object's collection when missing (so that a transaction never has to) and brings
 * the driver's indexes in line with the metadata (indexes.ts). Never touches documents. Returns
 * the indexes the object now has.
 */
export async function syncCollection(db: Db, def: ObjectDefinition): Promise<IndexSpec[]> {
  const wanted = indexSpecs(def);
  try {
    await db.createCollection(def.name);
  } catch (err) {
    if ((err as { code?: unknown }).code !== NAMESPACE_EXISTS) throw err;
  }
  const coll = db.collection(def.name);
  // The driver types the index descriptions it lists as any.
  const plan = planIndexes((await coll.listIndexes().toArray()) as Document[], wanted);
  for (const name of plan.drop) await coll.dropIndex(name);
  for (const index of plan.create) await createIndex(coll, def.name, index);
  return wanted;
}

/** A unique index over stored duplicates stops start-up with what to fix. */
async function createIndex(coll: Collection<Document>, object: string, index: IndexSpec): Promise<void> {
  try {
    await coll.createIndex(index.key, {
      name: index.name,
      ...(index.unique ? { unique: true } : {}),
      ...(index.partialFilterExpression ? { partialFilterExpression: index.partialFilterExpression } : {}),
    });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const what = index.fields.length === 1 ? `field '${index.fields[0]}'` : `fields (${index.fields.join(', ')})`;
    throw new PluginError(
      `Cannot make ${what} of object '${object}' unique (index '${index.name}'): stored records share a value; fix the data or the metadata`,
    );
  }
}
