/**
 * PostgreSQL through pg.
 *
 * - Text columns use COLLATE "C": equality, ordering, min/max and unique indexes compare by code
 *   point, as evaluate.ts compares strings, whatever the database's default collation.
 * - Case-insensitive tests use ILIKE under the ICU root collation ("und-x-icu") when the server
 *   has it, so non-ASCII letters fold too; without ICU they fold per the database's default
 *   collation (ASCII only under C).
 * - dates come back as 'YYYY-MM-DD' strings and json / jsonb as text the driver parses (a JSON
 *   string value would otherwise be indistinguishable from JSON text): type parsers on this pool's
 *   clients only, never pg's global ones. timestamptz(3) comes back as Dates → toISOString().
 * - ORDER BY says NULLS FIRST / NULLS LAST: PostgreSQL sorts nulls as the largest values. B-tree
 *   indexes are made ASC NULLS FIRST to match, so that they serve these sorts in both directions
 *   (a default index serves neither); a column that is never null (id) sorts without the clause
 *   so its primary key index serves it.
 * - Decimal fields are numeric(p, s), read back as decimal strings and turned into numbers. A
 *   double precision column found for one is converted through its shortest text form (exact: the
 *   digits the driver would have written) when every value fits.
 */
import type { Knex } from 'knex';
import type { FieldDefinition, SortDirection } from '../../../kernel';
import { frag, ident, sql, type Frag } from '../fragment';
import { DEFAULT_STATEMENT_CACHE_SIZE } from '../statement-cache';
import { decimalSpec, type DecimalSpec } from '../decimal';
import type { StorageFamily } from '../values';
import { SqlDialect, likePattern, type Executed, type IndexColumn, type SqlOptions, type TextOp, type UniqueViolation } from './base';

/** The part of a pg Client this dialect uses. */
interface PgConnection {
  query(
    config: { name?: string; text: string; values?: readonly unknown[] },
    callback: (err: Error | null, result: { rows: Array<Record<string, unknown>>; rowCount: number | null }) => void,
  ): void;
  /** pg's record of the statements this connection prepared (name → text). */
  connection?: { parsedStatements?: Record<string, string> };
  /** Set while the connection runs a transaction (SqlDatasource.transaction). */
  __knexTxId?: string;
}

interface PgModule {
  types: { getTypeParser(oid: number, format?: string): (value: string) => unknown };
}

const DATE_OID = 1082;
const JSON_OIDS = new Set([114, 3802]);
const ICU_ROOT = 'und-x-icu';
/** Lists longer than this are bound as one array parameter. */
const LONG_LIST = 1000;

const TYPES: Record<StorageFamily, string> = {
  text: 'text COLLATE "C"',
  number: 'double precision',
  decimal: 'numeric',
  integer: 'integer',
  boolean: 'boolean',
  date: 'date',
  datetime: 'timestamptz(3)',
  time: 'time(3)',
  json: 'jsonb',
};

export class PostgresDialect extends SqlDialect {
  readonly name = 'postgres' as const;
  readonly knexClient = 'pg';
  private icu = false;
  /** Each connection's named statements by SQL text (a prepared statement belongs to its connection). */
  private readonly prepared = new WeakMap<PgConnection, Map<string, string>>();
  private preparedLimit = DEFAULT_STATEMENT_CACHE_SIZE;
  /** Statements named so far: a name is never given to another text. */
  private named = 0;

  knexConfig(options: SqlOptions, native: unknown): Knex.Config {
    const pg = native as PgModule;
    const base = typeof options.connection === 'string' ? { connectionString: options.connection } : { ...options.connection };
    const types = {
      getTypeParser: (oid: number, format?: string) =>
        oid === DATE_OID || JSON_OIDS.has(oid) ? (v: string) => v : pg.types.getTypeParser(oid, format),
    };
    this.preparedLimit = options.statementCacheSize ?? DEFAULT_STATEMENT_CACHE_SIZE;
    return {
      client: 'pg',
      connection: { ...base, types },
      searchPath: options.searchPath,
      pool: { min: 0, max: 10, ...options.pool },
    };
  }

  override async init(knex: Knex): Promise<void> {
    const result: { rows: Array<{ icu: boolean }> } = await knex.raw(
      'SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collname = ?) AS icu',
      [ICU_ROOT],
    );
    this.icu = Boolean(result.rows[0]?.icu);
  }

