/**
 * What differs between SQL engines, knex-style: one subclass per engine overrides this small,
 * documented set of methods; everything else (filters, sorting, aggregation, schema sync, error
 * mapping) is written once against it.
 *
 *  1. connection   knexConfig, init, close, writeLock
 *  2. column types columnType, idColumnType, columnFamily, createTableOptions; decimalType,
 *                  decimalColumns, decimalMisfits, alterToDecimal (decimal fields, decimal.ts)
 *  3. text matching lower, position, textMatch (case-insensitive like / contains / startswith / endswith),
 *                  charLength (length in characters, for the `length` filter function)
 *  4. lists        inList, jsonHasElement, jsonHasAny, jsonIsEmptyArray (`in`, and membership
 *                  on `multiple` fields; engines with a bound-parameter limit bind long lists as one value)
 *  5. sorting      orderBy (nulls first ascending, last descending)
 *  6. indexes      listIndexes, createIndexSql
 *  7. errors       uniqueViolation (which index or columns a unique violation names),
 *                  valueTooLong (a value wider than its column), connectionLost (the
 *                  connection died under the statement)
 *  8. values       encodeBoolean, encodeDateTime
 *  9. aggregation  exactSum (the exact decimal sum of a decimal column, as text or a number)
 * 10. execution    execute (one statement on a raw pooled connection, as knex's client would run it)
 */
import type { Knex } from 'knex';
import type { FieldDefinition, SortDirection } from '../../../kernel';
import { frag, ident, join, sql, type Frag } from '../fragment';
import type { DecimalSpec } from '../decimal';
import type { WriteLock } from '../lock';
import type { StorageFamily } from '../values';

export type DialectName = 'sqlite' | 'postgres' | 'mysql';
export type TextOp = 'like' | 'contains' | 'startswith' | 'endswith';

/** Validated datasource options (see config.ts). */
export interface SqlOptions {
  client: string;
  /** SQLite: an absolute path or ':memory:'; others: a URL or a connection object. */
  connection: string | Record<string, unknown>;
  pool?: Record<string, unknown>;
  searchPath?: string[];
  /** Compiled statements kept per datasource, and prepared ones per connection (statements.ts). */
  statementCacheSize?: number;
}

/** What a statement gave: the rows of a query, the rows a write changed. */
export interface Executed {
  rows: Array<Record<string, unknown>>;
  changes: number;
}

