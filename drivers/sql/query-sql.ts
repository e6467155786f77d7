/**
 * find and count as single SQL statements: projection, WHERE, ORDER BY, LIMIT / OFFSET. Each is
 * described as a shape (shape.ts) that knex builds once and statements.ts then runs per request.
 */
import type { Knex } from 'knex';
import { ObjectQLError, validationError } from '../../kernel';
import { decimalMisfit } from './decimal';
import type { DbRecord, Filter, Query } from '../../kernel';
import type { SqlDialect } from './dialects/base';
import { whereSql, type ColumnScope } from './filter-sql';
import { ident, join, sql, type Frag } from './fragment';
import { findOrder, type TableOf } from './order-sql';
import { ShapeParts } from './shape';
import type { Statements } from './statements';
import type { TableInfo } from './table-info';
import { decodeValue, encodeValue } from './values';

/**
 * knex, to build statements with and to take connections from: the datasource's own, or one bound
 * to a transaction's connection (SqlDatasource.transaction).
 */
export type Db = Knex;

export function columnScope(info: TableInfo, dialect: SqlDialect): ColumnScope {
  return { dialect, table: info.table, field: info.field };
}

/** `id` and the requested fields the object stores; every column when none is requested. */
function projection(info: TableInfo, fields: string[] | undefined): string[] {
  if (!fields || fields.length === 0) return [...info.columns];
  return [...new Set(['id', ...fields.filter((f) => info.families.has(f))])];
}

export function applyWhere(qb: Knex.QueryBuilder, where: Frag | undefined): Knex.QueryBuilder {
  return where ? qb.whereRaw(where.sql, where.bindings as Knex.RawBinding[]) : qb;
}

/** Without related tables: a sort through a relation names an object this call cannot reach. */
const NO_TABLES: TableOf = (object) => {
  throw new ObjectQLError('INVALID_REQUEST', `sort: object '${object}' is not stored here`, { object });
};

/**
 * One SELECT. With `perGroup` the rows are numbered per group in a subquery named as the table
 * (`ROW_NUMBER() OVER (PARTITION BY field ORDER BY <sort>, id)`), so the same ORDER BY, keys
 * through a relation included, serves inside and outside it.
 */
export async function selectRows(
  db: Db,
  statements: Statements,
  info: TableInfo,
  dialect: SqlDialect,
  query: Query,
  tableOf = NO_TABLES,
  lock?: RowLock,
): Promise<DbRecord[]> {
  if (query.top !== undefined && query.top <= 0) return [];
  const order = findOrder(query.sort, info, dialect, tableOf);
  const where = whereSql(query.filter, columnScope(info, dialect));
  const fields = projection(info, query.fields);
  const parts = new ShapeParts('find', info.table);
  parts.names(fields);
  let from: (v: readonly unknown[]) => Knex.QueryBuilder;
  let outerOrder = order;
  if (query.perGroup) {
    const group = query.perGroup;
    if (!info.families.has(group.field))
      throw new ObjectQLError('INVALID_REQUEST', `perGroup: unknown field '${group.field}' on object '${info.object}'`, {
        field: group.field,
        object: info.object,
      });
    if (group.top !== undefined && group.top <= 0) return [];
    outerOrder = join([...(order ? [order] : []), sql`${ident('id')} ASC`], ',');
    const skip = Math.max(0, group.skip ?? 0);
    parts.names(info.columns);
    const numbered = parts.frag(sql`ROW_NUMBER() OVER (PARTITION BY ${ident(group.field)} ORDER BY ${outerOrder}) AS ${ident(ROW_NUMBER)}`);
    const inWhere = parts.frag(where);
    const after = parts.value(skip, 'int');
    parts.text(group.top === undefined ? 'all' : 'top');
    const upTo = group.top === undefined ? -1 : parts.value(skip + group.top, 'int');
    from = (v) => {
      const n = numbered(v)!;
      const inner = applyWhere(db(info.table).select([...info.columns, db.raw(n.sql, n.bindings as Knex.RawBinding[])]), inWhere(v));
      const qb = db
        .select(fields)
        .from(inner.as(info.table))
        .where(ROW_NUMBER, '>', v[after] as number);
      return upTo < 0 ? qb : qb.where(ROW_NUMBER, '<=', v[upTo] as number);
    };
  } else {
    const w = parts.frag(where);
    from = (v) => applyWhere(db(info.table).select(fields), w(v));
  }
  const orderBy = parts.frag(outerOrder);
  const limit = paging(parts, query);
  parts.text(lock ?? '');
  const shape = parts.shape((v) => {
    const o = orderBy(v);
    const qb = limit(o ? from(v).orderByRaw(o.sql, o.bindings as Knex.RawBinding[]) : from(v), v);
    if (!lock) return qb;
    return lock === 'skip' ? qb.forUpdate().skipLocked() : qb.forUpdate();
  });
  const { rows } = await statements.run(db, shape);
  return rows.map((row) => decodeRow(info, row));
}

/** SELECT ... FOR UPDATE, waiting for rows other transactions hold, or skipping them (SKIP LOCKED). */
export type RowLock = 'wait' | 'skip';

/** LIMIT and OFFSET as values of the shape: applies them to a query built from any values. */
export function paging(parts: ShapeParts, query: { top?: number; skip?: number }) {
  const hasTop = query.top !== undefined && query.top < Number.MAX_SAFE_INTEGER;
  parts.text(hasTop ? 'limit' : '');
  const top = hasTop ? parts.value(query.top, 'int') : -1;
  parts.text(query.skip ? 'offset' : '');
  const skip = query.skip ? parts.value(query.skip, 'int') : -1;
  return (qb: Knex.QueryBuilder, v: readonly unknown[]): Knex.QueryBuilder => {
    const limited = top < 0 ? qb : qb.limit(v[top] as number);
    return skip < 0 ? limited : limited.offset(v[skip] as number);
  };
}

/** The row number column of a paging per group; not a field name any object can have. */
const ROW_NUMBER = '#rn';

export async function countRows(
  db: Db,
  statements: Statements,
  info: TableInfo,
  dialect: SqlDialect,
  filter: Filter | undefined,
): Promise<number> {
  const parts = new ShapeParts('count', info.table);
  const where = parts.frag(whereSql(filter, columnScope(info, dialect)));
  const { rows } = await statements.run(
    db,
    parts.shape((v) => applyWhere(db(info.table).count({ n: '*' }), where(v))),
  );
  return Number(rows[0]?.n ?? 0);
}

export function decodeRow(info: TableInfo, row: DbRecord): DbRecord {
  const out: DbRecord = {};
  for (const key in row) out[key] = decodeValue(info.family(key), row[key]);
  return out;
}

/** A record's values in column form; undefined values are left out, unknown fields refused. */
export function encodeRow(info: TableInfo, dialect: SqlDialect, data: DbRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    if (!info.families.has(key)) {
      throw new ObjectQLError('INVALID_REQUEST', `Unknown field '${key}' on object '${info.object}'`, { object: info.object, field: key });
    }
    // Out of a decimal column's range: refused (on every engine alike for decimal fields), never rounded.
    const limit = typeof value === 'number' ? info.decimalLimit(key) : undefined;
    const misfit = limit ? decimalMisfit(value as number, limit) : undefined;
    if (misfit) throw validationError({ [key]: misfit });
    out[key] = encodeValue(dialect, info.family(key), value);
  }
  return out;
}
