/**
 * SQLite through better-sqlite3.
 *
 * - Storage: one file, WAL mode, foreign keys off, busy_timeout. `:memory:` is served by a private
 *   temporary file removed at disconnect: an in-memory SQLite database exists per connection,
 *   and readers outside a transaction need a connection of their own to see only committed data.
 * - Concurrency: better-sqlite3 is synchronous, so a pool of two connections is enough: an open
 *   transaction holds one, everything else shares the other (WAL readers never wait). Writes and
 *   transactions queue on the file's write lock (lock.ts) instead of waiting inside SQLite.
 * - Types: SQLite keeps any value in any column; declared types give the affinity (anything
 *   containing TEXT stores text) and name the family for schema checks: 'date_text',
 *   'datetime_text' (toISOString strings, which sort chronologically), 'time_text', 'json_text',
 *   'boolean' (0 / 1), 'real', 'integer', 'text'.
 * - Text matching: case-insensitive tests run a JavaScript function registered on each connection
 *   (objectql_match), with evaluate.ts's exact semantics (Unicode case folding included), since
 *   SQLite's own LIKE and LOWER fold ASCII only.
 * - Decimal fields: SQLite has no decimal type. They are REAL (a double holds every value of up
 *   to 15 significant digits, and gives back its shortest digits) and summed exactly by a
 *   JavaScript aggregate registered on each connection (objectql_decimal_sum, docs/adr/0035).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join as joinPath } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { DecimalSum, compileLike } from '../../../kernel';
import type { FieldDefinition } from '../../../kernel';
import { frag, sql, type Frag } from '../fragment';
import { acquireFileLock, type FileLock, type WriteLock } from '../lock';
import { DEFAULT_STATEMENT_CACHE_SIZE, LruCache } from '../statement-cache';
import { scalarText, type StorageFamily } from '../values';
import { errorMessage, SqlDialect, type Executed, type SqlOptions, type TextOp, type UniqueViolation } from './base';

/** The part of a better-sqlite3 Statement this dialect uses. */
interface SqliteStatement {
  readonly reader: boolean;
  all(bindings: unknown[]): unknown[];
  run(bindings: unknown[]): { changes: number };
  raw(on: boolean): SqliteStatement;
  columns(): Array<{ name: string }>;
}

/**
 * A kept statement. A reader runs in better-sqlite3's raw mode (rows as arrays) and its records
 * are built here: better-sqlite3 builds each row object through V8's C++ API, property by
 * property, which cost 1.2 µs a row of 9 columns more than this loop (measured: 50 rows, 160 µs
 * against 100 µs).
 */
interface Kept {
  statement: SqliteStatement;
  /** A reader's column names, in the order of its row arrays. */
  columns?: string[];
}

function records(columns: string[], rows: unknown[][]): Array<Record<string, unknown>> {
  const out = new Array<Record<string, unknown>>(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const record: Record<string, unknown> = {};
    for (let c = 0; c < columns.length; c++) record[columns[c]] = row[c];
    out[r] = record;
  }
  return out;
}

/** The part of a better-sqlite3 Database this dialect uses. */
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  pragma(source: string): unknown;
  function(name: string, options: { deterministic: boolean }, fn: (...args: unknown[]) => unknown): unknown;
  aggregate(
    name: string,
    options: {
      deterministic: boolean;
      start: () => DecimalSum;
      step: (sum: DecimalSum, value: unknown) => DecimalSum;
      result: (sum: DecimalSum) => string | null;
    },
  ): unknown;
}

const TYPES: Record<StorageFamily, string> = {
  text: 'text',
  number: 'real',
  decimal: 'real',
  integer: 'integer',
  boolean: 'boolean',
  date: 'date_text',
  datetime: 'datetime_text',
  time: 'time_text',
  json: 'json_text',
};

/** Lists longer than this are bound as one JSON value. */
const LONG_LIST = 500;

