import type { DbRecord } from '../../kernel/drivers';
import type { Query, SortKey } from '../../kernel/query/ast';
import { compareValues, evaluateFilter } from '../../kernel/query/evaluate';

/** Stable multi-key sort; compareValues puts nulls first, so descending puts them last. */
export function sortRows(rows: DbRecord[], sort: SortKey[] | undefined): DbRecord[] {
  if (!sort || sort.length === 0) return rows;
  return [...rows].sort((a, b) => {
    for (const key of sort) {
      const c = compareValues(a[key.field], b[key.field]);
      if (c !== 0) return key.dir === 'desc' ? -c : c;
    }
    return 0;
  });
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
export function applyQuery(rows: DbRecord[], query: Query): DbRecord[] {
  const matched = rows.filter((r) => evaluateFilter(query.filter, r));
  const paged = pageRows(sortRows(matched, query.sort), query.skip, query.top);
  return paged.map((r) => projectRow(r, query.fields));
}
