/**
 * The rate limit in the OpenAPI document: the headers (components.headers), and on every
 * operation that passes through the limit, a 429 response and the X-RateLimit-* headers on each
 * of its responses. Pure: builds new objects, never changes what other plugins put in.
 *
 * Which operations are limited: the paths that protocol plugins add through the `openapi` hook
 * (all mounted on `routes`, behind the `request` hook). The paths already in the document the hook
 * starts from are the openapi plugin's own routes (the document and the docs page), which are
 * public routes and not limited; the plugin notes them with a first tap and leaves them alone.
 */
import { schemaRef, type OpenAPIDocument } from '../../kernel/protocol';
import { HEADERS } from './headers';

type PathItem = NonNullable<OpenAPIDocument['paths'][string]>;
type Operation = NonNullable<PathItem['get']>;
type Responses = Operation['responses'];
type Headers = NonNullable<NonNullable<OpenAPIDocument['components']>['headers']>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const integer = (description: string) => ({ description, schema: { type: 'integer' as const, minimum: 0 } });

/** The headers, as components.headers entries. */
export function rateLimitHeaders(): Headers {
  return {
    [HEADERS.limit]: integer('Requests allowed in the rate limit window closest to exhaustion (a minute or an hour)'),
    [HEADERS.remaining]: integer('Requests left in that window after this one'),
    [HEADERS.reset]: integer('When that window resets, in Unix epoch seconds'),
    [HEADERS.retryAfter]: integer('Seconds to wait before retrying (429 only); equals details.retry_after'),
  };
}

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const LIMIT_HEADERS = [HEADERS.limit, HEADERS.remaining, HEADERS.reset];

function tooManyRequests() {
  return {
    description: "RATE_LIMIT_EXCEEDED: the caller's tier allows no more requests in this minute or hour; details: {retry_after: seconds}",
    headers: Object.fromEntries([...LIMIT_HEADERS, HEADERS.retryAfter].map((h) => [h, headerRef(h)])),
    content: { 'application/json': { schema: schemaRef('Error') } },
  };
}

function withHeaders(responses: Responses): Responses {
  const out: Responses = {};
  for (const [status, response] of Object.entries(responses)) {
    out[status] =
      '$ref' in response
        ? response
        : { ...response, headers: { ...Object.fromEntries(LIMIT_HEADERS.map((h) => [h, headerRef(h)])), ...response.headers } };
  }
  if (!out['429']) out['429'] = tooManyRequests();
  return out;
}

/** `doc` with the rate limit on every operation of every path not in `publicPaths`. */
export function addRateLimits(doc: OpenAPIDocument, publicPaths: ReadonlySet<string>): OpenAPIDocument {
  const paths: OpenAPIDocument['paths'] = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!item || publicPaths.has(path)) {
      paths[path] = item;
      continue;
    }
    const copy = { ...item };
    for (const method of METHODS) {
      const op = item[method];
      if (op) copy[method] = { ...op, responses: withHeaders(op.responses) };
    }
    paths[path] = copy;
  }
  const components = doc.components ?? {};
  return { ...doc, paths, components: { ...components, headers: { ...components.headers, ...rateLimitHeaders() } } };
}
