import { DecimalSum, compareValues, compileFilter, decimalAverage } from '../../kernel';
import type { AggregateQuery, AggregateSpec, DbRecord } from '../../kernel';
import { pageRows, sortRows } from './query';

/** Running state of one aggregate over one group. */
interface Acc {
  count: number;
  sum: number;
  /** The exact sum of a decimal field's values (kernel/query/decimal.ts). */
  exact: DecimalSum | undefined;
  best: unknown;
  /** countdistinct: the values seen, by their JSON text (dates and numbers alike compare as stored). */
  seen?: Set<string>;
}

function add(spec: AggregateSpec, acc: Acc, row: DbRecord): void {
  if (spec.field === undefined) {
    acc.count += 1;
    return;
  }
  const v = row[spec.field];
  if (v === null || v === undefined) return;
  acc.count += 1;
  if (spec.func === 'countdistinct') (acc.seen ??= new Set()).add(JSON.stringify(v));
  else if (spec.func === 'sum' || spec.func === 'avg') {
    if (acc.exact) acc.exact.add(v);
    else acc.sum += Number(v);
  } else if (
    spec.func === 'min'
      ? acc.count === 1 || compareValues(v, acc.best) < 0
      : spec.func === 'max' && (acc.count === 1 || compareValues(v, acc.best) > 0)
  )
    acc.best = v;
}

function result(spec: AggregateSpec, acc: Acc): unknown {
  if (spec.func === 'count') return acc.count;
  if (spec.func === 'countdistinct') return acc.seen?.size ?? 0;
  if (acc.count === 0) return null;
  if (acc.exact && (spec.func === 'sum' || spec.func === 'avg')) {
    const sum = acc.exact.value ?? '0';
    return spec.func === 'sum' ? Number(sum) : decimalAverage(sum, acc.count);
  }
  if (spec.func === 'sum') return acc.sum;
  if (spec.func === 'avg') return acc.sum / acc.count;
  return acc.best;
}

/**
 * GROUP BY over rows in one pass. Without groupBy there is always exactly one result row (count 0
 * and null sums over no rows, as in SQL); with groupBy, a null key is a group of its own. Sums and
 * averages of the `decimals` fields are exact.
 */
export function aggregateRows(rows: Iterable<DbRecord>, query: AggregateQuery, decimals: ReadonlySet<string> = new Set()): DbRecord[] {
  const matches = compileFilter(query.filter);
  const groupBy = query.groupBy ?? [];
  const specs = query.aggregate;
  const groups = new Map<unknown, { first: DbRecord | undefined; accs: Acc[] }>();
  const newAcc = (spec: AggregateSpec): Acc => ({
    count: 0,
    sum: 0,
    exact: spec.field !== undefined && decimals.has(spec.field) ? new DecimalSum() : undefined,
    best: undefined,
  });
  const newGroup = (first: DbRecord | undefined) => ({ first, accs: specs.map(newAcc) });
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
