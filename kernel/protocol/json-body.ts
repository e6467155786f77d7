/**
 * Whether a request's body is JSON, by its headers: one rule for every protocol. A request with a
 * body must declare it as `application/json` or `application/<something>+json` (what the
 * kernel's body parser reads; anything else is never parsed). A request without a body (no
 * Content-Length or Transfer-Encoding, or Content-Length 0) passes: the protocol then says what is
 * missing.
 */
import { ObjectQLError } from '../errors';

const JSON_TYPE = /^application\/(json|[\w.+-]+\+json)\s*(;|$)/i;

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** Whether a Content-Type names JSON. */
export function isJsonContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_TYPE.test(contentType);
}

/** What is wrong with a body that must be JSON, or undefined when nothing is. Header names in lower case. */
export function jsonBodyProblem(headers: Headers): string | undefined {
  const length = headers['content-length'];
  const hasBody = headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (!hasBody) return undefined;
  const type = headers['content-type'];
  const contentType = Array.isArray(type) ? type.join(', ') : type;
  return isJsonContentType(contentType) ? undefined : `Content-Type must be application/json, got '${contentType ?? 'none'}'`;
}

/** Throws INVALID_REQUEST when the request carries a body that is not declared as JSON. */
export function assertJsonBody(headers: Headers): void {
  const problem = jsonBodyProblem(headers);
  if (problem) throw new ObjectQLError('INVALID_REQUEST', problem, { parameter: 'Content-Type' });
}
