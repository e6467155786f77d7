/**
 * The one error class of the service. Every code of the spec's error table (docs/spec.md) lives in ERROR_CODES,
 * with its HTTP status; each protocol renders an ObjectQLError in its own format.
 */
export const ERROR_CODES = {
  INVALID_REQUEST: 400,
  VALIDATION_ERROR: 400,
  VALIDATION_FAIL: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  DATABASE_ERROR: 500,
  EXPAND_DEPTH_EXCEEDED: 400,
  FILE_VALIDATION_ERROR: 400,
  FILE_TOO_LARGE: 413,
  FILE_TOO_SMALL: 400,
  FILE_TYPE_NOT_ALLOWED: 415,
  IMAGE_DIMENSIONS_INVALID: 400,
  UPLOAD_FAILED: 500,
  STORAGE_QUOTA_EXCEEDED: 507,
  FILE_NOT_FOUND: 404,
  FILE_ACCESS_DENIED: 403,
  // Beside the spec's table: a dependency (a datasource, Redis) that is down or timed out. Retry later.
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: unknown };
}

export class ObjectQLError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'ObjectQLError';
    this.code = code;
    this.status = ERROR_CODES[code];
    if (details !== undefined) this.details = details;
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

/** Field-level validation failure: details.fields maps each failing field to its message. */
export function validationError(fields: Record<string, string>, message?: string): ObjectQLError {
  const names = Object.keys(fields);
  const text = message ?? (names.length === 1 ? `${names[0]}: ${fields[names[0]]}` : `Validation failed for fields: ${names.join(', ')}`);
  return new ObjectQLError('VALIDATION_ERROR', text, { fields });
}

/**
 * Turns anything thrown into an ObjectQLError. A thrown value that carries one of the spec's codes
 * (a plain Error with `code` set, as plain JS hook files do) keeps its code and message; anything
 * else becomes the fallback, so no driver text or stack reaches a client.
 */
export function toObjectQLError(
  err: unknown,
  fallback: () => ObjectQLError = () => new ObjectQLError('INTERNAL_ERROR', 'Internal server error'),
): ObjectQLError {
  if (err instanceof ObjectQLError) return err;
  if (err && typeof err === 'object' && isErrorCode((err as { code?: unknown }).code)) {
    const e = err as { code: ErrorCode; message?: unknown; details?: unknown };
    return new ObjectQLError(e.code, typeof e.message === 'string' && e.message ? e.message : e.code, e.details);
  }
  return fallback();
}
