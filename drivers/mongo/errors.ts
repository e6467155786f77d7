/**
 * Store failures as the contract's errors. A duplicate key (E11000) is CONFLICT naming the fields
 * of the violated index (from the error's keyPattern, or from the index name in the message when
 * an older server sends no keyPattern); a write conflict inside a transaction (code 112) is
 * CONFLICT too, as the memory driver reports a record changed outside the transaction. Anything
 * else is DATABASE_ERROR whose message names the operation and object only: the driver's text
 * goes to the log, never to the client.
 */
import type { Logger } from 'pino';
import { ObjectQLError } from '../../kernel';
import { fieldOfPath } from './values';

const DUPLICATE_KEY = new Set([11000, 11001, 12582]);
const WRITE_CONFLICT = 112;

export interface ErrorContext {
  datasource: string;
  /** Empty for a call on no single object (a commit). */
  object: string;
  /** What was being done, for the log and the message: 'find', 'create', ... */
  operation: string;
  logger: Pick<Logger, 'error'>;
  /** The fields of this object's index with that name, when the driver made it. */
  indexFields?: (indexName: string) => string[] | undefined;
}

interface ErrorShape {
  code?: unknown;
  message?: unknown;
  keyPattern?: unknown;
  keyValue?: unknown;
  errmsg?: unknown;
  errorResponse?: { keyPattern?: unknown; keyValue?: unknown; errmsg?: unknown };
}

function shape(err: unknown): ErrorShape {
  return err !== null && typeof err === 'object' ? err : {};
}

export function isDuplicateKey(err: unknown): boolean {
  return DUPLICATE_KEY.has(shape(err).code as number);
}

/** The record fields of the unique index a duplicate-key error names; [] when it cannot tell. */
export function duplicateFields(err: unknown, indexFields?: (indexName: string) => string[] | undefined): string[] {
  const e = shape(err);
  const pattern = e.keyPattern ?? e.errorResponse?.keyPattern;
  if (pattern && typeof pattern === 'object') return Object.keys(pattern).map(fieldOfPath);
  const text = [e.errmsg, e.errorResponse?.errmsg, e.message].find((t): t is string => typeof t === 'string') ?? '';
  const index = /index: (\S+) dup key/.exec(text)?.[1];
  if (index === '_id_') return ['id'];
  return (index && indexFields?.(index)) || [];
}

function duplicateError(err: unknown, ctx: ErrorContext): ObjectQLError {
  const fields = duplicateFields(err, ctx.indexFields);
  const { object } = ctx;
  const keyValue = shape(err).keyValue ?? shape(err).errorResponse?.keyValue;
  const id = keyValue && typeof keyValue === 'object' ? (keyValue as Record<string, unknown>)._id : undefined;
  let message: string;
  if (fields.length === 1 && fields[0] === 'id') {
    message =
      typeof id === 'string'
        ? `A record with id '${id}' already exists in object '${object}'`
        : `A record with this id already exists in object '${object}'`;
  } else if (fields.length === 0) {
    message = `Duplicate value for a unique field of object '${object}'`;
  } else {
    message = `Duplicate value for ${fields.length === 1 ? `field '${fields[0]}'` : `fields (${fields.join(', ')})`} of object '${object}'`;
  }
  return new ObjectQLError('CONFLICT', message, { object, fields });
}

/** Turns anything a store call threw into an ObjectQLError; ObjectQLErrors pass unchanged. */
export function toStoreError(err: unknown, ctx: ErrorContext): ObjectQLError {
  if (err instanceof ObjectQLError) return err;
  if (isDuplicateKey(err)) return duplicateError(err, ctx);
  if (shape(err).code === WRITE_CONFLICT) {
    const what = ctx.object ? `A record of object '${ctx.object}'` : 'A record';
    return new ObjectQLError(
      'CONFLICT',
      `${what} was changed by another transaction; try again`,
      ctx.object ? { object: ctx.object } : undefined,
    );
  }
  ctx.logger.error({ err, datasource: ctx.datasource, object: ctx.object, operation: ctx.operation }, `mongo: ${ctx.operation} failed`);
  return new ObjectQLError('DATABASE_ERROR', `Database error during ${ctx.operation}${ctx.object ? ` on object '${ctx.object}'` : ''}`);
}
