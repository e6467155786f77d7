/**
 * Keeps a datasource's pool healthy when the database or the network under it fails: every
 * connection is made with a connect timeout and TCP keepalive, runs its statements under the
 * server's own statement timeout, and is given up on client side when no answer comes at all (a
 * stalled server, a path that drops packets). A connection that timed out or died is destroyed,
 * never handed out again, and so is every connection that sat in the pool when it happened: they
 * shared its path, and a connection nobody uses cannot notice by itself that its peer is gone. The
 * pool makes new ones on demand, so the datasource recovers without a restart once the database
 * answers again.
 *
 * Schema sync (DDL at start-up: an index on a big table takes long) runs under the longer
 * schemaSyncMillis: a connection handed out while the profile differs from its own has its
 * session's limit set again first. Replacing the connections instead cost a datasource two more
 * connections at every start (each 40 ms of PostgreSQL's CPU on the CI machine).
 */
import type { Knex } from 'knex';
import type { SqlDialect } from './dialects/base';

export interface SqlTimeouts {
  /** Making a connection (TCP, TLS, authentication, session set-up). */
  connectMillis: number;
  /** Waiting for a free pooled connection. */
  acquireMillis: number;
  /** The server cancels a statement running longer (PostgreSQL statement_timeout, MariaDB max_statement_time); 0: never. */
  statementMillis: number;
  /** No answer at all within this time: the connection is given up and destroyed; 0: never. */
  queryMillis: number;
  /** Statement and client limits while schema sync runs at start-up. */
  schemaSyncMillis: number;
  /** TCP keepalive's first probe after this much silence; 0: no keepalive. */
  keepAliveMillis: number;
  /** SQLite: how long a statement waits for a file another process has locked. */
  busyMillis: number;
}

export const DEFAULT_SQL_TIMEOUTS: Readonly<SqlTimeouts> = Object.freeze({
  connectMillis: 5000,
  acquireMillis: 5000,
  statementMillis: 10_000,
  queryMillis: 12_000,
  schemaSyncMillis: 300_000,
  keepAliveMillis: 10_000,
  busyMillis: 5000,
});

/** The code of the error a statement fails with when no answer came within its client-side limit. */
export const QUERY_TIMEOUT_CODE = 'OBJECTQL_QUERY_TIMEOUT';

type Profile = 'data' | 'schema';

/** What the guard keeps on each raw connection (pg Client, mysql2 Connection, better-sqlite3 Database). */
interface RawConnection {
  query?: (...args: unknown[]) => unknown;
  pragma?: (source: string) => unknown;
  __knex__disposed?: unknown;
  objectqlSerial?: number;
  objectqlProfile?: Profile;
}

type Done = (err: Error | null, conn: unknown) => void;

export class ConnectionGuard {
  private profile: Profile = 'data';
  private serial = 0;
  /** Connections made before this serial are not handed out again. */
  private staleBelow = 0;

  /** Each profile's server statement limit and client limit (0: none). */
  private readonly limits: Record<Profile, { statement: number; client: number }>;

  constructor(
    private readonly dialect: SqlDialect,
    private readonly timeouts: SqlTimeouts,
    private readonly onFault: (err: Error) => void,
  ) {
    this.limits = {
      data: { statement: timeouts.statementMillis, client: timeouts.queryMillis },
      schema: { statement: timeouts.schemaSyncMillis, client: timeouts.schemaSyncMillis },
    };
  }

  /** The knex config with the timeouts, keepalive and the pool's hooks added; `attach` the knex made with it. */
  apply(config: Knex.Config): Knex.Config {
    const t = this.timeouts;
    const pool = { ...(config.pool ?? {}) } as Knex.PoolConfig & { validate?: (conn: unknown) => boolean };
    const afterCreate = pool.afterCreate as ((conn: unknown, done: Done) => void) | undefined;
    pool.createTimeoutMillis ??= t.connectMillis;
    pool.afterCreate = (conn: unknown, done: Done) => {
      const prepare = () =>
        this.prepare(conn as RawConnection).then(
          () => done(null, conn),
          (err: Error) => done(err, conn),
        );
      if (afterCreate) afterCreate(conn, (err) => (err ? done(err, conn) : void prepare()));
      else void prepare();
    };
    pool.validate = (conn: unknown) => this.usable(conn as RawConnection);
    return { ...config, acquireConnectionTimeout: t.acquireMillis, pool, connection: this.connection(config.connection) };
  }

