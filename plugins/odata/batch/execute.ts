/**
 * executeBatch: a $batch request body in, the batch response out. Pure of HTTP: the service reads
 * the body (multipart/mixed as raw bytes, within its size limit) and sends what comes back.
 *
 * - multipart/mixed (OData 4.0): processing stops at the first failed request or changeset unless
 *   the batch request says `Prefer: odata.continue-on-error` (answered with Preference-Applied).
 * - application/json (OData 4.01 JSON batch): every request is processed according to its
 *   dependencies unless `Prefer: continue-on-error=false`.
 * - A malformed batch (no boundary, a bad part or request line, an unknown Content-ID reference,
 *   a GET in a changeset, too many requests) is answered 400 INVALID_REQUEST as a whole, before
 *   anything runs, in the OData error format with one detail naming where.
 */
import { ObjectQLError } from '../../../kernel';
import { batchError, JSON_TYPE, ODATA_VERSION, odataErrorBody } from './errors';
import { readJsonBatch, writeJsonBatch } from './json-batch';
import { parseMediaType } from './multipart';
import { readMultipartBatch, writeMultipartBatch } from './multipart-batch';
import type { BatchPlan } from './plan';
import { runPlan } from './run';
import type { BatchInput, BatchResult } from './types';

export async function executeBatch(input: BatchInput): Promise<BatchResult> {
  let plan: BatchPlan;
  try {
    plan = readBatch(input);
  } catch (err) {
    if (!(err instanceof ObjectQLError)) throw err;
    return {
      status: err.status,
      headers: { 'Content-Type': JSON_TYPE, 'OData-Version': ODATA_VERSION },
      body: JSON.stringify(odataErrorBody(err)),
    };
  }
  const prefer = continueOnError(input.headers?.prefer);
  const continues = prefer ?? plan.format === 'json';
  const outcomes = await runPlan(plan, input, continues);
  const written = plan.format === 'json' ? writeJsonBatch(outcomes) : writeMultipartBatch(outcomes);
  const headers: Record<string, string> = { 'Content-Type': written.contentType, 'OData-Version': ODATA_VERSION };
  if (prefer !== undefined)
    headers['Preference-Applied'] =
      plan.format === 'json' ? `continue-on-error=${prefer}` : prefer ? 'odata.continue-on-error' : 'odata.continue-on-error=false';
  return { status: 200, headers, body: written.body };
}

function readBatch(input: BatchInput): BatchPlan {
  const { body, basePath, limits } = input;
  const size = Buffer.isBuffer(body) ? body.length : typeof body === 'string' ? Buffer.byteLength(body) : 0;
  if (limits.maxBytes !== undefined && size > limits.maxBytes)
    throw batchError(`the body is larger than the limit of ${limits.maxBytes} bytes`);
  const media = parseMediaType(input.contentType ?? '');
  if (media.type === 'multipart/mixed') {
    if (!Buffer.isBuffer(body) && typeof body !== 'string') throw batchError('the multipart body was not read as bytes');
    return readMultipartBatch(media, Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'), basePath, limits.maxParts);
  }
  if (media.type === 'application/json') {
    let value = body;
    if (Buffer.isBuffer(body) || typeof body === 'string') {
      try {
        value = JSON.parse(body.toString());
      } catch (err) {
        throw batchError(`malformed JSON: ${(err as Error).message}`);
      }
    }
    return readJsonBatch(value, basePath, limits.maxParts);
  }
  throw batchError(`Content-Type must be multipart/mixed with a boundary, or application/json; got '${input.contentType}'`);
}

/** The continue-on-error preference of a Prefer header: true, false, or undefined when not given. */
export function continueOnError(prefer: string | string[] | undefined): boolean | undefined {
  const values = (Array.isArray(prefer) ? prefer.join(',') : (prefer ?? '')).split(',');
  for (const value of values) {
    const m = /^\s*(?:odata\.)?continue-on-error\s*(?:=\s*"?(true|false)"?)?\s*(?:;.*)?$/i.exec(value);
    if (m) return m[1]?.toLowerCase() !== 'false';
  }
  return undefined;
}
