/**
 * Runs statements without paying knex per request. The first query of a shape (shape.ts) is
 * built by knex from probes, unique stand-ins for its values: the SQL knex writes is kept, and
 * where each probe lands among knex's bindings says which value goes where. Later queries of the
 * shape bind their values into that SQL directly. A shape whose probes knex does not pass through
 * one for one (it added, dropped or changed a binding) is remembered as such and always built by
 * knex. Either way the statement runs on a connection of knex's pool (a transaction's own
 * connection inside one) through the dialect's execute, which reuses prepared statements where
 * the engine has them.
 */
import type { Knex } from 'knex';
import type { Executed, SqlDialect } from './dialects/base';
import type { Db } from './query-sql';
import type { Shape, SlotKind } from './shape';
import { LruCache } from './statement-cache';

/** The SQL of a shape and, per binding, the index of the value it takes. */
interface Compiled {
  /** The SQL, cut where a literal LIMIT or OFFSET goes (SqlDialect.literalPaging): one piece more than `literals`. */
  pieces: string[];
  /** Per literal, the index of the value written there. */
  literals: number[];
  positions: number[];
}

/** Marks a shape knex does not compile value for value. */
const BY_KNEX = 'knex';

/** A connection of knex's pool, with the markers knex's query events carry. */
interface PooledConnection {
  __knexUid?: string;
  __knexTxId?: string;
}

export class Statements {
  private readonly cache: LruCache<string, Compiled | typeof BY_KNEX>;
  /** Shapes compiled by knex (misses), for tests and diagnostics. */
  compiled = 0;

  constructor(
    private readonly dialect: SqlDialect,
    size: number,
  ) {
    this.cache = new LruCache(size);
  }

  get size(): number {
    return this.cache.size;
  }

  async run(db: Db, shape: Shape): Promise<Executed> {
    const { sql, bindings, kept } = this.statement(shape);
    return this.execute(db, sql, bindings, kept);
  }

  private statement(shape: Shape): { sql: string; bindings: unknown[]; kept: boolean } {
    if (shape.cacheable && this.cache.limit > 0) {
      let compiled = this.cache.get(shape.key);
      if (compiled === undefined) {
        compiled = this.compile(shape);
        this.cache.set(shape.key, compiled);
      }
      if (compiled !== BY_KNEX) {
        return { sql: sqlOf(compiled, shape.values), bindings: compiled.positions.map((i) => shape.values[i]), kept: true };
      }
    }
    const native = shape.build(shape.values).toSQL().toNative();
    return { sql: native.sql, bindings: [...native.bindings], kept: false };
  }

  private compile(shape: Shape): Compiled | typeof BY_KNEX {
    this.compiled++;
    const probes = shape.kinds.map((kind, i) => (kind === 'int' ? PROBE_INT + i : `\u0000objectql-probe-${i}\u0000`));
    const index = new Map<unknown, number>(probes.map((p, i) => [p, i]));
    const native = shape.build(probes).toSQL().toNative();
    const positions: number[] = [];
    for (const binding of native.bindings) {
      const i = index.get(binding);
      if (i === undefined) return BY_KNEX;
      positions.push(i);
    }
    if (new Set(positions).size !== probes.length) return BY_KNEX;
    return this.dialect.literalPaging
      ? withLiterals(native.sql, positions, shape.kinds)
      : { pieces: [native.sql], literals: [], positions };
  }

  /** A statement without values (BEGIN, COMMIT, ROLLBACK) on a connection the caller holds. */
  async raw(db: Db, conn: unknown, sql: string): Promise<void> {
    await this.runOn(db.client as Knex.Client, conn as PooledConnection, sql, [], false);
  }

  private async execute(db: Db, sql: string, bindings: unknown[], kept: boolean): Promise<Executed> {
    // A transaction's db hands out the transaction's connection (SqlDatasource.transaction).
    const client = db.client as Knex.Client;
    const conn = (await client.acquireConnection()) as PooledConnection;
    try {
      return await this.runOn(client, conn, sql, bindings, kept);
    } finally {
      await client.releaseConnection(conn);
    }
  }

  private async runOn(client: Knex.Client, conn: PooledConnection, sql: string, bindings: unknown[], kept: boolean): Promise<Executed> {
    // knex's query events, as its runner sends them (listeners log or inspect statements).
    const query = { __knexUid: conn.__knexUid, __knexTxId: conn.__knexTxId, sql, bindings };
    client.emit('query', query);
    try {
      return await this.dialect.execute(conn, sql, bindings, kept);
    } catch (err) {
      // As knex does: the log then shows which statement failed.
      if (err instanceof Error) err.message = `${sql} - ${err.message}`;
      client.emit('query-error', err, query);
      throw err;
    }
  }
}

/** The SQL of a compiled shape for these values: its pieces joined by its literal integers. */
function sqlOf(compiled: Compiled, values: readonly unknown[]): string {
  const { pieces, literals } = compiled;
  if (literals.length === 0) return pieces[0];
  let sql = pieces[0];
  // A literal's value is a safe non-negative integer (shape.ts, `fits`), else the shape is not cached.
  for (let i = 0; i < literals.length; i++) sql += String(values[literals[i]]) + pieces[i + 1];
  return sql;
}

/**
 * The SQL with its `int` bindings (limits, offsets) cut out to be written as literals. Left as
 * bindings when the `?` placeholders outside quotes do not match the bindings one for one.
 */
function withLiterals(sql: string, positions: number[], kinds: readonly SlotKind[]): Compiled {
  const marks = placeholders(sql);
  if (marks.length !== positions.length) return { pieces: [sql], literals: [], positions };
  const pieces: string[] = [];
  const literals: number[] = [];
  const bound: number[] = [];
  let from = 0;
  positions.forEach((value, j) => {
    if (kinds[value] !== 'int') return void bound.push(value);
    pieces.push(sql.slice(from, marks[j]));
    literals.push(value);
    from = marks[j] + 1;
  });
  pieces.push(sql.slice(from));
  return { pieces, literals, positions: bound };
}

/** The offsets of the `?` placeholders of SQL text, skipping quoted strings and identifiers. */
function placeholders(sql: string): number[] {
  const marks: number[] = [];
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === '?') marks.push(i);
    else if (c === "'" || c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      // A doubled quote inside a quoted text is a quote, not its end: skipping both is the same.
      const end = sql.indexOf(close, i + 1);
      if (end < 0) return [];
      i = end;
    }
  }
  return marks;
}

/** Integer probes for limits and offsets, far from any real one and distinct per slot. */
const PROBE_INT = 2 ** 40;
