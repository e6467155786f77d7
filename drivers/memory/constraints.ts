import { ObjectQLError, valuesEqual } from '../../kernel';
import type { DbRecord, ObjectDefinition } from '../../kernel';

/** The field sets that must be unique: each unique field alone, and each unique index. */
export function uniqueKeys(def: ObjectDefinition): string[][] {
  const keys: string[][] = [];
  for (const [name, field] of Object.entries(def.fields ?? {})) {
    if (field.unique && name !== 'id') keys.push([name]);
  }
  for (const index of def.indexes ?? []) {
    if (index.unique && index.fields.length > 0) keys.push([...index.fields]);
  }
  return keys;
}

export function conflict(object: string, fields: string[], message: string): ObjectQLError {
  return new ObjectQLError('CONFLICT', message, { object, fields });
}

/**
 * Throws CONFLICT when another row has the same values for one of the unique keys. As in SQL, a
 * key with a null part never conflicts.
 */
export function checkUnique(object: string, keys: string[][], record: DbRecord, rows: Iterable<DbRecord>): void {
  if (keys.length === 0) return;
  const active = keys.filter((key) => key.every((f) => record[f] !== null && record[f] !== undefined));
  if (active.length === 0) return;
  for (const row of rows) {
    if (row.id === record.id) continue;
    for (const key of active) {
      if (key.every((f) => valuesEqual(row[f], record[f]))) {
        const what = key.length === 1 ? `field '${key[0]}'` : `fields (${key.join(', ')})`;
        throw conflict(object, key, `Duplicate value for ${what} of object '${object}'`);
      }
    }
  }
}
