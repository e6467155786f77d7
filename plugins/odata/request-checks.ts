/**
 * What an OData request may carry, resource by resource: its methods (others are 400 with an
 * Allow header), its system query options (others are 400 naming them; custom options without
 * `$` are ignored, as OData allows), a JSON body for writes, and the `return=minimal` preference.
 * Pure: no HTTP.
 */
import { ObjectQLError } from '../../kernel';
import { jsonBodyProblem } from '../../kernel/protocol';

/** A method the resource does not take: INVALID_REQUEST (the spec has no 405), answered with Allow. */
export class MethodNotAllowed extends ObjectQLError {
  constructor(
    method: string,
    what: string,
    readonly allow: string[],
  ) {
    super('INVALID_REQUEST', `${method} is not supported on ${what}; use ${allow.join(', ')}`);
  }
}

export function allowMethods(method: string, methods: string[], what: string): void {
  if (!methods.includes(method)) throw new MethodNotAllowed(method, what, methods.includes('GET') ? [...methods, 'HEAD'] : methods);
}

/** No system query option ($...) is taken here. */
export function noOptions(query: URLSearchParams): void {
  onlyOptions(query, [], 'this request');
}

/** The query restricted to the system options `names`; any other system option is INVALID_REQUEST. */
export function onlyOptions(query: URLSearchParams, names: string[], what: string): URLSearchParams {
  const out = new URLSearchParams();
  for (const [name, value] of query) {
    if (names.includes(name)) out.append(name, value);
    else if (name.startsWith('$')) {
      const message = `Query option ${name} is not supported on ${what}${names.length ? `; use ${names.join(', ')}` : ''}`;
      throw new ObjectQLError('INVALID_REQUEST', message, [{ code: 'INVALID_REQUEST', message, target: name }]);
    }
  }
  return out;
}

/**
 * The body of a write, which must be JSON by the protocol layer's one rule (a request that has a
 * body declares application/json or application/*+json): 400 INVALID_REQUEST otherwise (the
 * spec's table has no 415), with OData's detail naming Content-Type. `headers` are the request's
 * as sent (lower-case names): Content-Length or Transfer-Encoding say whether it has a body.
 */
export function jsonBody(headers: Record<string, string>, body: unknown): unknown {
  const message = jsonBodyProblem(headers);
  if (message) throw new ObjectQLError('INVALID_REQUEST', message, [{ code: 'INVALID_REQUEST', message, target: 'Content-Type' }]);
  return body;
}

/** `Prefer: return=minimal` (lower-case header names). */
export function prefersMinimal(headers: Record<string, string>): boolean {
  return /(^|[,;\s])return\s*=\s*minimal\b/i.test(headers.prefer ?? '');
}