  columnType(family: StorageFamily, field: FieldDefinition | undefined): string {
    const spec = family === 'decimal' ? decimalSpec(field) : undefined;
    if (spec) return this.decimalType(spec);
    if (family === 'text' && field && ['select', 'lookup', 'master_detail'].includes(field.type)) return 'varchar(255) COLLATE "C"';
    return TYPES[family];
  }

  override idColumnType(): string {
    return 'varchar(255) COLLATE "C"';
  }

  columnFamily(info: Knex.ColumnInfo): StorageFamily | undefined {
    const type = info.type.toLowerCase();
    if (type === 'text' || type.startsWith('character')) return 'text';
    if (type === 'double precision' || type === 'real') return 'number';
    if (type === 'numeric') return 'decimal';
    if (type === 'integer' || type === 'bigint' || type === 'smallint') return 'integer';
    if (type === 'boolean') return 'boolean';
    if (type === 'date') return 'date';
    if (type.startsWith('timestamp')) return 'datetime';
    if (type.startsWith('time')) return 'time';
    if (type === 'jsonb' || type === 'json') return 'json';
    return undefined;
  }

  override decimalType(spec: DecimalSpec): string {
    return `numeric(${spec.precision}, ${spec.scale})`;
  }

  override async decimalColumns(knex: Knex, table: string): Promise<Map<string, DecimalSpec>> {
    const result: { rows: Array<{ name: string; precision: number | null; scale: number | null }> } = await knex.raw(
      `SELECT column_name AS name, numeric_precision AS precision, numeric_scale AS scale FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = ? AND data_type = 'numeric' AND numeric_precision IS NOT NULL`,
      [table],
    );
    return new Map(result.rows.map((r) => [r.name, { precision: Number(r.precision), scale: Number(r.scale ?? 0) }]));
  }

  override async decimalMisfits(knex: Knex, table: string, column: string, spec: DecimalSpec): Promise<number> {
    // A value fits when it is finite, small enough, has at most `scale` decimals in its text form,
    // and that text reads back as the same value (before PostgreSQL 12 text was not always exact).
    const col = ident(column);
    const exact = sql`CAST(CAST(${col} AS text) AS numeric)`;
    const bound = frag(`1e${spec.precision - spec.scale}`);
    const misfit = sql`CASE WHEN abs(${col}) < ${bound} THEN ${exact} <> round(${exact}, ${frag(String(spec.scale))}) OR CAST(${exact} AS double precision) <> ${col} ELSE true END`;
    const query = sql`SELECT COUNT(*) AS n FROM ${ident(table)} WHERE ${col} IS NOT NULL AND (${misfit})`;
    return knex.transaction(async (trx) => {
      await trx.raw('SET LOCAL extra_float_digits = 1');
      const result: { rows: Array<{ n: unknown }> } = await trx.raw(query.sql, query.bindings as Knex.RawBinding[]);
      return Number(result.rows[0]?.n ?? 0);
    });
  }

  override async alterToDecimal(knex: Knex, table: string, column: string, spec: DecimalSpec): Promise<void> {
    const col = ident(column);
    const statement = sql`ALTER TABLE ${ident(table)} ALTER COLUMN ${col} TYPE ${frag(this.decimalType(spec))} USING CAST(CAST(${col} AS text) AS numeric)`;
    await knex.transaction(async (trx) => {
      // Shortest exact text for doubles (the default since PostgreSQL 12, set in case the server's differs).
      await trx.raw('SET LOCAL extra_float_digits = 1');
      await trx.raw(statement.sql, statement.bindings as Knex.RawBinding[]);
    });
  }

  private collate(expr: Frag): Frag {
    return this.icu ? sql`(${expr} COLLATE ${frag(`"${ICU_ROOT}"`)})` : expr;
  }

  override lower(expr: Frag): Frag {
    return sql`LOWER(${this.collate(expr)})`;
  }

  override position(needle: Frag, haystack: Frag): Frag {
    return sql`STRPOS(${haystack}, ${needle})`;
  }

  override textMatch(op: TextOp, column: Frag, value: string): Frag {
    return sql`${column} ILIKE ${this.collate(frag('?', [likePattern(op, value)]))}`;
  }

  /** Long lists go in as one array parameter: PostgreSQL binds at most 65535 parameters. */
  override inList(column: Frag, values: unknown[]): Frag {
    if (values.length <= LONG_LIST) return super.inList(column, values);
    // pg turns what toPostgres returns into an array literal; knex would spread a plain array.
    return sql`${column} = ANY(${{ toPostgres: () => values }})`;
  }

