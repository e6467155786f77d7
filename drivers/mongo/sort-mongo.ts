/**
 * Sort keys as a MongoDB sort document.
 *
 * Nulls: the contract puts nulls first ascending and last descending. MongoDB does exactly that
 * by itself: in its comparison order null is the lowest value a field can hold (only the internal
 * MinKey is lower), and a missing field sorts as null ("BSON Type Comparison Order" in the MongoDB
 * manual, sections "Comparison/Sort Order" and "Non-existent Fields"). So `{field: 1}` gives
 * null/missing, then values; `{field: -1}` gives values, then null/missing. No `$ifNull` or extra
 * key is needed, and an index on the field can still provide the order.
 *
 * Differences the contract does not reach: an empty list sorts before null in MongoDB (the engine
 * never sorts by a `multiple` field), and strings compare by UTF-8 bytes, which orders characters
 * above U+FFFF before U+E000–U+FFFF where JavaScript's code units put them after.
 *
 * Ties are left to the store, as SQL leaves them: no `_id` is appended, so an index on the sort
 * field still serves the order (with an index, equal keys come in insertion order).
 */
import type { SortKey } from '../../kernel';

/** Field → 1 (ascending) or -1 (descending), in key order. */
export type MongoSort = Record<string, 1 | -1>;

/**
 * The sort document for `keys`, each field mapped by `path`; a field already sorted by can never
 * decide an order again and is dropped (an object cannot hold it twice anyway).
 */
export function toMongoSort(keys: SortKey[] | undefined, path: (field: string) => string = (f) => f): MongoSort | undefined {
  if (!keys || keys.length === 0) return undefined;
  const entries: Array<[string, 1 | -1]> = [];
  const seen = new Set<string>();
  for (const key of keys) {
    const p = path(key.field);
    if (seen.has(p)) continue;
    seen.add(p);
    entries.push([p, key.dir === 'desc' ? -1 : 1]);
  }
  return Object.fromEntries(entries);
}
