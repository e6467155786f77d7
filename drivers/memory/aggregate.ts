import type { DbRecord } from '../../kernel/drivers';
import type { AggregateQuery, AggregateSpec } from '../../kernel/query/ast';
import { compareValues, evaluateFilter } from '../../kernel/query/evaluate';
import { pageRows, sortRows } from './query';

function present(v: unknown): boolean {
  return v !== null && v !== undefined;
}

function compute(spec: AggregateSpec, rows: DbRecord[]): unknown {
  if (spec.func === 'count' && spec.field === undefined) return rows.length;
  const values = rows.map((r) => (spec.field === undefined ? undefined : r[spec.field])).filter(present);
  if (spec.func === 'count') return values.length;
  if (values.length === 0) return null;
  switch (spec.func) {
    case 'sum':
      return values.reduce<number>((s, v) => s + Number(v), 0);
    case 'avg':
      return values.reduce<number>((s, v) => s + Number(v), 0) / values.length;
    case 'min':
      return values.reduce((m, v) => (compareValues(v, m) < 0 ? v : m));
    case 'max':
      return values.reduce((m, v) => (compareValues(v, m) > 0 ? v : m));
  }
}

/**
 * GROUP BY over rows. Without groupBy there is always exactly one result row (count 0 and
 * null sums over no rows, as in SQL); with groupBy, a null key is a group of its own.
 */
export function aggregateRows(rows: DbRecord[], query: AggregateQuery): DbRecord[] {
  const matched = rows.filter((r) => evaluateFilter(query.filter, r));
  const groupBy = query.groupBy ?? [];
  const groups = new Map<string, DbRecord[]>();
  if (groupBy.length === 0) groups.set('', matched);
  for (const row of groupBy.length === 0 ? [] : matched) {
    const key = JSON.stringify(groupBy.map((f) => row[f] ?? null));
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  const out: DbRecord[] = [];
  for (const group of groups.values()) {
    const result: DbRecord = {};
    for (const f of groupBy) result[f] = group[0][f] ?? null;
    for (const spec of query.aggregate) result[spec.alias] = compute(spec, group);
    out.push(result);
  }
  return pageRows(sortRows(out, query.sort), query.skip, query.top);
}
