/**
 * The service's errors in OData's format: `{error: {code, message, details: [{code, message,
 * target}], innererror?}}`. The code and HTTP status are the kernel's (the spec's table, docs/spec.md, "Errors"); the
 * kernel's own `details` object is turned into OData details and kept whole in `innererror`, so
 * what other protocols say (validation `fields`, permission `required_permission` and
 * `user_roles`, `retry_after`) is still there. Pure: no HTTP.
 */
import { isPlainObject, type ObjectQLError } from '../../kernel';
import { jsonContentType, ODATA_VERSION } from './format';
import { MethodNotAllowed } from './request-checks';

export interface ODataErrorDetail {
  code: string;
  message: string;
  target?: string;
}

export interface ODataErrorBody {
  error: {
    code: string;
    message: string;
    details: ODataErrorDetail[];
    /** The kernel's details object, as the other protocols show it. */
    innererror?: Record<string, unknown>;
  };
}

/** An error as OData answers it: the kernel's status, OData's headers and body. */
export interface ODataErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: ODataErrorBody;
}

/** Message of a validation failure meaning "missing": reported with the code REQUIRED_FIELD. */
const REQUIRED = 'is required';

/**
 * The whole OData error response: every OData error, whether the service answers it (a request,
 * a $batch part) or the kernel does (credentials refused, a rate limit, a body that does not
 * parse), is this. Errors are never cached; a method the resource does not take names the ones
 * it does in Allow.
 */
export function odataErrorResponse(error: ObjectQLError): ODataErrorResponse {
  const headers: Record<string, string> = {
    'Content-Type': jsonContentType('minimal'),
    'OData-Version': ODATA_VERSION,
    'Cache-Control': 'no-store',
  };
  if (error instanceof MethodNotAllowed) headers.Allow = error.allow.join(', ');
  return { status: error.status, headers, body: odataErrorBody(error) };
}

/** The OData error body of an error. */
export function odataErrorBody(error: ObjectQLError): ODataErrorBody {
  const body: ODataErrorBody = { error: { code: error.code, message: error.message, details: odataDetails(error) } };
  if (isPlainObject(error.details)) body.error.innererror = error.details;
  return body;
}

/**
 * - an array of {code, message, target} (the query parser's form) is kept;
 * - validation `fields` → one detail per field, REQUIRED_FIELD or the error's code, target = field;
 * - one `field`, `parameter` or `object` named → one detail with that target;
 * - anything else → no detail.
 */
function odataDetails(error: ObjectQLError): ODataErrorDetail[] {
  const d = error.details;
  if (Array.isArray(d))
    return d.filter(isPlainObject).map((x) => detail(text(x.code) ?? error.code, text(x.message) ?? error.message, x.target));
  if (!isPlainObject(d)) return [];
  if (isPlainObject(d.fields)) {
    return Object.entries(d.fields).map(([field, message]) =>
      detail(message === REQUIRED ? 'REQUIRED_FIELD' : error.code, `${field}: ${text(message) ?? JSON.stringify(message)}`, field),
    );
  }
  const target = d.field ?? d.parameter ?? d.object;
  return target === undefined ? [] : [detail(error.code, error.message, target)];
}

function detail(code: string, message: string, target: unknown): ODataErrorDetail {
  const named = text(target);
  return named === undefined ? { code, message } : { code, message, target: named };
}

/** A detail's member as text: strings, numbers and booleans as written; anything else is no text. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}
