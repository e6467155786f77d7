/**
 * MySQL and MariaDB through mysql2.
 *
 * - Text columns are utf8mb4 with a binary, no-pad collation (MariaDB utf8mb4_nopad_bin, MySQL 8
 *   utf8mb4_0900_bin): `=` and unique indexes are case- and trailing-space-sensitive, ordering
 *   is by code point, as in evaluate.ts. Short text is varchar(255) (indexable); textarea and
 *   text with max_length over 255 are mediumtext (indexed on a 191-character prefix).
 * - Case-insensitive tests are LOWER(column) LIKE LOWER(pattern): Unicode-aware (utf8mb4).
 * - Dates, datetimes and times are read as strings (dateStrings) and datetimes stored as UTC
 *   DATETIME(3) 'YYYY-MM-DD HH:MM:SS.sss'; booleans are tinyint(1); JSON columns are read as
 *   text (jsonStrings) and parsed by the driver (MariaDB's JSON is longtext with a json_valid check).
 * - Nulls sort first ascending and last descending by default.
 * - Decimal fields are DECIMAL(p, s), read as numbers (decimalNumbers); exact sums are read as
 *   text. A double column found for one is converted (MySQL and MariaDB convert a double through
 *   its shortest digits) when every value fits.
 */
import type { Knex } from 'knex';
import type { FieldDefinition } from '../../../kernel';
import { frag, ident, sql, type Frag } from '../fragment';
import { decimalSpec, type DecimalSpec } from '../decimal';
import { isoToZoneless, type StorageFamily } from '../values';
import { errorMessage, SqlDialect, type Executed, type IndexColumn, type SqlOptions, type UniqueViolation } from './base';

/** The part of a mysql2 Connection this dialect uses. */
interface MysqlConnection {
  query(
    options: { sql: string },
    values: readonly unknown[],
    callback: (err: Error | null, result: Array<Record<string, unknown>> | { affectedRows: number }) => void,
  ): void;
}

const TYPES: Record<Exclude<StorageFamily, 'text'>, string> = {
  number: 'double',
  decimal: 'double',
  integer: 'int',
  boolean: 'tinyint(1)',
  date: 'date',
  datetime: 'datetime(3)',
  time: 'time(3)',
  json: 'json',
};

/** Prefix length for indexes on mediumtext columns (191 × 4 bytes fits every InnoDB row format). */
const PREFIX = 191;

export class MysqlDialect extends SqlDialect {
  readonly name = 'mysql' as const;
  readonly knexClient = 'mysql2';
  override readonly maxIdentifier = 64;
  override readonly updateReturning = false;
  private collation = 'utf8mb4_bin';

  knexConfig(options: SqlOptions): Knex.Config {
    const base = typeof options.connection === 'string' ? fromUrl(options.connection) : { ...options.connection };
    return {
      client: 'mysql2',
      connection: {
        charset: 'utf8mb4',
        ...base,
        dateStrings: true,
        supportBigNumbers: true,
        decimalNumbers: true,
        timezone: 'Z',
        // JSON as text, parsed by the driver: a JSON string value would otherwise come back
        // indistinguishable from JSON text (mysql2 parses MySQL's JSON and MariaDB's json columns).
        jsonStrings: true,
      } as Knex.MySql2ConnectionConfig,
      pool: { min: 0, max: 10, ...options.pool },
    };
  }

  override async init(knex: Knex): Promise<void> {
    const [rows]: Array<Array<{ v: string }>> = await knex.raw('SELECT VERSION() AS v');
    const version = String(rows[0]?.v ?? '');
    const major = Number(/^(\d+)/.exec(version)?.[1] ?? 0);
    this.collation = /mariadb/i.test(version) ? 'utf8mb4_nopad_bin' : major >= 8 ? 'utf8mb4_0900_bin' : 'utf8mb4_bin';
  }

  columnType(family: StorageFamily, field: FieldDefinition | undefined): string {
    const spec = family === 'decimal' ? decimalSpec(field) : undefined;
    if (spec) return this.decimalType(spec);
    if (family !== 'text') return TYPES[family];
    const long = field?.type === 'textarea' || (field?.max_length !== undefined && field.max_length > 255);
    return `${long ? 'mediumtext' : 'varchar(255)'} CHARACTER SET utf8mb4 COLLATE ${this.collation}`;
  }

  override idColumnType(): string {
    return `varchar(255) CHARACTER SET utf8mb4 COLLATE ${this.collation}`;
  }

  override createTableOptions(table: Knex.CreateTableBuilder): void {
    table.charset('utf8mb4');
    table.collate(this.collation);
  }

  columnFamily(info: Knex.ColumnInfo): StorageFamily | undefined {
    const type = info.type.toLowerCase();
    if (type === 'longtext' || type === 'json') return 'json';
    if (/^(var)?char$|^(tiny|medium)?text$/.test(type)) return 'text';
    if (type === 'double' || type === 'float') return 'number';
    if (type === 'decimal') return 'decimal';
    if (type === 'tinyint') return 'boolean';
    if (/^(small|medium|big)?int$/.test(type)) return 'integer';
    if (type === 'date') return 'date';
    if (type === 'datetime' || type === 'timestamp') return 'datetime';
    if (type === 'time') return 'time';
    return undefined;
  }

