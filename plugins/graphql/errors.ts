/**
 * GraphQL errors as the GraphQL specification writes them — {message, locations?, path?,
 * extensions: {code, details?}} — with `code` one of the kernel's codes for anything an engine
 * call raised, and, for a document that cannot run, one of these (answered with HTTP 400):
 */
import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import { isErrorCode, toObjectQLError, type ObjectQLError } from '../../kernel';

/** A GraphQL response that carries only errors. */
export interface ErrorsBody {
  errors: GraphQLFormattedError[];
}

export const DOCUMENT_CODES = {
  /** The query text does not parse. */
  PARSE_FAILED: 'GRAPHQL_PARSE_FAILED',
  /** It parses but does not validate against the schema (unknown field, wrong argument, introspection when disabled). */
  VALIDATION_FAILED: 'GRAPHQL_VALIDATION_FAILED',
  /** The variables do not fit the operation's variable definitions. */
  BAD_USER_INPUT: 'BAD_USER_INPUT',
} as const;

export type Log = (err: unknown, message: string) => void;

/** One error of a response. Anything that is neither a kernel error nor graphql-js's own becomes INTERNAL_ERROR, logged, its text withheld. */
export function formatError(error: GraphQLError, log: Log, code?: string): GraphQLFormattedError {
  const formatted = error.toJSON();
  const original = error.originalError;
  if (code) return { ...formatted, extensions: { ...formatted.extensions, code } };
  if (!original || (original as { name?: string }).name === 'GraphQLError') {
    // graphql-js's own execution errors (a non-null field that resolved to null, an argument that does not coerce).
    return { ...formatted, extensions: { code: 'INTERNAL_ERROR', ...formatted.extensions } };
  }
  const known = isErrorCode((original as { code?: unknown }).code);
  const e: ObjectQLError = toObjectQLError(original);
  if (!known) log(original, `GraphQL resolver failed at ${error.path?.join('.') ?? '?'}`);
  return {
    message: e.message,
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: extensionsOf(e),
  };
}

/**
 * A kernel error answered on the endpoint (credentials refused, rate limit, a body that is not
 * JSON, a route that fails; see kernel.http.errorFormat) as a GraphQL response.
 */
export function kernelErrorBody(error: ObjectQLError): ErrorsBody {
  return { errors: [{ message: error.message, extensions: extensionsOf(error) }] };
}

/** {code, details?} of a kernel error. */
function extensionsOf(error: ObjectQLError): Record<string, unknown> {
  return error.details === undefined ? { code: error.code } : { code: error.code, details: error.details };
}
