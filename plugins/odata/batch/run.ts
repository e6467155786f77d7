/**
 * Runs a batch plan, in order, one request at a time.
 *
 * - A request outside a changeset runs on its own, as if sent alone (a write in its own transaction).
 * - A changeset runs in one `engine.transaction()`: its requests in order, each reaching data through
 *   the transaction. When one answers status >= 400 the rest are not run, everything the changeset
 *   did is rolled back, and its outcome is that failing response alone. A changeset whose requests
 *   all succeeded but that cannot commit (or that the engine marked rollback-only) fails with the
 *   engine's error, naming no request.
 * - `$<id>` at the start of a URL becomes the URL of the entity the request with that Content-ID
 *   created (its Location) or, for a request that created nothing, the entity it addressed;
 *   `If-Match: $<id>` becomes that response's ETag. Multipart: only within one changeset. JSON:
 *   requests listed in dependsOn, or earlier in the same atomicity group.
 * - After a failure the batch stops unless continue-on-error applies (see execute.ts). JSON
 *   dependencies that did not succeed answer 424 without running.
 */
import type { Logger } from 'pino';
import { ObjectQLError } from '../../../kernel';
import { errorResponse } from './errors';
import type { BatchPlan, PlannedRequest, PlanItem } from './plan';
import type { BatchInput, DispatchEngine, ODataRequest, ODataResponse } from './types';

export type Outcome =
  | { kind: 'request'; request: PlannedRequest; response?: ODataResponse }
  | {
      kind: 'changeset';
      group: string;
      requests: PlannedRequest[];
      state: 'committed' | 'failed' | 'skipped';
      responses: ODataResponse[];
      failure?: { response: ODataResponse; request?: PlannedRequest };
    };

export const FAILED_DEPENDENCY: ODataResponse = { status: 424, headers: {} };

interface Done {
  ok: boolean;
  response: ODataResponse;
  /** The path (under the service root) the request addressed. */
  path: string;
  method: string;
}

interface Run {
  input: BatchInput;
  logger: Logger;
  /** Every request run so far, by id (JSON ids are unique; multipart ones are only looked up inside their changeset). */
  results: Map<string, Done>;
  groups: Map<string, boolean>;
}

export async function runPlan(plan: BatchPlan, input: BatchInput, continueOnError: boolean): Promise<Outcome[]> {
  const run: Run = { input, logger: input.ctx.logger ?? input.logger, results: new Map(), groups: new Map() };
  const outcomes: Outcome[] = [];
  let stopped = false;
  for (const item of plan.items) {
    if (stopped) {
      outcomes.push(skipped(item));
      continue;
    }
    const outcome = item.kind === 'request' ? await runSingle(run, item.request) : await runChangeset(run, item);
    outcomes.push(outcome);
    const failed = outcome.kind === 'request' ? (outcome.response?.status ?? 0) >= 400 : outcome.state === 'failed';
    if (failed && !continueOnError) stopped = true;
  }
  return outcomes;
}

function skipped(item: PlanItem): Outcome {
  if (item.kind === 'request') return { kind: 'request', request: item.request };
  return { kind: 'changeset', group: item.group, requests: item.requests, state: 'skipped', responses: [] };
}

async function runSingle(run: Run, request: PlannedRequest): Promise<Outcome> {
  const { response, path } = dependenciesFailed(run, request.dependsOn)
    ? { response: FAILED_DEPENDENCY, path: '' }
    : await runRequest(run, request, run.input.engine, (id) => run.results.get(id));
  if (request.id !== undefined) run.results.set(request.id, { ok: response.status < 400, response, path, method: request.method });
  return { kind: 'request', request, response };
}

/** Thrown inside a changeset's transaction to roll it back once one of its requests has failed. */
class ChangesetFailed extends Error {}