  override decimalType(spec: DecimalSpec): string {
    return `decimal(${spec.precision},${spec.scale})`;
  }

  override async decimalColumns(knex: Knex, table: string): Promise<Map<string, DecimalSpec>> {
    const [rows]: Array<Array<{ name: string; precision: unknown; scale: unknown }>> = await knex.raw(
      `SELECT column_name AS name, numeric_precision AS \`precision\`, numeric_scale AS scale FROM information_schema.columns
       WHERE table_schema = DATABASE() AND table_name = ? AND data_type = 'decimal'`,
      [table],
    );
    return new Map(rows.map((r) => [r.name, { precision: Number(r.precision), scale: Number(r.scale ?? 0) }]));
  }

  override async decimalMisfits(knex: Knex, table: string, column: string, spec: DecimalSpec): Promise<number> {
    const col = ident(column);
    const bound = frag(`1e${spec.precision - spec.scale}`);
    const query = sql`SELECT COUNT(*) AS n FROM ${ident(table)} WHERE ${col} IS NOT NULL AND NOT (ABS(${col}) < ${bound} AND ${col} = ROUND(${col}, ${frag(String(spec.scale))}))`;
    const [rows]: Array<Array<{ n: unknown }>> = await knex.raw(query.sql, query.bindings as Knex.RawBinding[]);
    return Number(rows[0]?.n ?? 0);
  }

  override async alterToDecimal(knex: Knex, table: string, column: string, spec: DecimalSpec): Promise<void> {
    const statement = sql`ALTER TABLE ${ident(table)} MODIFY ${ident(column)} ${frag(this.decimalType(spec))} NULL`;
    await knex.raw(statement.sql, statement.bindings as Knex.RawBinding[]);
  }

  /** The sum as text: with decimalNumbers a DECIMAL would come back as a (rounded) JS number. */
  override exactSum(column: Frag): Frag {
    return sql`CAST(SUM(${column}) AS CHAR)`;
  }

  override position(needle: Frag, haystack: Frag): Frag {
    return sql`LOCATE(${needle}, ${haystack})`;
  }

  jsonHasElement(column: string, element: unknown): Frag {
    return sql`JSON_CONTAINS(${ident(column)}, ${JSON.stringify(element)}) = 1`;
  }

  jsonIsEmptyArray(column: string): Frag {
    const col = ident(column);
    return sql`(JSON_TYPE(${col}) = 'ARRAY' AND JSON_LENGTH(${col}) = 0)`;
  }

  async listIndexes(knex: Knex, table: string): Promise<Set<string>> {
    const [rows]: Array<Array<{ name: string }>> = await knex.raw(
      'SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ?',
      [table],
    );
    return new Set(rows.map((r) => r.name));
  }

  override createIndexSql(table: string, name: string, columns: IndexColumn[], unique: boolean): Frag | undefined {
    // JSON (longtext on MariaDB) cannot be indexed.
    if (columns.some((c) => c.family === 'json')) return undefined;
    const parts = columns.map((c) =>
      this.columnType(c.family, c.field).startsWith('mediumtext') ? sql`${ident(c.name)}(${frag(String(PREFIX))})` : ident(c.name),
    );
    const list = parts.reduce((acc, p, i) => (i === 0 ? p : sql`${acc}, ${p}`));
    return sql`CREATE ${frag(unique ? 'UNIQUE INDEX' : 'INDEX')} ${ident(name)} ON ${ident(table)} (${list})`;
  }

  uniqueViolation(err: unknown): UniqueViolation | undefined {
    const e = err as { errno?: unknown; code?: unknown; message?: unknown };
    if (e?.errno !== 1062 && e?.code !== 'ER_DUP_ENTRY') return undefined;
    // "Duplicate entry 'x' for key 'tck_item_code_unique'" (MySQL 8: 'tck_item.tck_item_code_unique').
    const key = /for key '([^']+)'/.exec(errorMessage(err))?.[1];
    return { index: key?.split('.').pop() };
  }

  override valueTooLong(err: unknown): { column?: string } | undefined {
    const e = err as { errno?: unknown; message?: unknown };
    if (e?.errno !== 1406) return undefined;
    // "Data too long for column 'name' at row 1"
    return { column: /for column '([^']+)'/.exec(errorMessage(err))?.[1] };
  }

  override encodeDateTime(iso: string): string {
    return isoToZoneless(iso);
  }

  /** query, as knex runs it: values are escaped into the text client side (no server-side prepare). */
  execute(conn: unknown, sql: string, values: readonly unknown[]): Promise<Executed> {
    return new Promise((resolve, reject) => {
      (conn as MysqlConnection).query({ sql }, values, (err, result) => {
        if (err) reject(err);
        else resolve(Array.isArray(result) ? { rows: result, changes: 0 } : { rows: [], changes: result.affectedRows });
      });
    });
  }
}

/** mysql://user:password@host:port/database → connection options. */
function fromUrl(url: string): Record<string, unknown> {
  const u = new URL(url);
  const out: Record<string, unknown> = { host: decodeURIComponent(u.hostname) || 'localhost' };
  if (u.port) out.port = Number(u.port);
  if (u.username) out.user = decodeURIComponent(u.username);
  if (u.password) out.password = decodeURIComponent(u.password);
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (database) out.database = database;
  return out;
}
