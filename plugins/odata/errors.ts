/**
 * The service's errors in OData's format: `{error: {code, message, details: [{code, message,
 * target}], innererror?}}`. The code and HTTP status are the kernel's (the spec's table); the
 * kernel's own `details` object is turned into OData details and kept whole in `innererror`, so
 * what other protocols say (validation `fields`, permission `required_permission` and
 * `user_roles`, `retry_after`) is still there. Pure: no HTTP.
 */
import { isPlainObject, ObjectQLError, toHttpError, type ErrorBody } from '../../kernel';

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

/** Message of a validation failure meaning "missing": reported with the code REQUIRED_FIELD. */
const REQUIRED = 'is required';

/** Anything thrown → the ObjectQLError it stands for (framework errors mapped as the kernel maps them). */
export function asObjectQLError(err: unknown): ObjectQLError {
  return toHttpError(err);
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
    return d.filter(isPlainObject).map((x) => detail(String(x.code ?? error.code), String(x.message ?? error.message), x.target));
  if (!isPlainObject(d)) return [];
  if (isPlainObject(d.fields)) {
    return Object.entries(d.fields).map(([field, message]) =>
      detail(message === REQUIRED ? 'REQUIRED_FIELD' : error.code, `${field}: ${String(message)}`, field),
    );
  }
  const target = d.field ?? d.parameter ?? d.object;
  return target === undefined ? [] : [detail(error.code, error.message, target)];
}

function detail(code: string, message: string, target: unknown): ODataErrorDetail {
  return target === undefined || target === null ? { code, message } : { code, message, target: String(target) };
}

/**
 * An error rendered in OData's format through the kernel's `sendError` (which logs server
 * errors, adds WWW-Authenticate to a 401 and removes the request's credentials from the body).
 */
export class ODataRenderedError extends ObjectQLError {
  constructor(readonly original: ObjectQLError) {
    super(original.code, original.message, original.details);
  }

  override toBody(): ErrorBody {
    // ErrorBody's `details` is `unknown`: the OData body is one, with `innererror` beside it.
    return odataErrorBody(this.original) as unknown as ErrorBody;
  }
}
