/**
 * The OData 4.01 JSON batch format: `{requests: [{id, method, url, atomicityGroup?, dependsOn?,
 * headers?, body?}]}` → `{responses: [{id, status, headers?, body?, atomicityGroup?}]}`. An
 * atomicity group is a changeset (adjacent requests, one transaction). A request whose
 * dependencies did not all succeed is not run and answered 424 Failed Dependency; in a failed
 * atomicity group the failing request carries its error and every other request of it 424.
 */
import { isPlainObject } from '../../../kernel';
import { batchError } from './errors';
import { checkChangeset, METHODS, parseTarget, type BatchPlan, type PlannedRequest, type PlanItem } from './plan';
import { FAILED_DEPENDENCY, type Outcome } from './run';
import { serializeBody } from './multipart-batch';
import type { ODataResponse } from './types';

const REQUEST_KEYS = new Set(['id', 'method', 'url', 'atomicityGroup', 'dependsOn', 'if', 'headers', 'body']);

export function readJsonBatch(value: unknown, basePath: string, maxParts: number): BatchPlan {
  if (!isPlainObject(value) || !Array.isArray(value.requests)) throw batchError("a JSON batch is an object with a 'requests' array");
  for (const key of Object.keys(value)) if (key !== 'requests' && !key.startsWith('@')) throw batchError(`unknown member '${key}'`);
  const list = value.requests;
  if (list.length > maxParts) throw batchError(`more than ${maxParts} requests in one batch`);
  const ids = new Set<string>();
  const groups = new Set<string>();
  const items: PlanItem[] = [];
  let open: Extract<PlanItem, { kind: 'changeset' }> | undefined;
  for (const [i, raw] of list.entries()) {
    const where = `requests[${i}]`;
    const request = readRequest(raw, where, basePath);
    const id = request.id as string;
    if (ids.has(id) || groups.has(id)) throw batchError(`id '${id}' is used twice`, `${where}.id`);
    ids.add(id);
    for (const dep of request.dependsOn) {
      if (!ids.has(dep) && !groups.has(dep))
        throw batchError(`dependsOn '${dep}' names no preceding request or atomicity group`, `${where}.dependsOn`);
      if (dep === id) throw batchError('a request cannot depend on itself', `${where}.dependsOn`);
    }
    const group = isPlainObject(raw) ? raw.atomicityGroup : undefined;
    if (group !== undefined && (typeof group !== 'string' || !group))
      throw batchError('atomicityGroup must be a non-empty string', `${where}.atomicityGroup`);
    if (group === undefined) {
      open = undefined;
      if (request.target.kind === 'ref' && !request.dependsOn.includes(request.target.id)) {
        throw batchError(`'$${request.target.id}' must be listed in dependsOn`, `${where}.url`);
      }
      items.push({ kind: 'request', request });
      continue;
    }
    if (ids.has(group)) throw batchError(`atomicityGroup '${group}' is also a request id`, `${where}.atomicityGroup`);
    if (open?.group !== group) {
      if (groups.has(group)) throw batchError(`the requests of atomicityGroup '${group}' must be adjacent`, `${where}.atomicityGroup`);
      if (request.dependsOn.includes(group)) throw batchError('a request cannot depend on its own atomicity group', `${where}.dependsOn`);
      groups.add(group);
      open = { kind: 'changeset', group, requests: [], where };
      items.push(open);
    } else if (request.dependsOn.includes(group)) {
      throw batchError('a request cannot depend on its own atomicity group', `${where}.dependsOn`);
    }
    open.requests.push(request);
  }
  for (const item of items) if (item.kind === 'changeset') checkChangeset(item.requests, item.where, 'atomicity group');
  return { format: 'json', items };
}

function readRequest(raw: unknown, where: string, basePath: string): PlannedRequest {
  if (!isPlainObject(raw)) throw batchError('a request must be an object', where);
  for (const key of Object.keys(raw))
    if (!REQUEST_KEYS.has(key) && !key.startsWith('@')) throw batchError(`unknown member '${key}'`, where);
  const { id, method, url, dependsOn = [], headers = {}, body } = raw;
  if (typeof id !== 'string' || !id) throw batchError("'id' must be a non-empty string", `${where}.id`);
  if (typeof method !== 'string' || !METHODS.has(method.toUpperCase()))
    throw batchError(`'method' must be one of ${[...METHODS].join(', ')} (any case)`, `${where}.method`);
  if (typeof url !== 'string' || !url) throw batchError("'url' must be a non-empty string", `${where}.url`);
  if (!Array.isArray(dependsOn) || !dependsOn.every((d) => typeof d === 'string'))
    throw batchError("'dependsOn' must be an array of strings", `${where}.dependsOn`);
  if (!isPlainObject(headers) || !Object.values(headers).every((v) => typeof v === 'string'))
    throw batchError("'headers' must be an object of strings", `${where}.headers`);
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (Object.prototype.hasOwnProperty.call(lower, key)) throw batchError(`header '${key}' is given twice`, `${where}.headers`);
    lower[key] = value as string;
  }
  const upper = method.toUpperCase();
  const hasBody = body !== undefined && body !== null;
  if (hasBody && (upper === 'GET' || upper === 'DELETE')) throw batchError(`a ${upper} request has no body`, `${where}.body`);
  // The body member is JSON unless the headers name another type (OData JSON Format 4.01, batch requests).
  if (hasBody) lower['content-type'] ??= 'application/json';
  return {
    id,
    method: upper,
    target: parseTarget(url, basePath, `${where}.url`),
    headers: lower,
    body: hasBody ? { kind: 'value', value: body } : { kind: 'none' },
    where,
    dependsOn,
    ...(raw.if !== undefined ? { unsupported: "the 'if' member (request dependency conditions) is not supported" } : {}),
  };
}

interface JsonResponse {
  id: string;
  status: number;
  atomicityGroup?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** The response body: one response object per request that was run or answered, in request order. */
export function writeJsonBatch(outcomes: Outcome[]): { contentType: string; body: string } {
  const responses: JsonResponse[] = [];
  for (const o of outcomes) {
    if (o.kind === 'request') {
      if (o.response) responses.push(jsonResponse(o.request, o.response));
      continue;
    }
    if (o.state === 'skipped') continue;
    o.requests.forEach((request, i) => {
      const response = o.state === 'committed' ? o.responses[i] : o.failure?.request === request ? o.failure.response : FAILED_DEPENDENCY;
      responses.push({ ...jsonResponse(request, response), atomicityGroup: o.group });
    });
  }
  return { contentType: 'application/json', body: JSON.stringify({ responses }) };
}

function jsonResponse(request: PlannedRequest, response: ODataResponse): JsonResponse {
  const out: JsonResponse = { id: request.id as string, status: response.status };
  const { headers } = serializeBody(response);
  const names = Object.keys(headers);
  if (names.length) out.headers = Object.fromEntries(names.map((k) => [k.toLowerCase(), headers[k]]));
  const body = response.body;
  // JSON values stay JSON; text stays text; bytes are base64url (OData 4.01 JSON batch §19.1).
  if (body !== undefined && body !== null) out.body = Buffer.isBuffer(body) ? body.toString('base64url') : body;
  return out;
}
