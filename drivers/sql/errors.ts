/**
 * Store failures as the kernel's errors. A unique violation is CONFLICT naming the object and the
 * field(s), found through the index name the driver gave it (or the columns SQLite lists); a value
 * wider than its column (MySQL varchar(255) text, varchar select / lookup values) is
 * VALIDATION_ERROR naming the field when the engine says which. A database that is away, slow to
 * answer or out of connections is SERVICE_UNAVAILABLE (503) naming the datasource and why, in a
 * word: the caller may try again later. Any other failure is DATABASE_ERROR with a fixed message:
 * the original error (SQL, driver text) goes to the log only.
 */
import type { Logger } from 'pino';
import { ObjectQLError, validationError } from '../../kernel';
import { QUERY_TIMEOUT_CODE } from './connection-guard';
import { errorMessage, type SqlDialect } from './dialects/base';
import type { TableInfo } from './table-info';

export interface ErrorScope {
  datasource: string;
  object: string;
  operation: string;
  dialect: SqlDialect;
  logger: Logger;
  info?: TableInfo;
  /** The record's id, when known (create, update, delete). */
  id?: unknown;
  /** What failed, for the message; defaults to the object's name in quotes. */
  subject?: string;
}

export function storeError(err: unknown, scope: ErrorScope): ObjectQLError {
  if (err instanceof ObjectQLError) return err;
  const violation = scope.dialect.uniqueViolation(err);
  if (violation) {
    const fields = (violation.index !== undefined ? scope.info?.unique.get(violation.index) : violation.columns) ?? violation.columns ?? [];
    return conflict(scope.object, [...fields], scope.id);
  }
  const tooLong = scope.dialect.valueTooLong(err);
  if (tooLong) {
    const message = `is too long to store (${scope.dialect.name} column limit)`;
    return tooLong.column
      ? validationError({ [tooLong.column]: message })
      : new ObjectQLError(
          'VALIDATION_ERROR',
          `A value of object '${scope.object}' is too long to store (${scope.dialect.name} column limit)`,
          { object: scope.object },
        );
  }
  const reason = unavailable(err);
  if (reason) {
    scope.logger.warn({ err, datasource: scope.datasource, object: scope.object, operation: scope.operation }, `sql: ${reason}`);
    return new ObjectQLError('SERVICE_UNAVAILABLE', `Datasource '${scope.datasource}' is unavailable (${reason}); try again later`, {
      datasource: scope.datasource,
    });
  }
  scope.logger.error(
    { err, datasource: scope.datasource, object: scope.object, operation: scope.operation },
    'sql: store operation failed',
  );
  return new ObjectQLError('DATABASE_ERROR', `Database operation failed on ${scope.subject ?? `'${scope.object}'`}`);
}

export function conflict(object: string, fields: string[], id?: unknown): ObjectQLError {
  if (fields.length === 1 && fields[0] === 'id' && id !== undefined && id !== null) {
    return new ObjectQLError(
      'CONFLICT',
      `A record with id '${typeof id === 'string' ? id : JSON.stringify(id)}' already exists in object '${object}'`,
      { object, fields },
    );
  }
  if (fields.length === 0) return new ObjectQLError('CONFLICT', `Duplicate value in object '${object}'`, { object, fields });
  const what = fields.length === 1 ? `field '${fields[0]}'` : `fields (${fields.join(', ')})`;
  return new ObjectQLError('CONFLICT', `Duplicate value for ${what} of object '${object}'`, { object, fields });
}

/** Error codes of a database that is away or overloaded, with what to say: node's socket errors, SQLSTATEs, mysql2's codes. */
const UNAVAILABLE_CODES: Record<string, string> = {
  [QUERY_TIMEOUT_CODE]: 'no answer in time',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection lost',
  EPIPE: 'connection lost',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  PROTOCOL_CONNECTION_LOST: 'connection lost',
  PROTOCOL_SEQUENCE_TIMEOUT: 'no answer in time',
  ER_SERVER_SHUTDOWN: 'server shutting down',
  ER_CONNECTION_KILLED: 'connection lost',
  ER_CON_COUNT_ERROR: 'too many connections',
  ER_STATEMENT_TIMEOUT: 'statement timeout', // MariaDB max_statement_time (1969)
  ER_QUERY_TIMEOUT: 'statement timeout', // MySQL max_execution_time (3024)
  SQLITE_BUSY: 'database file locked by another process',
  // The store rolled the transaction back to break a lock cycle: the same write, run again, passes.
  ER_LOCK_DEADLOCK: 'deadlock',
  ER_LOCK_WAIT_TIMEOUT: 'lock wait timeout',
  '40P01': 'deadlock',
  '40001': 'serialization failure',
  '57014': 'statement timeout', // query_canceled: statement_timeout
  '57P01': 'server shutting down',
  '57P02': 'server shutting down',
  '57P03': 'server starting up',
  '53300': 'too many connections',
  '08000': 'connection lost',
  '08001': 'cannot connect',
  '08003': 'connection lost',
  '08004': 'connection refused',
  '08006': 'connection lost',
};

/** MySQL / MariaDB error numbers of the same, for errors that carry no symbolic code. */
const UNAVAILABLE_ERRNOS: Record<number, string> = {
  1040: 'too many connections',
  1205: 'lock wait timeout',
  1213: 'deadlock',
  1969: 'statement timeout',
  3024: 'statement timeout',
};

const UNAVAILABLE_MESSAGES: Array<[RegExp, string]> = [
  [/Timeout acquiring a connection/i, 'no free connection in time'],
  [/Query read timeout|inactivity timeout/i, 'no answer in time'],
  [/connection timeout|connect ETIMEDOUT/i, 'connection timed out'],
  [/Connection terminated|not queryable|closed state|Connection lost|server closed the connection/i, 'connection lost'],
];

/** Why `err` says the database is unavailable (a few words), or undefined when it says something else. */
export function unavailable(err: unknown): string | undefined {
  const e = err as { code?: unknown; errno?: unknown; name?: unknown } | null | undefined;
  if (typeof e?.code === 'string' && Object.prototype.hasOwnProperty.call(UNAVAILABLE_CODES, e.code)) return UNAVAILABLE_CODES[e.code];
  if (typeof e?.errno === 'number' && UNAVAILABLE_ERRNOS[e.errno]) return UNAVAILABLE_ERRNOS[e.errno];
  if (e?.name === 'KnexTimeoutError') return 'no free connection in time';
  const message = errorMessage(err);
  return UNAVAILABLE_MESSAGES.find(([pattern]) => pattern.test(message))?.[1];
}