export class SqliteDialect extends SqlDialect {
  readonly name = 'sqlite' as const;
  readonly knexClient = 'better-sqlite3';
  // SQLite (3.53, better-sqlite3 12) reads a value bound to LIMIT or OFFSET while planning, so binding one
  // again expires the prepared statement: each run would prepare it anew.
  override readonly literalPaging = true;
  private file = '';
  private temporary = false;
  private lock: FileLock | undefined;
  private readonly likeCache = new Map<string, (value: string) => boolean>();
  /** Each connection's prepared statements by SQL text (a statement belongs to its connection). */
  private readonly prepared = new WeakMap<SqliteConnection, LruCache<string, Kept>>();
  private preparedLimit = DEFAULT_STATEMENT_CACHE_SIZE;

  knexConfig(options: SqlOptions): Knex.Config {
    // parseSqlConfig makes a SQLite connection its file path.
    if (typeof options.connection !== 'string') throw new Error('sql: a SQLite connection is a file path');
    const target = options.connection;
    this.temporary = target === ':memory:';
    this.file = this.temporary ? joinPath(tmpdir(), `objectql-${randomUUID()}.sqlite`) : target;
    if (!this.temporary) mkdirSync(dirname(this.file), { recursive: true });
    this.lock = acquireFileLock(this.file);
    this.preparedLimit = options.statementCacheSize ?? DEFAULT_STATEMENT_CACHE_SIZE;
    return {
      client: 'better-sqlite3',
      connection: { filename: this.file },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 2,
        ...options.pool,
        afterCreate: (conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) => {
          try {
            this.prepare(conn);
            done(null, conn);
          } catch (err) {
            done(err as Error, conn);
          }
        },
      },
    };
  }

  private prepare(conn: SqliteConnection): void {
    conn.pragma('busy_timeout = 5000');
    conn.pragma('journal_mode = WAL');
    conn.pragma('synchronous = NORMAL');
    conn.pragma('foreign_keys = OFF');
    conn.function('objectql_match', { deterministic: true }, (op, value, arg) => {
      if (value === null || value === undefined || arg === null || arg === undefined) return null;
      return this.match(scalarText(op), scalarText(value), scalarText(arg)) ? 1 : 0;
    });
    conn.aggregate('objectql_decimal_sum', {
      deterministic: true,
      start: () => new DecimalSum(),
      step: (sum, value) => {
        sum.add(value);
        return sum;
      },
      result: (sum) => sum.value ?? null,
    });
  }

  /** evaluate.ts's text operators. */
  private match(op: string, value: string, arg: string): boolean {
    switch (op) {
      case 'like': {
        let test = this.likeCache.get(arg);
        if (!test) {
          if (this.likeCache.size >= 256) this.likeCache.clear();
          test = compileLike(arg);
          this.likeCache.set(arg, test);
        }
        return test(value);
      }
      case 'contains':
        return value.toLowerCase().includes(arg.toLowerCase());
      case 'startswith':
        return value.toLowerCase().startsWith(arg.toLowerCase());
      case 'endswith':
        return value.toLowerCase().endsWith(arg.toLowerCase());
      default:
        return false;
    }
  }

  override close(): Promise<void> {
    // Synchronous work; a failure rejects the promise, as the contract wants.
    return new Promise((resolve) => {
      this.lock?.release();
      this.lock = undefined;
      if (this.temporary) {
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${this.file}${suffix}`, { force: true });
      }
      resolve();
    });
  }

  override readonly rowLocks = false;

  override writeLock(): WriteLock | undefined {
    return this.lock?.lock;
  }

  /** The database file (a temporary one for ':memory:'). */
  get filename(): string {
    return this.file;
  }

  columnType(family: StorageFamily, _field: FieldDefinition | undefined): string {
    return TYPES[family];
  }

  columnFamily(info: Knex.ColumnInfo): StorageFamily | undefined {
    const type = info.type.toLowerCase();
    if (type.includes('json')) return 'json';
    if (type.includes('datetime') || type.includes('timestamp')) return 'datetime';
    if (type.includes('date')) return 'date';
    if (type.includes('time')) return 'time';
    if (type.includes('bool')) return 'boolean';
    if (type.includes('int')) return 'integer';
    if (/real|doub|floa|num|dec/.test(type)) return 'number';
    if (/char|clob|text/.test(type)) return 'text';
    return undefined;
  }

  override position(needle: Frag, haystack: Frag): Frag {
    return sql`INSTR(${haystack}, ${needle})`;
  }

  /** SQLite's SUM adds doubles: the registered aggregate adds their decimal digits exactly. */
  override exactSum(column: Frag): Frag {
    return sql`objectql_decimal_sum(${column})`;
  }

  /** SQLite's LENGTH counts the characters of a text value (CHAR_LENGTH does not exist). */
  override charLength(expr: Frag): Frag {
    return sql`LENGTH(${expr})`;
  }

  override textMatch(op: TextOp, column: Frag, value: string): Frag {
    return sql`objectql_match(${op}, ${column}, ${value}) = 1`;
  }

  override textMatchRef(op: Exclude<TextOp, 'like'>, a: Frag, b: Frag): Frag {
    return sql`objectql_match(${op}, ${a}, ${b}) = 1`;
  }

  /** Long lists go in as one JSON array: SQLite binds at most 32766 parameters. */
  override inList(column: Frag, values: unknown[]): Frag {
    if (values.length <= LONG_LIST) return super.inList(column, values);
    return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
  }

  override jsonHasAny(column: string, elements: unknown[]): Frag {
    if (elements.length === 1) return this.jsonHasElement(column, elements[0]);
    return sql`EXISTS (SELECT 1 FROM json_each(${frag('??', [column])}) AS je WHERE je.value IN (SELECT value FROM json_each(${JSON.stringify(elements)})))`;
  }

  jsonHasElement(column: string, element: unknown): Frag {
    return sql`EXISTS (SELECT 1 FROM json_each(${frag('??', [column])}) AS je WHERE je.value = ${element})`;
  }

  jsonIsEmptyArray(column: string): Frag {
    const col = frag('??', [column]);
    return sql`(json_type(${col}) = 'array' AND json_array_length(${col}) = 0)`;
  }

  async listIndexes(knex: Knex, table: string): Promise<Set<string>> {
    const rows: Array<{ name: string }> = await knex.raw("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", [table]);
    return new Set(rows.map((r) => r.name));
  }

  uniqueViolation(err: unknown): UniqueViolation | undefined {
    const e = err as { code?: unknown; message?: unknown };
    if (e?.code !== 'SQLITE_CONSTRAINT_UNIQUE' && e?.code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return undefined;
    // "UNIQUE constraint failed: tck_owner.org, tck_owner.email"
    const list = /constraint failed: (.+)$/.exec(errorMessage(err))?.[1] ?? '';
    return {
      columns: list
        .split(',')
        .map((part) => part.trim().split('.').pop() ?? '')
        .filter(Boolean),
    };
  }

  override encodeBoolean(value: boolean): unknown {
    return value ? 1 : 0;
  }

  /** better-sqlite3 runs synchronously; the statement is prepared once per connection and SQL text. */
  execute(conn: unknown, sql: string, bindings: readonly unknown[]): Promise<Executed> {
    return new Promise((resolve) => {
      const { statement, columns } = this.statement(conn as SqliteConnection, sql);
      // Dates and booleans as knex's better-sqlite3 client binds them.
      const values = bindings.map((b) => (b instanceof Date ? b.valueOf() : typeof b === 'boolean' ? Number(b) : b));
      resolve(
        columns
          ? { rows: records(columns, statement.all(values) as unknown[][]), changes: 0 }
          : { rows: [], changes: statement.run(values).changes },
      );
    });
  }

  private statement(conn: SqliteConnection, sql: string): Kept {
    let statements = this.prepared.get(conn);
    if (!statements) {
      statements = new LruCache(this.preparedLimit);
      this.prepared.set(conn, statements);
    }
    let kept = statements.get(sql);
    if (!kept) {
      const statement = conn.prepare(sql);
      kept = statement.reader ? { statement: statement.raw(true), columns: statement.columns().map((c) => c.name) } : { statement };
      statements.set(sql, kept);
    }
    return kept;
  }
}
