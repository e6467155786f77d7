import { compareValues, compileFilter } from '../../kernel';
import type { DbRecord, Query, SortKey } from '../../kernel';

function comparator(sort: SortKey[]): (a: DbRecord, b: DbRecord) => number {
  return (a, b) => {
    for (const key of sort) {
      const c = compareValues(a[key.field], b[key.field]);
      if (c !== 0) return key.dir === 'desc' ? -c : c;
    }
    return 0;
  };
}

/** Stable multi-key sort; compareValues puts nulls first, so descending puts them last. */
export function sortRows(rows: DbRecord[], sort: SortKey[] | undefined): DbRecord[] {
  if (!sort || sort.length === 0) return rows;
  return [...rows].sort(comparator(sort));
}

/**
 * The first k rows in sort order without sorting them all: one comparison per row against the
 * worst row kept, for the usual small page out of many rows. Stable, like sortRows.
 */
function firstSorted(rows: DbRecord[], sort: SortKey[], k: number): DbRecord[] {
  const cmp = comparator(sort);
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

/** Filter, sort, page and project; returns the stored objects (callers copy them). */
export function applyQuery(rows: Iterable<DbRecord>, query: Query): DbRecord[] {
  const matches = compileFilter(query.filter);
  const matched: DbRecord[] = [];
  for (const r of rows) if (matches(r)) matched.push(r);
  const wanted = query.top === undefined ? undefined : (query.skip ?? 0) + query.top;
  const sorted =
    query.sort?.length && wanted !== undefined && wanted > 0 && wanted * 8 < matched.length
      ? firstSorted(matched, query.sort, wanted)
      : sortRows(matched, query.sort);
  const paged = pageRows(sorted, query.skip, query.top);
  return paged.map((r) => projectRow(r, query.fields));
}
