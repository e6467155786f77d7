/**
 * Why `objectql serve` could not start, in one paragraph for the operator, without a stack: a
 * config, metadata or plugin mistake (their messages already say what to fix), a port already in
 * use, a database that does not exist or cannot be reached. Anything else is a bug: undefined here,
 * and the command line prints its stack.
 */
import { ConfigError, HookError, MetadataError, ObjectQLError, PluginError, type ResolvedConfig } from '../server';

export interface FailureContext {
  /** The kernel's config, when the kernel was made. */
  config?: ResolvedConfig;
  configFile?: string;
  /** The plugin whose hook failed, when one did. */
  plugin?: string;
}

export function explainStartupFailure(err: unknown, context: FailureContext): string | undefined {
  if (err instanceof ConfigError || err instanceof MetadataError || err instanceof PluginError) return err.message;
  if (err instanceof HookError) {
    const inner = explainStartupFailure(err.cause, { ...context, plugin: err.tap });
    return inner && `Plugin '${err.tap}' (hook ${err.hook}): ${inner}`;
  }
  const listen = err as { code?: unknown; syscall?: unknown; address?: unknown; port?: unknown } | null;
  if (listen?.code === 'EADDRINUSE' && listen.syscall === 'listen') return portInUse(String(listen.address), Number(listen.port), context);
  if (err instanceof ObjectQLError && err.code === 'DATABASE_ERROR') return cannotConnect(err.details, context);
  return undefined;
}

/** A mistake in the command line itself, as node:util's parseArgs reports it (an unknown option, a missing value). */
export function isParseArgsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof TypeError && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

/**
 * How a command other than serve ends on an error: a usage mistake exits 2 with its message; a
 * failure explained above, or an error of the spec's (an object refused, a field unknown), exits 1
 * with its message; anything else is a bug: 1, with its stack.
 */
export function commandFailure(
  err: unknown,
  context: FailureContext,
  isUsage: (err: unknown) => boolean = () => false,
): { message: string; code: number } {
  if (isParseArgsError(err) || isUsage(err)) return { message: (err as Error).message, code: 2 };
  const explained = explainStartupFailure(err, context) ?? (err instanceof ObjectQLError ? err.message : undefined);
  return { message: explained ?? (err as Error).stack ?? String(err), code: 1 };
}

function portInUse(address: string, port: number, { config, configFile, plugin }: FailureContext): string {
  const where = `${address.includes(':') ? `[${address}]` : address}:${port}`;
  if (config && port !== config.port) {
    return (
      `Cannot listen on ${where}: the port is already in use. It is a plugin's own port, not the server's: stop what listens there, ` +
      `or choose another in plugins.${plugin ?? '<plugin>'}.port in ${configFile ?? 'the config'}.`
    );
  }
  const other = port === 65535 ? port - 1 : port + 1;
  return (
    `Cannot listen on ${where}: the port is already in use (another ObjectQL, or another program, listens there). ` +
    `Stop it, or choose another port: --port ${other}, or PORT=${other} (--port 0 takes any free port).`
  );
}

interface Target {
  database?: string;
  user?: string;
  host?: string;
  port?: string;
  filename?: string;
}

/** A failed connection as drivers/sql/sql-datasource.ts reports it: the datasource, the dialect and the driver's error code. */
function cannotConnect(details: unknown, { config, configFile }: FailureContext): string | undefined {
  const { datasource: name, dialect, reason = '' } = (details ?? {}) as { datasource?: unknown; dialect?: unknown; reason?: unknown };
  if (typeof name !== 'string' || typeof dialect !== 'string' || typeof reason !== 'string') return undefined;
  const datasource = config?.datasources[name] as Record<string, unknown> | undefined;
  const driver = [datasource?.driver, dialect].filter((v) => typeof v === 'string' && v).join(', ');
  const setting = `datasources.${name}.connection in ${configFile ?? 'the config'}`;
  const target = targetOf(datasource?.connection);
  const { cause, hint } = explain(reason, target, setting);
  return `Cannot connect to datasource '${name}' (${driver}): ${cause}. ${hint}`;
}

/** What the connection setting names: a URL (postgres://user@host:port/db) or knex's connection object. */
function targetOf(connection: unknown): Target {
  if (typeof connection === 'string') {
    try {
      const url = new URL(connection);
      return {
        database: decodeURIComponent(url.pathname.replace(/^\//, '')) || undefined,
        user: decodeURIComponent(url.username) || undefined,
        host: url.hostname || undefined,
        port: url.port || undefined,
      };
    } catch {
      return {};
    }
  }
  if (connection && typeof connection === 'object') {
    const c = connection as Record<string, unknown>;
    if (typeof c.connectionString === 'string') return targetOf(c.connectionString);
    const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);
    return { database: text(c.database), user: text(c.user), host: text(c.host), port: text(c.port), filename: text(c.filename) };
  }
  return {};
}

/** The driver's error code read for a person (PostgreSQL's SQLSTATE, MySQL's, Node's network errors, SQLite's). */
function explain(reason: string, t: Target, setting: string): { cause: string; hint: string } {
  const named = (what: string, value: string | undefined) => (value ? `${what} "${value}"` : `the ${what}`);
  const at = t.host ? `${t.host}${t.port ? `:${t.port}` : ''}` : 'the configured host';
  switch (reason) {
    case '3D000':
    case 'ER_BAD_DB_ERROR':
      return {
        cause: `${named('database', t.database)} does not exist`,
        hint: `Create it (CREATE DATABASE ${t.database ?? '<name>'}), or point ${setting} at a database that exists.`,
      };
    case '28P01':
    case '28000':
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_DBACCESS_DENIED_ERROR':
      return {
        cause: `the database server refused ${named('user', t.user)} (${reason}: wrong password, unknown user, or not allowed from this host)`,
        hint: `Fix the user and password in ${setting}, or let that user in on the server.`,
      };
    case 'ECONNREFUSED':
      return { cause: `nothing accepts connections at ${at}`, hint: `Start the database server, or fix the host and port in ${setting}.` };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { cause: `${named('host', t.host)} is not found`, hint: `Fix the host in ${setting}.` };
    case 'ETIMEDOUT':
      return {
        cause: `${at} did not answer in time`,
        hint: `Check that the database server runs and is reachable, and the host and port in ${setting}.`,
      };
    case 'SQLITE_CANTOPEN':
      return {
        cause: `the database file${t.filename ? ` "${t.filename}"` : ''} cannot be opened`,
        hint: `Check that its folder exists and is writable, or fix ${setting}.`,
      };
    default:
      return {
        cause: reason ? `the driver says ${reason}` : 'the driver gave no reason',
        hint: `Check that the database server runs and that ${setting} is right; the log line 'sql: cannot connect' above has the driver's own message.`,
      };
  }
}
