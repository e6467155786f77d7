/**
 * A batch as the executor sees it, whichever format carried it: requests and changesets (atomicity
 * groups) in order, each request's URL already resolved against the service root, or kept as a
 * reference `$<id>` to be resolved once the request it names has run.
 */
import { isJsonContentType } from '../../../kernel/protocol';
import { batchError } from './errors';

/** A URL under the service root ('/Books(1)', with '?query' apart), or one that starts with `$<id>`. */
export type Target = { kind: 'path'; path: string; query: string } | { kind: 'ref'; id: string; path: string; query: string };

export type RequestBody = { kind: 'none' } | { kind: 'value'; value: unknown } | { kind: 'invalid'; message: string };

export interface PlannedRequest {
  /** Content-ID (multipart) or id (JSON). */
  id?: string;
  method: string;
  target: Target;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: RequestBody;
  /** Where it is in the batch, for error targets: 'part 2', 'part 3.1', 'requests[4]'. */
  where: string;
  /** JSON batch: ids or atomicity groups that must have succeeded first. */
  dependsOn: string[];
  /** JSON batch: a member the service does not support (`if`); the request fails with 424. */
  unsupported?: string;
}

export type PlanItem =
  { kind: 'request'; request: PlannedRequest } | { kind: 'changeset'; group: string; requests: PlannedRequest[]; where: string };

export interface BatchPlan {
  format: 'multipart' | 'json';
  items: PlanItem[];
}

export const METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** Top-level system resources: a first segment naming one is no Content-ID reference. */
const SYSTEM_RESOURCES = new Set(['$batch', '$crossjoin', '$all', '$entity', '$root', '$id', '$metadata']);

/**
 * Resolves a request URL against the service root `basePath`: an absolute URL (its host is not
 * checked) or an absolute path must lie under basePath; a relative path is relative to the
 * service root; a relative path whose first segment is `$<id>` (not a system resource) is a
 * reference. Dot segments and nested $batch requests are refused.
 */
export function parseTarget(raw: string, basePath: string, where: string): Target {
  const hash = raw.indexOf('#');
  const url = hash < 0 ? raw : raw.slice(0, hash);
  const mark = url.indexOf('?');
  let path = mark < 0 ? url : url.slice(0, mark);
  const query = mark < 0 ? '' : url.slice(mark);
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*/.exec(path);
  if (scheme) path = path.slice(scheme[0].length) || '/';
  let target: Target;
  if (path.startsWith('/')) {
    if (path !== basePath && !path.startsWith(`${basePath}/`))
      throw batchError(`URL '${raw}' is outside the service root '${basePath}'`, where);
    target = { kind: 'path', path: path.slice(basePath.length) || '/', query };
  } else if (scheme) {
    throw batchError(`URL '${raw}' is outside the service root '${basePath}'`, where);
  } else {
    const slash = path.indexOf('/');
    const first = slash < 0 ? path : path.slice(0, slash);
    if (first.startsWith('$') && !SYSTEM_RESOURCES.has(first.toLowerCase())) {
      if (first.length === 1) throw batchError(`URL '${raw}' starts with '$' but names no Content-ID`, where);
      target = { kind: 'ref', id: first.slice(1), path: slash < 0 ? '' : path.slice(slash), query };
    } else {
      target = { kind: 'path', path: `/${path}`, query };
    }
  }
  const segments = target.path.split('/');
  if (segments.some((s) => s === '.' || s === '..')) throw batchError(`URL '${raw}' has '.' or '..' segments`, where);
  if (target.kind === 'path' && segments[1]?.toLowerCase() === '$batch') throw batchError('a batch cannot contain a $batch request', where);
  return target;
}

/**
 * A request body as the dispatcher takes it: JSON parsed when declared JSON or undeclared, another
 * type as text. The service then holds a body to its one rule: an undeclared one is refused
 * naming the Content-Type, as another type is.
 */
export function decodeBody(body: Buffer, contentType: string | undefined): RequestBody {
  if (body.length === 0) return { kind: 'none' };
  const text = body.toString('utf8');
  if (contentType?.trim() && !isJsonContentType(contentType)) return { kind: 'value', value: text };
  try {
    return { kind: 'value', value: JSON.parse(text) as unknown };
  } catch (err) {
    return { kind: 'invalid', message: `Malformed JSON in request body: ${(err as Error).message}` };
  }
}

/** Checks of a changeset shared by both formats: no GET, unique ids, references only to earlier requests of it. */
export function checkChangeset(requests: PlannedRequest[], where: string, label: 'changeset' | 'atomicity group'): void {
  if (requests.length === 0) throw batchError(`the ${label} holds no request`, where);
  const seen = new Set<string>();
  for (const r of requests) {
    if (r.method === 'GET')
      throw batchError(
        `GET is not allowed in ${label === 'changeset' ? 'a' : 'an'} ${label}: it holds data modification requests only (OData 4.0 §11.7.3)`,
        r.where,
      );
    if (r.target.kind === 'ref' && !seen.has(r.target.id) && !r.dependsOn.includes(r.target.id)) {
      throw batchError(
        `'$${r.target.id}' names no earlier request of this ${label} (Content-ID references are scoped to their ${label})`,
        r.where,
      );
    }
    if (r.id !== undefined) {
      if (seen.has(r.id)) throw batchError(`Content-ID '${r.id}' is used twice in this ${label}`, r.where);
      seen.add(r.id);
    }
  }
}
