import { compareValues, compileFilter } from '../../kernel';
import type { AggregateQuery, AggregateSpec, DbRecord } from '../../kernel';
import { pageRows, sortRows } from './query';

/** Running state of one aggregate over one group. */
interface Acc {
  count: number;
  sum: number;
  best: unknown;
}

function add(spec: AggregateSpec, acc: Acc, row: DbRecord): void {
  if (spec.field === undefined) {
    acc.count += 1;
    return;
  }
  const v = row[spec.field];
  if (v === null || v === undefined) return;
  acc.count += 1;
  if (spec.func === 'sum' || spec.func === 'avg') acc.sum += Number(v);
  else if (
    spec.func === 'min'
      ? acc.count === 1 || compareValues(v, acc.best) < 0
      : spec.func === 'max' && (acc.count === 1 || compareValues(v, acc.best) > 0)
  )
    acc.best = v;
}

function result(spec: AggregateSpec, acc: Acc): unknown {
  if (spec.func === 'count') return acc.count;
  if (acc.count === 0) return null;
  if (spec.func === 'sum') return acc.sum;
  if (spec.func === 'avg') return acc.sum / acc.count;
  return acc.best;
}

/**
 * GROUP BY over rows in one pass. Without groupBy there is always exactly one result row (count 0
 * and null sums over no rows, as in SQL); with groupBy, a null key is a group of its own.
 */
export function aggregateRows(rows: Iterable<DbRecord>, query: AggregateQuery): DbRecord[] {
  const matches = compileFilter(query.filter);
  const groupBy = query.groupBy ?? [];
  const specs = query.aggregate;
  const groups = new Map<unknown, { first: DbRecord | undefined; accs: Acc[] }>();
  const newGroup = (first: DbRecord | undefined) => ({ first, accs: specs.map(() => ({ count: 0, sum: 0, best: undefined })) });
  if (groupBy.length === 0) groups.set('', newGroup(undefined));
  // One field: its value is the key (null and undefined meet); several: a JSON key.
  const keyOf =
    groupBy.length === 1 ? (r: DbRecord) => r[groupBy[0]] ?? null : (r: DbRecord) => JSON.stringify(groupBy.map((f) => r[f] ?? null));
  for (const row of rows) {
    if (!matches(row)) continue;
    const key = groupBy.length === 0 ? '' : keyOf(row);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = newGroup(row)));
    specs.forEach((spec, i) => add(spec, group.accs[i], row));
  }
  const out: DbRecord[] = [];
  for (const { first, accs } of groups.values()) {
    const columns: Array<[string, unknown]> = [
      ...groupBy.map((f): [string, unknown] => [f, first?.[f] ?? null]),
      ...specs.map((spec, i): [string, unknown] => [spec.alias, result(spec, accs[i])]),
    ];
    // fromEntries defines own keys: an alias such as '__proto__' is a column like any other.
    out.push(Object.fromEntries(columns));
  }
  return pageRows(sortRows(out, query.sort), query.skip, query.top);
}
