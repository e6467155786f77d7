/**
 * The ORDER BY of a find: the object's own columns, and keys through a to-one relation
 * (SortKey.through) as a correlated subquery reading the related row's field, only when that row
 * is within the caller's scope on the related object (compiled by the same filter compiler):
 * `(SELECT s.name FROM project AS s WHERE s.id = task.project AND <scope>)`. A missing or hidden
 * related row gives NULL, which sorts as any null does (first ascending, last descending).
 */
import { ObjectQLError } from '../../kernel';
import type { SortKey } from '../../kernel';
import type { SqlDialect } from './dialects/base';
import { orderSql, whereSql } from './filter-sql';
import { ident, sql, type Frag } from './fragment';
import type { TableInfo } from './table-info';

/** The stored table of another object of the same datasource. */
export type TableOf = (object: string) => TableInfo;

const PRIMARY_KEY: ReadonlySet<string> = new Set(['id']);

export function findOrder(sort: SortKey[] | undefined, info: TableInfo, dialect: SqlDialect, tableOf: TableOf): Frag | undefined {
  let aliases = 0;
  return orderSql(
    sort,
    { dialect, table: info.table, field: info.field },
    (field, key) => {
      if (key.through) return throughValue(key, info, dialect, tableOf, `#s${aliases++}`);
      return info.families.has(field) ? ident(field) : undefined;
    },
    PRIMARY_KEY,
  );
}

function throughValue(key: SortKey, info: TableInfo, dialect: SqlDialect, tableOf: TableOf, alias: string): Frag {
  const { object, field, scope } = key.through!;
  const target = tableOf(object);
  if (!info.families.has(key.field) || !target.families.has(field)) {
    throw new ObjectQLError('INVALID_REQUEST', `sort: cannot sort '${info.object}' by '${key.field}.${field}'`, {
      field: key.field,
      object: info.object,
    });
  }
  // The related table under an alias of its own, so a relation to the same object still reaches
  // the outer row through the table's name; the scope's bare column names resolve to the alias.
  const link = sql`${ident(`${alias}.id`)} = ${ident(`${info.table}.${key.field}`)}`;
  const where = whereSql(scope, { dialect, table: alias, field: target.field });
  const condition = where ? sql`${link} AND ${where}` : link;
  return sql`(SELECT ${ident(`${alias}.${field}`)} FROM ${ident(target.table)} AS ${ident(alias)} WHERE ${condition})`;
}
