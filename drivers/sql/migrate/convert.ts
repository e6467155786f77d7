/**
 * Type changes: which column families convert to which, whether a conversion can lose data, which
 * stored values would not convert (checked in JavaScript before anything is altered, so a refusal
 * names the rows), and the engine's statement that converts the rest (CAST).
 */
import type { Knex } from 'knex';
import { decimalSpec, decimalMisfit } from '../decimal';
import type { SqlDialect } from '../dialects/base';
import { frag, ident, sql, type Frag } from '../fragment';
import { storageFamily, type StorageFamily } from '../values';
import { specField, type ColumnSpec } from './steps';

const NUMERIC: ReadonlySet<StorageFamily> = new Set(['number', 'integer', 'decimal']);
const INT32 = 2 ** 31;
/** What every engine's CAST reads as a number: no hex, no 'Infinity', no thousands separators. */
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * How a column of family `from` becomes one of family `to`: undefined when there is no automatic
 * conversion; `lossy` when some values may be changed (text → number drops "1.50"'s form,
 * number → integer would drop fractions), which makes the step destructive.
 */
export function conversion(from: StorageFamily | undefined, to: StorageFamily): { lossy: boolean } | undefined {
  if (!from || from === to) return undefined;
  if (to === 'text') return from === 'date' || from === 'time' || NUMERIC.has(from) ? { lossy: false } : undefined;
  if (!NUMERIC.has(to) || (from !== 'text' && !NUMERIC.has(from))) return undefined;
  const widening = from === 'integer' && (to === 'number' || to === 'decimal');
  return { lossy: !widening };
}

/** Why a stored value would not convert to the column's new type; undefined when it converts. */
export function misfit(raw: unknown, to: ColumnSpec): string | undefined {
  const family = storageFamily(specField(to));
  if (family === 'text') return undefined;
  const text = (Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw)).trim();
  const number = Number(text);
  if (!NUMBER_TEXT.test(text) || !Number.isFinite(number)) return 'is not a number';
  if (family === 'integer' && (!Number.isInteger(number) || Math.abs(number) >= INT32))
    return 'is not a whole number that fits an integer column';
  const spec = family === 'decimal' ? decimalSpec(specField(to)) : undefined;
  return spec ? decimalMisfit(number, spec) : undefined;
}

/** A row whose value would not convert. */
export interface Misfit {
  id: string;
  value: unknown;
  reason: string;
}

const PAGE = 1000;

/** Every row of `column` whose value would not convert (reads the table by id, a page at a time). */
export async function findMisfits(knex: Knex, table: string, column: string, to: ColumnSpec): Promise<{ count: number; rows: Misfit[] }> {
  const rows: Misfit[] = [];
  let count = 0;
  let after: string | undefined;
  for (;;) {
    const query = knex(table).select({ id: 'id', value: column }).whereNotNull(column).orderBy('id').limit(PAGE);
    if (after !== undefined) query.where('id', '>', after);
    const page = (await query) as Array<{ id: unknown; value: unknown }>;
    for (const row of page) {
      const reason = misfit(row.value, to);
      if (!reason) continue;
      count++;
      if (rows.length < 10) rows.push({ id: String(row.id), value: row.value, reason });
    }
    if (page.length < PAGE) return { count, rows };
    after = String(page[page.length - 1].id);
  }
}

/** The statements converting `column` of `table` in place, from family `from` to the type of `to` (misfits already refused). */
export function conversionStatements(dialect: SqlDialect, table: string, from: StorageFamily, to: ColumnSpec): Frag[] {
  const field = specField(to);
  const family = storageFamily(field);
  const type = dialect.columnType(family, field);
  const col = ident(to.name);
  const source = from === 'text' ? sql`TRIM(${col})` : col;
  switch (dialect.name) {
    case 'postgres': {
      const castType = type.replace(/ COLLATE .*$/, '');
      return [sql`ALTER TABLE ${ident(table)} ALTER COLUMN ${col} TYPE ${frag(type)} USING CAST(${source} AS ${frag(castType)})`];
    }
    case 'mysql': {
      // MODIFY converts implicitly; surrounding spaces would count as truncation in strict mode.
      const trim = from === 'text' ? [sql`UPDATE ${ident(table)} SET ${col} = TRIM(${col}) WHERE ${col} <> TRIM(${col})`] : [];
      return [...trim, sql`ALTER TABLE ${ident(table)} MODIFY ${col} ${frag(type)} NULL`];
    }
    case 'sqlite': {
      // SQLite cannot change a column's type: a new column takes the converted values and the name.
      const castType = family === 'text' ? 'TEXT' : family === 'integer' ? 'INTEGER' : 'REAL';
      const temporary = ident(`${to.name}__objectql_new`);
      // SQLite writes a whole real as '2.0'; the other engines (and the JS form) write '2'.
      const value =
        family === 'text' && NUMERIC.has(from)
          ? sql`CASE WHEN ${col} = CAST(${col} AS INTEGER) THEN CAST(CAST(${col} AS INTEGER) AS TEXT) ELSE CAST(${col} AS TEXT) END`
          : sql`CAST(${source} AS ${frag(castType)})`;
      return [
        sql`ALTER TABLE ${ident(table)} ADD COLUMN ${temporary} ${frag(type)}`,
        sql`UPDATE ${ident(table)} SET ${temporary} = ${value}`,
        sql`ALTER TABLE ${ident(table)} DROP COLUMN ${col}`,
        sql`ALTER TABLE ${ident(table)} RENAME COLUMN ${temporary} TO ${col}`,
      ];
    }
  }
}
