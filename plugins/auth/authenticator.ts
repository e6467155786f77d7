/**
 * The `authenticate` tap. One credential form is chosen by precedence — Authorization header,
 * then X-API-Key, then the session cookie, then (when allowed) the JSON-RPC body user — and only
 * that one is checked: a credential that is present but refused is a 401, never a fall-through to
 * another form or to anonymous. Without any credential: the anonymous user when configured, else
 * 401 when authentication is required, else no user. The same on every transport: it reads only
 * the kernel's AuthRequest.
 */
import type { AuthRequest, Logger, User } from '../../kernel';
import type { ApiKeyTable } from './api-keys';
import { bodyUser } from './body-user';
import { clearedSessionCookie, readSessionCookie } from './cookie';
import type { JwtVerifier } from './jwt';
import type { SessionOptions } from './options';
import { AUTHENTICATION_REQUIRED, CredentialRejected, rejectionError, unauthorized, type CredentialForm } from './rejection';
import type { SessionService } from './sessions';

export interface AuthenticatorSettings {
  jwt?: JwtVerifier;
  apiKeys?: ApiKeyTable;
  sessions?: { service: SessionService; cookie: SessionOptions['cookie'] };
  required: boolean;
  anonymous?: { roles: string[] };
  /** `security.allowBodyUser`, and the JSON-RPC route as served (asked per request: it is known once every plugin registered). */
  bodyUser?: { rpcPath: () => string };
}

const BEARER = /^Bearer +([^\s]+) *$/i;

export class Authenticator {
  constructor(
    private readonly settings: AuthenticatorSettings,
    private readonly logger: Logger,
  ) {}

  /**
   * The credential form that decides who the request is (the session routes ask: a request that
   * got through `authenticate` with this form was authenticated by it).
   */
  formOf(headers: AuthRequest['headers']): CredentialForm | undefined {
    if (headers.authorization !== undefined) return 'bearer';
    if (headers['x-api-key'] !== undefined) return 'apiKey';
    if (this.settings.sessions && readSessionCookie(headers.cookie) !== undefined) return 'session';
    return undefined;
  }

  async authenticate(req: AuthRequest): Promise<User | undefined> {
    const form = this.formOf(req.headers);
    try {
      const user = await this.identify(req, form);
      if (user && this.logger.isLevelEnabled('debug'))
        req.log.debug({ auth: { credential: form ?? 'none', user: user.id } }, 'authenticated');
      return user;
    } catch (err) {
      if (!(err instanceof CredentialRejected)) throw err;
      if (this.logger.isLevelEnabled('info')) req.log.info({ auth: { credential: err.form, reason: err.reason } }, 'authentication failed');
      if (err.form === 'session' && this.settings.sessions) {
        req.responseHeaders.append('Set-Cookie', clearedSessionCookie(this.settings.sessions.cookie, req.secure));
      }
      throw rejectionError(req, err);
    }
  }

  private async identify(req: AuthRequest, form: CredentialForm | undefined): Promise<User | undefined> {
    const { jwt, apiKeys, sessions, anonymous } = this.settings;
    switch (form) {
      case 'bearer': {
        const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
        if (!token) throw new CredentialRejected('bearer', 'the Authorization header must be "Bearer <token>"');
        if (!jwt) throw new CredentialRejected('bearer', 'this server accepts no Bearer tokens');
        return jwt.verify(token, () => req.log);
      }
      case 'apiKey':
        if (!apiKeys) throw new CredentialRejected('apiKey', 'this server accepts no API keys');
        return apiKeys.lookup(String(req.headers['x-api-key']));
      case 'session': {
        const session = await sessions!.service.get(readSessionCookie(req.headers.cookie)!);
        if (!session) throw new CredentialRejected('session', 'session expired or ended');
        return session.user;
      }
      case undefined:
        break;
    }
    const fromBody = this.settings.bodyUser && bodyUser(req, this.settings.bodyUser.rpcPath());
    if (fromBody) return fromBody;
    if (anonymous) return { id: 'anonymous', roles: [...anonymous.roles], anonymous: true };
    if (this.settings.required) throw unauthorized(req, AUTHENTICATION_REQUIRED);
    return undefined;
  }
}
