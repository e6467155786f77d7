/** find and count as single SQL statements: projection, WHERE, ORDER BY, LIMIT / OFFSET. */
import type { Knex } from 'knex';
import { ObjectQLError, validationError } from '../../kernel';
import { decimalMisfit } from './decimal';
import type { DbRecord, Filter, Query } from '../../kernel';
import type { SqlDialect } from './dialects/base';
import { whereSql, type ColumnScope } from './filter-sql';
import { ident, join, sql } from './fragment';
import { findOrder, type TableOf } from './order-sql';
import type { TableInfo } from './table-info';
import { decodeValue, encodeValue } from './values';

/** A knex instance or an open knex transaction: both run queries the same way. */
export type Db = Knex | Knex.Transaction;

export function columnScope(info: TableInfo, dialect: SqlDialect): ColumnScope {
  return { dialect, table: info.table, field: info.field };
}

/** `id` and the requested fields the object stores; every column when none is requested. */
function projection(info: TableInfo, fields: string[] | undefined): string[] {
  if (!fields || fields.length === 0) return [...info.columns];
  return [...new Set(['id', ...fields.filter((f) => info.families.has(f))])];
}

function applyWhere(qb: Knex.QueryBuilder, info: TableInfo, dialect: SqlDialect, filter: Filter | undefined): Knex.QueryBuilder {
  const where = whereSql(filter, columnScope(info, dialect));
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
export async function selectRows(db: Db, info: TableInfo, dialect: SqlDialect, query: Query, tableOf = NO_TABLES): Promise<DbRecord[]> {
  if (query.top !== undefined && query.top <= 0) return [];
  const order = findOrder(query.sort, info, dialect, tableOf);
  let qb: Knex.QueryBuilder;
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
    const numbered = sql`ROW_NUMBER() OVER (PARTITION BY ${ident(group.field)} ORDER BY ${outerOrder}) AS ${ident(ROW_NUMBER)}`;
    const inner = applyWhere(
      db(info.table).select([...info.columns, db.raw(numbered.sql, numbered.bindings as Knex.RawBinding[])]),
      info,
      dialect,
      query.filter,
    );
    const skip = Math.max(0, group.skip ?? 0);
    qb = db.select(projection(info, query.fields)).from(inner.as(info.table)).where(ROW_NUMBER, '>', skip);
    if (group.top !== undefined) qb = qb.where(ROW_NUMBER, '<=', skip + group.top);
  } else {
    qb = applyWhere(db(info.table).select(projection(info, query.fields)), info, dialect, query.filter);
  }
  if (outerOrder) qb = qb.orderByRaw(outerOrder.sql, outerOrder.bindings as Knex.RawBinding[]);
  if (query.top !== undefined && query.top < Number.MAX_SAFE_INTEGER) qb = qb.limit(query.top);
  if (query.skip) qb = qb.offset(query.skip);
  // knex types the rows of a query as any.
  const rows = (await qb) as DbRecord[];
  return rows.map((row) => decodeRow(info, row));
}

/** The row number column of a paging per group; not a field name any object can have. */
const ROW_NUMBER = '#rn';

export async function countRows(db: Db, info: TableInfo, dialect: SqlDialect, filter: Filter | undefined): Promise<number> {
  const rows = (await applyWhere(db(info.table).count({ n: '*' }), info, dialect, filter)) as Array<{ n: unknown }>;
  return Number(rows[0]?.n ?? 0);
}

export function decodeRow(info: TableInfo, row: DbRecord): DbRecord {
  const out: DbRecord = {};
  for (const [key, raw] of Object.entries(row)) out[key] = decodeValue(info.family(key), raw);
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
