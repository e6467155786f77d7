/**
 * The authentication plugin: identity from a Bearer JWT, an X-API-Key header, a session cookie or
 * (development only) the JSON-RPC body user, through the kernel's `authenticate` hook; the session
 * routes; and the `sessions` service for applications (revoke one session or all of a user's).
 * See docs/auth.md.
 */
import { definePlugin, type Kernel } from '../../kernel';
import { ApiKeyTable } from './api-keys';
import { Authenticator } from './authenticator';
import { describeEnv, DEVELOPMENT_SECRET_WARNING, isDevelopment, refuseDevelopmentSecret, usesDevelopmentSecret } from './development';
import { createJwtVerifier } from './jwt';
import { MemorySessionStore } from './memory-store';
import { addSessionPaths } from './openapi';
import { parseAuthOptions, type AuthOptions, type SessionOptions } from './options';
import { sessionRoutes } from './session-routes';
import type { SessionStore } from './session-store';
import { SessionManager, type SessionService } from './sessions';

export { hashApiKey } from './api-keys';
export type { AuthOptions } from './options';
export type { Session, SessionService } from './sessions';

declare module '../../kernel' {
  interface KernelServices {
    /** Registered by the auth plugin when `sessions` is configured. */
    sessions: SessionService;
  }
}

/** Runs after other `authenticate` taps, so that another identity source can answer first. */
const AUTHENTICATE_STAGE = 100;

export default definePlugin((input: AuthOptions = {}) => {
  const options = parseAuthOptions(input);
  refuseDevelopmentSecret(options.jwt);
  const jwt = options.jwt && createJwtVerifier(options.jwt);
  const apiKeys = options.apiKeys && new ApiKeyTable(options.apiKeys);
  let kernel: Kernel;
  let store: SessionStore | undefined;

  return {
    name: 'auth',
    register(k) {
      kernel = k;
      const sessionOptions = options.sessions;
      store = sessionOptions && createStore(sessionOptions, k);
      const service = store && sessionOptions && new SessionManager(store, sessionOptions.ttlSeconds);
      const authenticator = new Authenticator(
        {
          jwt,
          apiKeys,
          sessions: service && sessionOptions && { service, cookie: sessionOptions.cookie },
          required: options.required,
          anonymous: options.anonymous,
          // Read per request: the JSON-RPC plugin may register after this one, and its own `path` option moves the route.
          bodyUser: k.config.security.allowBodyUser ? { rpcPath: () => kernel.http.routes.rpc } : undefined,
        },
        k.logger,
      );
      k.hooks.authenticate.tapPromise({ name: 'auth', stage: AUTHENTICATE_STAGE }, (req) => authenticator.authenticate(req));
      const sessionPath = sessionOptions && k.http.path(sessionOptions.path);
      const routes = sessionPath ? ['POST', 'GET', 'DELETE'].map((m) => `${m} ${sessionPath}/session`) : [];
      k.hooks.capabilities.tap('auth', (list) => [
        ...list,
        {
          plugin: 'auth',
          credentials: credentialForms(),
          required: options.required && !options.anonymous,
          ...(routes.length ? { routes } : {}),
        },
      ]);
      if (service && sessionOptions && sessionPath) {
        k.provide('sessions', service);
        k.hooks.routes.tap('auth', (router) =>
          sessionRoutes(router, { kernel: k, path: sessionPath, options: sessionOptions, service, authenticator }),
        );
        k.hooks.openapi.tap('auth', (doc) => addSessionPaths(doc, sessionPath));
      }
    },
    async start() {
      warnAboutDevelopmentSettings();
      await store?.open();
      kernel.logger.info(
        {
          auth: {
            credentials: credentialForms(),
            ...(jwt ? { jwt: jwt.describe } : {}),
            ...(apiKeys ? { apiKeys: apiKeys.size } : {}),
            ...(options.sessions
              ? { sessions: { store: options.sessions.store === 'memory' ? 'memory' : 'redis', ttlSeconds: options.sessions.ttlSeconds } }
              : {}),
            required: options.required,
            ...(options.anonymous ? { anonymous: options.anonymous } : {}),
          },
        },
        'auth: ready',
      );
    },
    async stop() {
      await store?.close();
    },
  };

  function credentialForms(): string[] {
    return [
      ...(jwt ? ['bearer'] : []),
      ...(apiKeys ? ['apiKey'] : []),
      ...(options.sessions ? ['session'] : []),
      ...(kernel.config.security.allowBodyUser ? ['bodyUser'] : []),
    ];
  }

  function warnAboutDevelopmentSettings(): void {
    // Loud in development too: it is the one setting that hands out admin access.
    if (usesDevelopmentSecret(options.jwt)) kernel.logger.warn(DEVELOPMENT_SECRET_WARNING);
    if (isDevelopment()) return;
    const where = describeEnv();
    if (apiKeys?.plainCount) {
      kernel.logger.warn(
        `auth: ${apiKeys.plainCount} API key(s) are configured in plain text (apiKeys[].key) while ${where}; configure keyHash instead (objectql hash-key)`,
      );
    }
    if (kernel.config.security.allowBodyUser) {
      kernel.logger.warn(
        `auth: security.allowBodyUser is on while ${where}: any JSON-RPC caller can claim any identity; use it for development and tests only`,
      );
    }
  }
});

function createStore(sessions: SessionOptions, kernel: Kernel): SessionStore {
  if (sessions.store === 'memory') return new MemorySessionStore();
  // Loaded only when a Redis store is configured: ioredis weighs ~20 MB resident.
  const { RedisSessionStore } = require('./redis-store') as typeof import('./redis-store');
  return new RedisSessionStore(sessions.store.redis, kernel.logger, kernel.hooks);
}
