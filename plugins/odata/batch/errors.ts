/**
 * Errors of the batch, in the service's OData error format (../errors.ts). A malformed batch is
 * INVALID_REQUEST (400) with one detail naming where the problem is ('part 2', 'part 3.1',
 * 'requests[4].url').
 */
import type { Logger } from 'pino';
import { ObjectQLError, toObjectQLError } from '../../../kernel';
import { odataErrorBody } from '../errors';
import { jsonContentType, ODATA_VERSION } from '../format';
import type { ODataResponse } from './types';

export { odataErrorBody };
export const JSON_TYPE = jsonContentType('minimal');
export { ODATA_VERSION };

/** A malformed batch: INVALID_REQUEST naming where. */
export function batchError(message: string, target?: string): ObjectQLError {
  return new ObjectQLError(
    'INVALID_REQUEST',
    target ? `Malformed batch request (${target}): ${message}` : `Malformed batch request: ${message}`,
    [{ code: 'INVALID_REQUEST', message, ...(target ? { target } : {}) }],
  );
}

/** Anything thrown, as an OData error response; what carries no spec code is logged and becomes INTERNAL_ERROR. */
export function errorResponse(err: unknown, logger?: Logger): ODataResponse {
  const error = toObjectQLError(err, () => {
    logger?.error({ err }, 'batch: request failed');
    return new ObjectQLError('INTERNAL_ERROR', 'Internal server error');
  });
  if (error.status >= 500 && error.code !== 'INTERNAL_ERROR') logger?.error({ err }, error.message);
  return { status: error.status, headers: { 'Content-Type': JSON_TYPE, 'OData-Version': ODATA_VERSION }, body: odataErrorBody(error) };
}