  /** Sets a connection's limits again when the profile changed since it last had them, before knex hands it out. */
  attach(knex: Knex): void {
    if (this.dialect.name === 'sqlite') return;
    const client = knex.client as { acquireConnection(): Promise<RawConnection>; releaseConnection(conn: RawConnection): Promise<unknown> };
    const acquire = client.acquireConnection.bind(client);
    client.acquireConnection = async () => {
      const conn = await acquire();
      const profile = this.profile;
      if (conn.objectqlProfile === profile) return conn;
      try {
        await this.statementTimeout(conn, this.limits[profile].statement);
      } catch (err) {
        await client.releaseConnection(conn);
        throw err;
      }
      conn.objectqlProfile = profile;
      return conn;
    };
  }

  /** Runs `fn` (schema sync) on connections without the data statements' limits. */
  async forSchema<T>(fn: () => Promise<T>): Promise<T> {
    this.profile = 'schema';
    try {
      return await fn();
    } finally {
      this.profile = 'data';
    }
  }

  private connection(connection: Knex.Config['connection']): Knex.Config['connection'] {
    if (typeof connection !== 'object' || connection === null) return connection;
    const t = this.timeouts;
    const keepAlive = t.keepAliveMillis > 0;
    switch (this.dialect.name) {
      case 'postgres':
        return { connectionTimeoutMillis: t.connectMillis, keepAlive, keepAliveInitialDelayMillis: t.keepAliveMillis, ...connection };
      case 'mysql':
        return { connectTimeout: t.connectMillis, enableKeepAlive: keepAlive, keepAliveInitialDelay: t.keepAliveMillis, ...connection };
      default:
        return connection;
    }
  }

  private async prepare(conn: RawConnection): Promise<void> {
    if (this.dialect.name === 'sqlite') {
      conn.pragma?.(`busy_timeout = ${this.timeouts.busyMillis}`);
      return;
    }
    conn.objectqlSerial = ++this.serial;
    conn.objectqlProfile = this.profile;
    this.bound(conn);
    const { statement } = this.limits[this.profile];
    if (statement > 0) await this.statementTimeout(conn, statement);
  }

  /** The pool's check before handing a connection out: one to be given up is destroyed here. */
  private usable(conn: RawConnection): boolean {
    if (this.dialect.name === 'sqlite') return true;
    if ((conn.objectqlSerial ?? 0) >= this.staleBelow && !conn.__knex__disposed) return true;
    this.kill(conn);
    return false;
  }

  /** Sets the server's statement timeout on the session (0: none). */
  private async statementTimeout(conn: RawConnection, ms: number): Promise<void> {
    if (this.dialect.name === 'postgres') return run(conn, `SET statement_timeout = ${ms}`);
    try {
      await run(conn, `SET SESSION max_statement_time = ${ms / 1000}`); // MariaDB, seconds
    } catch {
      await run(conn, `SET SESSION max_execution_time = ${ms}`); // MySQL, milliseconds (SELECT only)
    }
  }

  /**
   * Wraps the connection's query(…, callback): no answer within its profile's client limit fails the
   * statement with QUERY_TIMEOUT_CODE and destroys the connection (its socket may hold a half-read
   * answer). A connection that died under a statement makes the pool give up its other connections too.
   */
  private bound(conn: RawConnection): void {
    const query = conn.query;
    if (typeof query !== 'function') return;
    conn.query = (...args: unknown[]) => {
      const callback = args[args.length - 1];
      const ms = this.limits[conn.objectqlProfile ?? this.profile].client;
      if (typeof callback !== 'function' || ms <= 0) return query.apply(conn, args);
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        const err = Object.assign(new Error(`No answer from the database within ${ms} ms`), { code: QUERY_TIMEOUT_CODE });
        this.fault(conn, err);
        (callback as (err: Error) => void)(err);
      }, ms);
      args[args.length - 1] = (err: unknown, ...rest: unknown[]) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err && this.dialect.connectionLost(err)) this.fault(conn, err as Error);
        (callback as (...a: unknown[]) => void)(err, ...rest);
      };
      return query.apply(conn, args);
    };
  }

  private fault(conn: RawConnection, err: Error): void {
    this.staleBelow = this.serial + 1;
    this.kill(conn, err);
    this.onFault(err);
  }

  /** Marks the connection disposed for knex and tears its socket down (a goodbye would wait on a silent peer). */
  private kill(conn: RawConnection, err?: Error): void {
    conn.__knex__disposed ??= err ?? 'replaced after a database fault';
    const raw = conn as { connection?: { stream?: { destroy(): void } }; stream?: { destroy(): void } };
    (raw.connection?.stream ?? raw.stream)?.destroy();
  }
}

function run(conn: RawConnection, statement: string): Promise<void> {
  return new Promise((resolve, reject) => {
    conn.query!(statement, (err: Error | null) => (err ? reject(err) : resolve()));
  });
}
