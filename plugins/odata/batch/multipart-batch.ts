/**
 * The OData 4.0 multipart batch format: reading a request body into a plan, writing the outcomes
 * as the response body. Request parts are `Content-Type: application/http` (with
 * `Content-Transfer-Encoding: binary`, or none) holding one HTTP request; a changeset is a
 * `multipart/mixed` part of its own whose parts are such requests. A Content-ID is read from the
 * part's headers (or, for older clients, from the inner request's).
 */
import { randomUUID } from 'node:crypto';
import { batchError } from './errors';
import { parseHttpRequest, writeHttpResponse } from './http-message';
import { boundaryOf, parseMediaType, parseMultipart, writeMultipart, type MediaType, type MimePart } from './multipart';
import { checkChangeset, decodeBody, METHODS, parseTarget, type BatchPlan, type PlannedRequest, type PlanItem } from './plan';
import type { Outcome } from './run';
import type { ODataResponse } from './types';

const IDENTITY_ENCODINGS = new Set(['binary', '8bit', '7bit']);

export function readMultipartBatch(media: MediaType, body: Buffer, basePath: string, maxParts: number): BatchPlan {
  const parts = parseMultipart(body, boundaryOf(media), { maxParts });
  const items: PlanItem[] = [];
  let count = 0;
  for (const [i, part] of parts.entries()) {
    const where = `part ${i + 1}`;
    const type = partType(part, where);
    if (type.type === 'application/http') {
      count += 1;
      const request = readRequestPart(part, where, basePath);
      if (request.target.kind === 'ref')
        throw batchError(
          `'$${request.target.id}': Content-ID references are only valid inside the changeset of the request they name`,
          where,
        );
      items.push({ kind: 'request', request });
    } else if (type.type === 'multipart/mixed') {
      const inner = parseMultipart(part.body, boundaryOf(type, where), { maxParts: maxParts - count, where, limit: maxParts });
      const requests = inner.map((p, j) => {
        const w = `${where}.${j + 1}`;
        const t = partType(p, w);
        if (t.type === 'multipart/mixed') throw batchError('changesets cannot be nested', w);
        if (t.type !== 'application/http') throw batchError(`a changeset part must be application/http, got '${t.type}'`, w);
        return readRequestPart(p, w, basePath);
      });
      checkChangeset(requests, where, 'changeset');
      count += requests.length;
      items.push({ kind: 'changeset', group: `changeset-${i + 1}`, requests, where });
    } else {
      throw batchError(`a part must be application/http or a multipart/mixed changeset, got '${type.type}'`, where);
    }
    if (count > maxParts) throw batchError(`more than ${maxParts} requests in one batch`, where);
  }
  return { format: 'multipart', items };
}

function partType(part: MimePart, where: string): MediaType {
  const value = part.headers['content-type'];
  if (!value) throw batchError('the part has no Content-Type', where);
  return parseMediaType(value, where);
}

function readRequestPart(part: MimePart, where: string, basePath: string): PlannedRequest {
  const encoding = part.headers['content-transfer-encoding'];
  if (encoding !== undefined && !IDENTITY_ENCODINGS.has(encoding.toLowerCase())) {
    throw batchError(`Content-Transfer-Encoding '${encoding}' is not supported (use binary)`, where);
  }
  const msg = parseHttpRequest(part.body, where);
  if (!METHODS.has(msg.method)) throw batchError(`method '${msg.method}' is not one of ${[...METHODS].join(', ')}`, where);
  const id = part.headers['content-id'] ?? msg.headers['content-id'];
  if (id !== undefined && !id) throw batchError('empty Content-ID', where);
  return {
    ...(id !== undefined ? { id } : {}),
    method: msg.method,
    target: parseTarget(msg.target, basePath, where),
    headers: msg.headers,
    body: decodeBody(msg.body, msg.headers['content-type']),
    where,
    dependsOn: [],
  };
}

/**
 * The response body: one application/http part per request run outside changesets; a changeset
 * that committed as a nested multipart/mixed with one part per request (Content-ID echoed); a
 * changeset that failed as a single application/http part holding the failing request's response
 * (OData 4.0 §11.7.4). Requests not run (after an error, without continue-on-error) get no part.
 */
export function writeMultipartBatch(outcomes: Outcome[]): { contentType: string; body: Buffer } {
  const boundary = `batchresponse_${randomUUID()}`;
  const parts = outcomes.flatMap((o): Array<{ headers: Record<string, string>; body: Buffer }> => {
    if (o.kind === 'request') return o.response ? [httpPart(o.response, o.request.id)] : [];
    if (o.failure) return [httpPart(o.failure.response, o.failure.request?.id)];
    const inner = `changesetresponse_${randomUUID()}`;
    const body = writeMultipart(
      inner,
      o.responses.map((r, i) => httpPart(r, o.requests[i].id)),
    );
    return [{ headers: { 'Content-Type': `multipart/mixed; boundary=${inner}` }, body }];
  });
  return { contentType: `multipart/mixed; boundary=${boundary}`, body: writeMultipart(boundary, parts) };
}

function httpPart(response: ODataResponse, contentId: string | undefined): { headers: Record<string, string>; body: Buffer } {
  const headers: Record<string, string> = { 'Content-Type': 'application/http', 'Content-Transfer-Encoding': 'binary' };
  if (contentId !== undefined) headers['Content-ID'] = contentId;
  const { body, headers: own } = serializeBody(response);
  return { headers, body: writeHttpResponse({ status: response.status, headers: own, body }) };
}

/** The response's body as bytes: JSON values serialized (with a JSON Content-Type unless one is set). */
export function serializeBody(response: ODataResponse): { body?: Buffer | string; headers: Record<string, string> } {
  const headers = { ...response.headers };
  const body = response.body;
  if (body === undefined || body === null) return { headers };
  if (typeof body === 'string' || Buffer.isBuffer(body)) return { body, headers };
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
    headers['Content-Type'] = 'application/json; odata.metadata=minimal';
  return { body: JSON.stringify(body), headers };
}
