import { compareValues, compileFilter, pagePerGroup } from '../../kernel';
import type { DbRecord, Query, SortKey } from '../../kernel';

/** A row's value for a sort key. */
type SortValue = (row: DbRecord, key: SortKey) => unknown;
const ownValue: SortValue = (row, key) => row[key.field];

function comparator(sort: SortKey[], value: SortValue = ownValue): (a: DbRecord, b: DbRecord) => number {
  return (a, b) => {
    for (const key of sort) {
      const c = compareValues(value(a, key), value(b, key));
      if (c !== 0) return key.dir === 'desc' ? -c : c;
    }
    return 0;
  };
}

/** Stable multi-key sort; compareValues puts nulls first, so descending puts them last. */
export function sortRows(rows: DbRecord[], sort: SortKey[] | undefined, value: SortValue = ownValue): DbRecord[] {
  if (!sort || sort.length === 0) return rows;
  return [...rows].sort(comparator(sort, value));
}

/**
 * The first k rows in sort order without sorting them all: one comparison per row against the
 * worst row kept, for the usual small page out of many rows. Stable, like sortRows.
 */
function firstSorted(rows: DbRecord[], sort: SortKey[], k: number, value: SortValue): DbRecord[] {
  const cmp = comparator(sort, value);
  const kept: DbRecord[] = [];
  for (const row of rows) {
    if (kept.length === k && cmp(row, kept[k - 1]) >= 0) continue;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cmp(row, kept[mid]) < 0) hi = mid;
      else lo = mid + 1;
    }
    kept.splice(lo, 0, row);
    if (kept.length > k) kept.pop();
  }
  return kept;
}

export function pageRows<T>(rows: T[], skip: number | undefined, top: number | undefined): T[] {
  const start = Math.max(0, skip ?? 0);
  if (top === undefined) return start === 0 ? rows : rows.slice(start);
  return rows.slice(start, start + Math.max(0, top));
}

/** Keeps `id` and the requested fields a record has. An empty list means all fields. */
export function projectRow(row: DbRecord, fields: string[] | undefined): DbRecord {
  if (!fields || fields.length === 0) return row;
  const out: DbRecord = { id: row.id };
  for (const f of fields) {
    if (f in row) out[f] = row[f];
  }
  return out;
}

/** A stored record of another object of the same store, by id. */
export type Related = (object: string, id: string) => DbRecord | undefined;

/**
 * A key through a relation (SortKey.through) reads the related record's field, null when there is
 * none or the caller's scope on it does not match; each related record is looked up once per key.
 */
function sortValue(sort: SortKey[] | undefined, related: Related | undefined): SortValue {
  if (!sort?.some((k) => k.through)) return ownValue;
  const perKey = new Map<SortKey, { inScope: (r: DbRecord) => boolean; values: Map<string, unknown> }>();
  return (row, key) => {
    if (!key.through) return row[key.field];
    const ref = row[key.field];
    if (typeof ref !== 'string' || !related) return null;
    let seen = perKey.get(key);
    if (!seen) perKey.set(key, (seen = { inScope: compileFilter(key.through.scope), values: new Map() }));
    if (!seen.values.has(ref)) {
      const record = related(key.through.object, ref);
      seen.values.set(ref, record && seen.inScope(record) ? (record[key.through.field] ?? null) : null);
    }
    return seen.values.get(ref);
  };
}

/** Numbers the sorted rows within each value of `field` and keeps those after `skip`, at most `top` each. */
/** Filter, sort, page and project; returns the stored objects (callers copy them). */
export function applyQuery(rows: Iterable<DbRecord>, query: Query, related?: Related): DbRecord[] {
  const matches = compileFilter(query.filter);
  const matched: DbRecord[] = [];
  for (const r of rows) if (matches(r)) matched.push(r);
  const value = sortValue(query.sort, related);
  if (query.perGroup) {
    // Within a group, ties in the query's sort go by id (as the SQL driver numbers them).
    const sorted = sortRows(matched, [...(query.sort ?? []), { field: 'id', dir: 'asc' }], value);
    return pageRows(pagePerGroup(sorted, query.perGroup), query.skip, query.top).map((r) => projectRow(r, query.fields));
  }
  const wanted = query.top === undefined ? undefined : (query.skip ?? 0) + query.top;
  const sorted =
    query.sort?.length && wanted !== undefined && wanted > 0 && wanted * 8 < matched.length
      ? firstSorted(matched, query.sort, wanted, value)
      : sortRows(matched, query.sort, value);
  const paged = pageRows(sorted, query.skip, query.top);
  return paged.map((r) => projectRow(r, query.fields));
}