async function runChangeset(run: Run, item: Extract<PlanItem, { kind: 'changeset' }>): Promise<Outcome> {
  const { requests, group } = item;
  const local = new Map<string, Done>();
  const responses: ODataResponse[] = [];
  let failure: { response: ODataResponse; request?: PlannedRequest } | undefined;
  const outside = requests.flatMap((r) => r.dependsOn.filter((d) => !requests.some((q) => q.id === d)));
  if (dependenciesFailed(run, outside)) {
    failure = { response: FAILED_DEPENDENCY };
  } else {
    try {
      await run.input.engine.transaction(run.input.ctx, async (api) => {
        const engine: DispatchEngine = { repo: (object) => api.repo(object) };
        for (const request of requests) {
          const { response, path } = await runRequest(run, request, engine, (id) => local.get(id) ?? run.results.get(id));
          responses.push(response);
          if (response.status >= 400) {
            failure = { response, request };
            throw new ChangesetFailed('changeset failed');
          }
          if (request.id !== undefined) local.set(request.id, { ok: true, response, path, method: request.method });
        }
      });
    } catch (err) {
      if (!(err instanceof ChangesetFailed)) failure = { response: errorResponse(err, run.logger) };
    }
  }
  run.groups.set(group, !failure);
  for (const request of requests) {
    if (request.id === undefined) continue;
    const own = local.get(request.id);
    run.results.set(request.id, own && !failure ? own : { ok: false, response: FAILED_DEPENDENCY, path: '', method: request.method });
  }
  return {
    kind: 'changeset',
    group,
    requests,
    state: failure ? 'failed' : 'committed',
    responses: failure ? [] : responses,
    ...(failure ? { failure } : {}),
  };
}

function dependenciesFailed(run: Run, dependsOn: string[]): boolean {
  return dependsOn.some((dep) => (run.groups.has(dep) ? !run.groups.get(dep) : !run.results.get(dep)?.ok));
}

/** Runs one request; `path` is the path it addressed once references were resolved ('' when it did not run). */
async function runRequest(
  run: Run,
  request: PlannedRequest,
  engine: DispatchEngine,
  lookup: (id: string) => Done | undefined,
): Promise<{ response: ODataResponse; path: string }> {
  if (request.unsupported) return { response: FAILED_DEPENDENCY, path: '' };
  let resolved: { request: ODataRequest; path: string };
  try {
    resolved = resolve(request, lookup, run.input.basePath);
  } catch (err) {
    return { response: errorResponse(err, run.logger), path: '' };
  }
  try {
    return { response: await run.input.dispatcher.handle(resolved.request, run.input.ctx, engine), path: resolved.path };
  } catch (err) {
    return { response: errorResponse(err, run.logger), path: resolved.path };
  }
}

/** The request as the dispatcher takes it: references replaced, JSON body parsed. */
function resolve(
  request: PlannedRequest,
  lookup: (id: string) => Done | undefined,
  basePath: string,
): { request: ODataRequest; path: string } {
  const fail = (message: string) =>
    new ObjectQLError('INVALID_REQUEST', `${message} (${request.where})`, [{ code: 'INVALID_REQUEST', message, target: request.where }]);
  let path: string;
  if (request.target.kind === 'ref') {
    const ref = lookup(request.target.id);
    if (!ref?.ok) throw fail(`'$${request.target.id}' names no request that succeeded`);
    const entity = entityPath(ref, basePath);
    if (!entity) throw fail(`'$${request.target.id}' names a request that returned no entity URL`);
    path = entity + request.target.path;
  } else {
    path = request.target.path;
  }
  const headers = { ...request.headers };
  for (const name of ['if-match', 'if-none-match']) {
    const m = /^\$(.+)$/.exec(headers[name] ?? '');
    if (!m) continue;
    const etag = lookup(m[1])?.response.headers;
    const value = etag && Object.entries(etag).find(([k]) => k.toLowerCase() === 'etag')?.[1];
    if (!value) throw fail(`'${name}: $${m[1]}' names no request that returned an ETag`);
    headers[name] = value;
  }
  if (request.body.kind === 'invalid') throw fail(request.body.message);
  const body = request.body.kind === 'value' ? request.body.value : undefined;
  // A part with a body says so as a request sent alone would (the service's one JSON body rule
  // reads it from the headers): its length, unless the part gave one.
  if (body !== undefined && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined)
    headers['content-length'] = String(Buffer.byteLength(typeof body === 'string' ? body : JSON.stringify(body)));
  const odata: ODataRequest = {
    method: request.method,
    url: path + request.target.query,
    headers,
    ...(body !== undefined ? { body } : {}),
  };
  return { request: odata, path };
}

/** The entity a request made or addressed: its Location (under the service root), else the path it addressed (not for POST or DELETE). */
function entityPath(ref: Done, basePath: string): string | undefined {
  const location = Object.entries(ref.response.headers).find(([k]) => k.toLowerCase() === 'location')?.[1];
  if (location) {
    let path = location.split(/[?#]/)[0];
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*/.exec(path);
    if (scheme) path = path.slice(scheme[0].length);
    if (path.startsWith(`${basePath}/`)) return path.slice(basePath.length);
    if (!path.startsWith('/') && path) return `/${path}`;
    return undefined;
  }
  return ref.method !== 'POST' && ref.method !== 'DELETE' && ref.path ? ref.path : undefined;
}
