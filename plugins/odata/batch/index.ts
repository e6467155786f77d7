/**
 * OData $batch: the multipart/mixed format of OData 4.0 and the JSON format of OData 4.01, with
 * changesets (atomicity groups) run as one engine transaction each. The service mounts
 * `POST {basePath}/$batch` and calls executeBatch with its request dispatcher.
 */
export { executeBatch, continueOnError } from './execute';

/** A sensible `limits.maxParts` (the spec leaves the size of a batch open). */
export const DEFAULT_MAX_PARTS = 100;
export { batchError, errorResponse } from './errors';
export {
  parseHttpRequest,
  parseHttpResponse,
  writeHttpRequest,
  writeHttpResponse,
  type HttpRequestMessage,
  type HttpResponseMessage,
} from './http-message';
export { boundaryOf, parseMediaType, parseMultipart, writeMultipart, type MediaType, type MimePart } from './multipart';
export type { BatchDispatcher, BatchInput, BatchResult, DispatchEngine, ODataRequest, ODataResponse } from './types';
