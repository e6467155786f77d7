/**
 * How a credential that is present but not accepted becomes a 401: the message names the form and
 * the reason in general terms, never the credential itself; `WWW-Authenticate` tells the client
 * which scheme to use (RFC 6750).
 */
import { ObjectQLError, type AuthRequest } from '../../kernel';

export type CredentialForm = 'bearer' | 'apiKey' | 'session';

const LABEL: Record<CredentialForm, string> = {
  bearer: 'Bearer token',
  apiKey: 'API key',
  session: 'Session cookie',
};

/** A credential that was presented and refused, with a reason safe to show the caller. */
export class CredentialRejected extends Error {
  constructor(
    readonly form: CredentialForm,
    readonly reason: string,
  ) {
    super(`${LABEL[form]} rejected: ${reason}`);
    this.name = 'CredentialRejected';
  }
}

export const AUTHENTICATION_REQUIRED = 'Authentication required: send a Bearer token, an X-API-Key header or a session cookie';

/** UNAUTHORIZED with the `WWW-Authenticate` header set on the response that will carry it. */
export function unauthorized(req: AuthRequest, message: string, details?: unknown, invalidToken = false): ObjectQLError {
  req.responseHeaders.set('WWW-Authenticate', invalidToken ? 'Bearer error="invalid_token"' : 'Bearer');
  return new ObjectQLError('UNAUTHORIZED', message, details);
}

export function rejectionError(req: AuthRequest, rejection: CredentialRejected): ObjectQLError {
  return unauthorized(req, rejection.message, { credential: rejection.form, reason: rejection.reason }, rejection.form === 'bearer');
}