  override jsonHasAny(column: string, elements: unknown[]): Frag {
    // A few elements: @> tests a GIN index can serve; many: one jsonb array parameter.
    if (elements.length <= 20) return super.jsonHasAny(column, elements);
    return sql`EXISTS (SELECT 1 FROM jsonb_array_elements(${ident(column)}) AS el WHERE el.value IN (SELECT jsonb_array_elements(CAST(${JSON.stringify(elements)} AS jsonb))))`;
  }

  jsonHasElement(column: string, element: unknown): Frag {
    return sql`${ident(column)} @> CAST(${JSON.stringify([element])} AS jsonb)`;
  }

  jsonIsEmptyArray(column: string): Frag {
    return sql`${ident(column)} = CAST('[]' AS jsonb)`;
  }

  override orderBy(expr: Frag, dir: SortDirection, nullable = true): Frag {
    if (!nullable) return super.orderBy(expr, dir);
    return sql`${expr} ${frag(dir === 'desc' ? 'DESC NULLS LAST' : 'ASC NULLS FIRST')}`;
  }

  async listIndexes(knex: Knex, table: string): Promise<Set<string>> {
    const result: { rows: Array<{ indexname: string }> } = await knex.raw(
      'SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ?',
      [table],
    );
    return new Set(result.rows.map((r) => r.indexname));
  }

  override createIndexSql(table: string, name: string, columns: IndexColumn[], unique: boolean): Frag | undefined {
    // A GIN index serves the @> membership tests on a multiple field.
    if (!unique && columns.length === 1 && columns[0].family === 'json') {
      return sql`CREATE INDEX ${ident(name)} ON ${ident(table)} USING GIN (${ident(columns[0].name)})`;
    }
    const list = frag(
      columns.map(() => '?? ASC NULLS FIRST').join(', '),
      columns.map((c) => c.name),
    );
    return sql`CREATE ${frag(unique ? 'UNIQUE INDEX' : 'INDEX')} ${ident(name)} ON ${ident(table)} (${list})`;
  }

  override valueTooLong(err: unknown): { column?: string } | undefined {
    // string_data_right_truncation: a varchar(255) column (select, lookup, id); no column named.
    return (err as { code?: unknown })?.code === '22001' ? {} : undefined;
  }

  /** One round trip either way: a simple query may hold both statements. */
  override begin(durable: boolean): string {
    return durable ? 'BEGIN' : 'BEGIN; SET LOCAL synchronous_commit TO OFF';
  }

  /**
   * A kept statement (statements.ts) runs as a named prepared statement: the server parses and
   * plans it once per connection, and each run sends only its values.
   */
  async execute(conn: unknown, text: string, values: readonly unknown[], kept = false): Promise<Executed> {
    const client = conn as PgConnection;
    const name = kept ? await this.statementName(client, text) : undefined;
    return new Promise((resolve, reject) => {
      client.query(name ? { name, text, values } : { text, values }, (err, result) =>
        err ? reject(err) : resolve({ rows: result.rows, changes: result.rowCount ?? 0 }),
      );
    });
  }

  /**
   * The name of `text`'s prepared statement on this connection; undefined to run it unnamed. A
   * connection keeps at most statementCacheSize of them: past that, outside a transaction, they are
   * all deallocated and the count starts again.
   */
  private async statementName(conn: PgConnection, text: string): Promise<string | undefined> {
    if (this.preparedLimit <= 0) return undefined;
    let names = this.prepared.get(conn);
    if (!names) {
      names = new Map();
      this.prepared.set(conn, names);
    }
    const known = names.get(text);
    if (known !== undefined) return known;
    if (names.size >= this.preparedLimit) {
      if (conn.__knexTxId !== undefined) return undefined;
      await new Promise<void>((resolve, reject) => conn.query({ text: 'DEALLOCATE ALL' }, (err) => (err ? reject(err) : resolve())));
      names.clear();
      if (conn.connection?.parsedStatements) conn.connection.parsedStatements = {};
    }
    const name = `objectql_${++this.named}`;
    names.set(text, name);
    return name;
  }

  uniqueViolation(err: unknown): UniqueViolation | undefined {
    const e = err as { code?: unknown; constraint?: unknown };
    if (e?.code !== '23505') return undefined;
    return { index: typeof e.constraint === 'string' ? e.constraint : undefined };
  }
}