/** The message of an error a database client threw ('' when it has none). */
export function errorMessage(err: unknown): string {
  const message = (err as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : '';
}

/** A unique violation as the engine reports it: the index name, or the columns. */
export interface UniqueViolation {
  index?: string;
  columns?: string[];
}

export interface IndexColumn {
  name: string;
  family: StorageFamily;
  field: FieldDefinition | undefined;
}

export abstract class SqlDialect {
  abstract readonly name: DialectName;
  /** The knex client that drives this engine. */
  abstract readonly knexClient: string;
  /** Longest identifier the engine keeps (index names are shortened to fit). */
  readonly maxIdentifier: number = 63;
  /**
   * Whether a kept statement writes its LIMIT and OFFSET as literals rather than binding them
   * (statements.ts): true where binding them again makes the engine prepare the statement again.
   */
  readonly literalPaging: boolean = false;

  // ---- 1. connection ------------------------------------------------------------------------

  /** The knex configuration for these options; `native` is the loaded client module. */
  abstract knexConfig(options: SqlOptions, native: unknown): Knex.Config;

  /** Runs once after connecting (probe the server's version and features). */
  async init(_knex: Knex): Promise<void> {}

  /** Runs after the pool is destroyed (remove temporary files, release locks). */
  async close(): Promise<void> {}

  /**
   * The statement that opens a transaction. `durable: false` (TransactionOptions) lets an engine
   * that can commit without waiting for its disk do so; the others begin as usual.
   */
  begin(_durable: boolean): string {
    return 'BEGIN';
  }

  /** Whether SELECT ... FOR UPDATE [SKIP LOCKED] works: not on SQLite, whose transactions run one at a time. */
  readonly rowLocks: boolean = true;

  /** Whether UPDATE ... RETURNING gives back the updated rows (not on MariaDB or MySQL). */
  readonly updateReturning: boolean = true;

  /** A lock every write and transaction takes, for engines with a single writer (SQLite). */
  writeLock(): WriteLock | undefined {
    return undefined;
  }

  // ---- 2. column types ----------------------------------------------------------------------

  /** The column type (for knex specificType) storing a field of this family. */
  abstract columnType(family: StorageFamily, field: FieldDefinition | undefined): string;

  /** The family an existing column can hold, from its introspected type; undefined when unknown. */
  abstract columnFamily(info: Knex.ColumnInfo): StorageFamily | undefined;

  /**
   * The exact decimal column type for a decimal field; undefined where the engine has none (the
   * field is then stored as a number and only summed exactly, see exactSum).
   */
  decimalType(_spec: DecimalSpec): string | undefined {
    return undefined;
  }

  /** A table's exact decimal columns with their precision and scale (unconstrained ones left out). */
  decimalColumns(_knex: Knex, _table: string): Promise<Map<string, DecimalSpec>> {
    return Promise.resolve(new Map<string, DecimalSpec>());
  }

  /** How many stored values of a column a decimal column of this spec could not hold exactly. */
  decimalMisfits(_knex: Knex, _table: string, _column: string, _spec: DecimalSpec): Promise<number> {
    return Promise.resolve(0);
  }

  /** Converts a column to the decimal type of this spec, keeping each value's decimal digits (decimalMisfits is 0). */
  async alterToDecimal(_knex: Knex, _table: string, _column: string, _spec: DecimalSpec): Promise<void> {}

  /** The type of the `id` primary key column. */
  idColumnType(): string {
    return 'varchar(255)';
  }

  /** Table-level options at creation (charset, collation). */
  createTableOptions(_table: Knex.CreateTableBuilder): void {}

  // ---- 3. case-insensitive text matching ----------------------------------------------------

  /** Lower-cases a text expression, Unicode-aware where the engine can. */
  lower(expr: Frag): Frag {
    return sql`LOWER(${expr})`;
  }

  /** The length of a text expression in characters (Unicode code points); NULL for NULL. */
  charLength(expr: Frag): Frag {
    return sql`CHAR_LENGTH(${expr})`;
  }

  /** Position (1-based, 0 when absent) of needle in haystack. */
  position(needle: Frag, haystack: Frag): Frag {
    return sql`POSITION(${needle} IN ${haystack})`;
  }

  /**
   * A case-insensitive text test of a non-null column against a literal. `like` takes the
   * pattern already canonicalised (see filter-sql.ts: `%`, `_`, and `\` escaping `%`, `_`, `\`);
   * the other three take the value literally.
   */
  textMatch(op: TextOp, column: Frag, value: string): Frag {
    return sql`${this.lower(column)} LIKE ${this.lower(frag('?', [likePattern(op, value)]))}`;
  }

  /** The same test against another column (a field reference); both sides non-null. */
  textMatchRef(op: Exclude<TextOp, 'like'>, a: Frag, b: Frag): Frag {
    const la = this.lower(a);
    const lb = this.lower(b);
    if (op === 'contains') return sql`${this.position(lb, la)} > 0`;
    const len = sql`CHAR_LENGTH(${lb})`;
    return op === 'startswith' ? sql`LEFT(${la}, ${len}) = ${lb}` : sql`RIGHT(${la}, ${len}) = ${lb}`;
  }

  // ---- 4. lists ------------------------------------------------------------------------------

  /** `column IN (values)` for a non-empty list of non-null, encoded values. */
  inList(column: Frag, values: unknown[]): Frag {
    return sql`${column} IN (${frag(values.map(() => '?').join(', '), values)})`;
  }

  /** True when the JSON array in `column` has an element among `elements` (a non-empty list). */
  jsonHasAny(column: string, elements: unknown[]): Frag {
    return join(
      elements.map((e) => this.jsonHasElement(column, e)),
      'OR',
      true,
    );
  }

  /** True when the JSON array in `column` (qualified `table.column`) has an element equal to `element`. */
  abstract jsonHasElement(column: string, element: unknown): Frag;

  /** True when the (non-null) JSON value in `column` is an empty array. */
  abstract jsonIsEmptyArray(column: string): Frag;

  // ---- 5. sorting ---------------------------------------------------------------------------

  /**
   * An ORDER BY term: nulls first ascending, last descending (the default where nulls sort
   * lowest). `nullable` false: the column holds no nulls, whatever the clause.
   */
  orderBy(expr: Frag, dir: SortDirection, _nullable = true): Frag {
    return sql`${expr} ${frag(dir === 'desc' ? 'DESC' : 'ASC')}`;
  }

  // ---- 6. indexes ---------------------------------------------------------------------------

  /** Names of the indexes on a table. */
  abstract listIndexes(knex: Knex, table: string): Promise<Set<string>>;

  /** CREATE INDEX for these columns, or undefined when the engine cannot index them. */
  createIndexSql(table: string, name: string, columns: IndexColumn[], unique: boolean): Frag | undefined {
    const list = frag(
      columns.map(() => '??').join(', '),
      columns.map((c) => c.name),
    );
    return sql`CREATE ${frag(unique ? 'UNIQUE INDEX' : 'INDEX')} ${ident(name)} ON ${ident(table)} (${list})`;
  }

  // ---- 7. errors ----------------------------------------------------------------------------

  /** The index or columns a unique violation names; undefined when the error is something else. */
  abstract uniqueViolation(err: unknown): UniqueViolation | undefined;

  /** The column a too-long value was refused for ({} when the engine does not say); undefined otherwise. */
  valueTooLong(_err: unknown): { column?: string } | undefined {
    return undefined;
  }

  /**
   * True when the statement failed because its connection was gone (terminated by the server,
   * reset): the pool drops that connection, and a read may be retried on another one.
   */
  connectionLost(err: unknown): boolean {
    const e = err as { code?: unknown } | null | undefined;
    if (typeof e?.code === 'string' && LOST_CODES.has(e.code)) return true;
    return /connection (terminated|lost|ended)|not queryable|server closed the connection/i.test(errorMessage(err));
  }

  // ---- 8. values ----------------------------------------------------------------------------

  encodeBoolean(value: boolean): unknown {
    return value;
  }

  /** A datetime (toISOString form) as bound into SQL. */
  encodeDateTime(iso: string): string {
    return iso;
  }

  // ---- 9. aggregation -----------------------------------------------------------------------

  /** The exact sum of a decimal column, as a decimal string or a number the driver converts (NULL over no values). */
  exactSum(column: Frag): Frag {
    return sql`SUM(${column})`;
  }

  // ---- 10. execution ------------------------------------------------------------------------

  /**
   * Runs one statement (native placeholders, knex's toNative form) on a raw connection of the
   * pool, binding values as the engine's knex client would. A connection's `query` may be the
   * connection guard's wrapper: go through it. `kept`: the SQL is a kept statement's
   * (statements.ts), run again and again, so worth preparing where the engine can.
   */
  abstract execute(conn: unknown, sql: string, bindings: readonly unknown[], kept?: boolean): Promise<Executed>;
}

/** Error codes of a connection that died: node's socket errors, pg's SQLSTATEs, mysql2's. */
const LOST_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  'PROTOCOL_CONNECTION_LOST',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
]);

/** Escapes `%`, `_` and `\` so a value matches literally inside a LIKE pattern (escape character `\`). */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The LIKE pattern for a text operator; `like` patterns pass through (already canonical). */
export function likePattern(op: TextOp, value: string): string {
  switch (op) {
    case 'contains':
      return `%${escapeLike(value)}%`;
    case 'startswith':
      return `${escapeLike(value)}%`;
    case 'endswith':
      return `%${escapeLike(value)}`;
    default:
      return value;
  }
}
