/**
 * Store failures as the kernel's errors. A unique violation is CONFLICT naming the object and the
 * field(s), found through the index name the driver gave it (or the columns SQLite lists); a value
 * wider than its column (MySQL varchar(255) text, varchar select / lookup values) is
 * VALIDATION_ERROR naming the field when the engine says which. Any other failure is DATABASE_ERROR with a fixed message: the original error (SQL, driver text) goes
 * to the log only.
 */
import type { Logger } from 'pino';
import { ObjectQLError, validationError } from '../../kernel';
import type { SqlDialect } from './dialects/base';
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
