/**
 * GROUP BY with count / count(field) / sum / avg / min / max as one statement. Columns are
 * selected under internal aliases (g0…, a0…) and renamed in JavaScript, so any alias the engine
 * allows works on every engine (PostgreSQL would cut one of 64 characters). Sorting names a group
 * field or an alias; nulls first ascending, last descending. Without groupBy there is exactly one
 * row (count 0, other functions null over no rows); numbers come back as numbers, min / max in
 * the field's own type. Over a decimal field, sum is the dialect's exact sum and avg that sum
 * divided by the count (kernel/query/decimal.ts), selected beside it; sorting by them uses the
 * engine's own SUM / AVG.
 */
import type { Knex } from 'knex';
import { decimalAverage } from '../../kernel';
import type { AggregateQuery, AggregateSpec, DbRecord } from '../../kernel';
import type { SqlDialect } from './dialects/base';
import { orderSql, whereSql } from './filter-sql';
import { frag, ident, join, sql, type Frag } from './fragment';
import { columnScope, paging, type Db } from './query-sql';
import { ShapeParts } from './shape';
import type { Statements } from './statements';
import type { TableInfo } from './table-info';
import { decodeValue, scalarText } from './values';

function aggregateExpr(spec: AggregateSpec, info: TableInfo): Frag {
  if (spec.field === undefined) return frag('COUNT(*)');
  const col = ident(spec.field);
  switch (spec.func) {
    case 'count':
      return sql`COUNT(${col})`;
    case 'countdistinct':
      return sql`COUNT(DISTINCT ${col})`;
    case 'sum':
      return sql`SUM(${col})`;
    case 'avg':
      return sql`AVG(${col})`;
    default: {
      const fn = frag(spec.func === 'min' ? 'MIN' : 'MAX');
      // PostgreSQL has no MIN/MAX over booleans: compare them as 0 / 1 everywhere.
      if (info.family(spec.field) === 'boolean') return sql`${fn}(CASE WHEN ${col} IS NULL THEN NULL WHEN ${col} THEN 1 ELSE 0 END)`;
      return sql`${fn}(${col})`;
    }
  }
}

/** True for sum and avg over a decimal field: computed from the exact sum. */
function isExact(spec: AggregateSpec, info: TableInfo): boolean {
  return (spec.func === 'sum' || spec.func === 'avg') && spec.field !== undefined && info.family(spec.field) === 'decimal';
}

/** The selected expression: for exact ones the exact sum (an avg's count is selected beside it). */
function selectExpr(spec: AggregateSpec, info: TableInfo, dialect: SqlDialect): Frag {
  return isExact(spec, info) ? dialect.exactSum(ident(spec.field!)) : aggregateExpr(spec, info);
}

function aggregateValue(spec: AggregateSpec, info: TableInfo, raw: unknown, count: unknown): unknown {
  if (spec.func === 'count' || spec.func === 'countdistinct') return raw === null || raw === undefined ? 0 : Number(raw);
  if (raw === null || raw === undefined) return null;
  if (spec.func === 'avg' && isExact(spec, info)) return decimalAverage(typeof raw === 'number' ? raw : scalarText(raw), Number(count));
  if (spec.func === 'sum' || spec.func === 'avg' || spec.field === undefined) return Number(raw);
  return decodeValue(info.family(spec.field), raw);
}

export async function aggregateRows(
  db: Db,
  statements: Statements,
  info: TableInfo,
  dialect: SqlDialect,
  query: AggregateQuery,
): Promise<DbRecord[]> {
  const groupBy = query.groupBy ?? [];
  const specs = query.aggregate ?? [];
  if (groupBy.length === 0 && specs.length === 0) return [{}];
  if (query.top !== undefined && query.top <= 0) return [];

  // Sort keys: an alias first (as the memory driver sorts its output rows), then a group field.
  const expressions = new Map<string, Frag>();
  const selects: Frag[] = [];
  groupBy.forEach((field, i) => {
    selects.push(sql`${ident(field)} AS ${ident(`g${i}`)}`);
    expressions.set(field, ident(field));
  });
  specs.forEach((spec, i) => {
    selects.push(sql`${selectExpr(spec, info, dialect)} AS ${ident(`a${i}`)}`);
    if (spec.func === 'avg' && isExact(spec, info)) selects.push(sql`COUNT(${ident(spec.field!)}) AS ${ident(`n${i}`)}`);
    expressions.set(spec.alias, aggregateExpr(spec, info));
  });

  const scope = columnScope(info, dialect);
  const parts = new ShapeParts('aggregate', info.table);
  const select = parts.frag(join(selects, ','));
  const where = parts.frag(whereSql(query.filter, scope));
  const groups = parts.frag(
    groupBy.length
      ? join(
          groupBy.map((f) => ident(f)),
          ',',
        )
      : undefined,
  );
  const order = parts.frag(orderSql(query.sort, scope, (key) => expressions.get(key)));
  const limit = paging(parts, query);
  const shape = parts.shape((v) => {
    const s = select(v)!;
    let qb = db(info.table).select(db.raw(s.sql, s.bindings as Knex.RawBinding[]));
    const w = where(v);
    if (w) qb = qb.whereRaw(w.sql, w.bindings as Knex.RawBinding[]);
    const g = groups(v);
    if (g) qb = qb.groupByRaw(g.sql, g.bindings as Knex.RawBinding[]);
    const o = order(v);
    if (o) qb = qb.orderByRaw(o.sql, o.bindings as Knex.RawBinding[]);
    return limit(qb, v);
  });

  const { rows } = await statements.run(db, shape);
  return rows.map((row) => {
    const columns: Array<[string, unknown]> = [
      ...groupBy.map((field, i): [string, unknown] => [field, decodeValue(info.family(field), row[`g${i}`])]),
      ...specs.map((spec, i): [string, unknown] => [spec.alias, aggregateValue(spec, info, row[`a${i}`], row[`n${i}`])]),
    ];
    // fromEntries defines own keys: an alias such as '__proto__' is a column like any other.
    return Object.fromEntries(columns);
  });
}
