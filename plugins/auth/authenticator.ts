/**
 * The `authenticate` tap. One credential form is chosen by precedence — Authorization header,
 * then X-API-Key, then the session cookie, then (when allowed) the JSON-RPC body user — and only
 * that one is checked: a credential that is present but refused is a 401, never a fall-through to
 * another form or to anonymous. Without any credential: the anonymous user when configured, else
 * 401 when authentication is required, else no user.
 */
import type { Request } from 'express';
import type { Logger } from 'pino';
import type { User } from '../../kernel';
import type { ApiKeyTable } from './api-keys';
import { bodyUser } from './body-user';
import { clearedSessionCookie, readSessionCookie } from './cookie';
import type { JwtVerifier } from './jwt';
import type { SessionOptions } from './options';
import { AUTHENTICATION_REQUIRED, CredentialRejected, rejectionError, unauthorized } from './rejection';
import type { SessionService } from './sessions';

/** How the current request was identified; the session routes read it. */
export type Credential = { form: 'bearer' | 'apiKey' | 'body' | 'anonymous' } | { form: 'session'; sessionId: string; expiresAt: Date };

export interface AuthenticatorSettings {
  jwt?: JwtVerifier;
  apiKeys?: ApiKeyTable;
  sessions?: { service: SessionService; cookie: SessionOptions['cookie'] };
  required: boolean;
  anonymous?: { roles: string[] };
  /** `security.allowBodyUser` and the JSON-RPC route it applies to. */
  bodyUser?: { rpcPath: string };
}

const BEARER = /^Bearer +([^\s]+) *$/i;

export class Authenticator {
  /** Per request, without keeping requests alive; per kernel (this instance), never module-wide. */
  private readonly credentials = new WeakMap<Request, Credential>();

  constructor(
    private readonly settings: AuthenticatorSettings,
    private readonly logger: Logger,
  ) {}

  credential(req: Request): Credential | undefined {
    return this.credentials.get(req);
  }

  async authenticate(req: Request): Promise<User | undefined> {
    try {
      const found = await this.identify(req);
      if (!found) return undefined;
      this.credentials.set(req, found.credential);
      // req.log makes a child logger on first use: only when the line will be written.
      if (this.logger.isLevelEnabled('debug'))
        req.log.debug({ auth: { credential: found.credential.form, user: found.user.id } }, 'authenticated');
      return found.user;
    } catch (err) {
      if (!(err instanceof CredentialRejected)) throw err;
      if (this.logger.isLevelEnabled('info')) req.log.info({ auth: { credential: err.form, reason: err.reason } }, 'authentication failed');
      if (err.form === 'session' && this.settings.sessions)
        req.res?.append('Set-Cookie', clearedSessionCookie(this.settings.sessions.cookie, req));
      throw rejectionError(req, err);
    }
  }

  private async identify(req: Request): Promise<{ user: User; credential: Credential } | undefined> {
    const { jwt, apiKeys, sessions, anonymous } = this.settings;
    const authorization = req.headers.authorization;
    if (authorization !== undefined) {
      const token = BEARER.exec(authorization)?.[1];
      if (!token) throw new CredentialRejected('bearer', 'the Authorization header must be "Bearer <token>"');
      if (!jwt) throw new CredentialRejected('bearer', 'this server accepts no Bearer tokens');
      return { user: await jwt.verify(token, () => req.log), credential: { form: 'bearer' } };
    }
    const key = req.headers['x-api-key'];
    if (key !== undefined) {
      if (!apiKeys) throw new CredentialRejected('apiKey', 'this server accepts no API keys');
      return { user: apiKeys.lookup(String(key)), credential: { form: 'apiKey' } };
    }
    const sessionId = sessions ? readSessionCookie(req.headers.cookie) : undefined;
    if (sessions && sessionId !== undefined) {
      const session = await sessions.service.get(sessionId);
      if (!session) throw new CredentialRejected('session', 'session expired or ended');
      return { user: session.user, credential: { form: 'session', sessionId, expiresAt: session.expiresAt } };
    }
    const fromBody = this.settings.bodyUser && bodyUser(req, this.settings.bodyUser.rpcPath);
    if (fromBody) return { user: fromBody, credential: { form: 'body' } };
    if (anonymous) return { user: { id: 'anonymous', roles: [...anonymous.roles], anonymous: true }, credential: { form: 'anonymous' } };
    if (this.settings.required) throw unauthorized(req, AUTHENTICATION_REQUIRED);
    return undefined;
  }
}
