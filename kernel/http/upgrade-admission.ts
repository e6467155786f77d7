/**
 * Admission of WebSockets, on every transport-neutral path a socket is opened or authenticated:
 *
 * - `admitUpgrade`: run by the host for every upgrade before its handler (and by a plugin's own
 *   port): the Origin check for cookie-bearing upgrades (403), the `upgrade` hook (the rate
 *   limiter counts there: 429 with Retry-After), the connections per address (429). A refusal is
 *   answered over HTTP before the handshake.
 * - `authenticateSocket`: credentials presented over an open socket (graphql-ws's
 *   connection_init, the realtime `auth` message) go through `authenticate` and then through the
 *   same `upgrade` hook, so a failed login over a socket counts as one over HTTP does.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { User } from '../context';
import { ObjectQLError, toObjectQLError } from '../errors';
import type { Kernel } from '../kernel';
import { webSockets } from '../protocol/ws-registry';
import { upgradeAuthRequest, type AuthRequest } from './auth-request';
import { withoutCredentials } from './security';
import { refuseSocket } from './raw-response';
import { websocketOriginAllowed } from './websocket-origin';

/** What the `upgrade` hook judges. */
export interface UpgradeAdmission {
  /** `upgrade`: an upgrade request, before its handler; `credentials`: credentials sent over an open socket. */
  readonly phase: 'upgrade' | 'credentials';
  /** The request as `authenticate` sees it; a tap's headers go with an upgrade's refusal. */
  readonly request: AuthRequest;
  /** Who the request is: `authenticate` run once on its credentials (rejects as authenticate throws). */
  user(): Promise<User | undefined>;
}

/** Admits an upgrade request, or answers its refusal on `socket` and resolves to undefined. */
export async function admitUpgrade(kernel: Kernel, req: IncomingMessage, socket: Duplex): Promise<UpgradeAdmission | undefined> {
  if (!websocketOriginAllowed(req.headers, kernel.config.security)) {
    const origin = String(req.headers.origin);
    refuseUpgrade(
      req,
      socket,
      new ObjectQLError('FORBIDDEN', `WebSocket from origin '${origin}' refused: it carries cookies and the origin is not allowed`, {
        origin,
        limit: 'security.websocketOrigins',
      }),
    );
    return undefined;
  }
  const request = upgradeAuthRequest(req, kernel.logger);
  const admission = admissionOf(
    'upgrade',
    request,
    once(() => authenticate(kernel, request)),
  );
  try {
    await kernel.hooks.upgrade.promise(admission);
  } catch (err) {
    refuseUpgrade(req, socket, toObjectQLError(err), request.responseHeaders);
    return undefined;
  }
  const refused = webSockets(kernel).holdAddress(req.socket.remoteAddress, socket);
  if (refused) {
    refuseUpgrade(req, socket, refused);
    return undefined;
  }
  return admission;
}

/**
 * Credentials sent over an open socket: the user they stand for, or the refusal — UNAUTHORIZED
 * from `authenticate`, or what an `upgrade` tap threw (the rate limiter's RATE_LIMIT_EXCEEDED).
 */
export async function authenticateSocket(
  kernel: Kernel,
  req: IncomingMessage,
  credentials: Record<string, string>,
): Promise<{ user: User | undefined } | { refused: ObjectQLError }> {
  const request = upgradeAuthRequest(req, kernel.logger, credentials);
  const attempt = once(() => authenticate(kernel, request));
  try {
    await kernel.hooks.upgrade.promise(admissionOf('credentials', request, attempt));
    return { user: await attempt() };
  } catch (err) {
    return { refused: toObjectQLError(err) };
  }
}

/** Answers an upgrade request with an error (the spec's body, without the request's credentials) and closes. */
export function refuseUpgrade(req: IncomingMessage, socket: Duplex, error: ObjectQLError, headers?: Headers): void {
  const extra = new Headers(headers);
  if (error.status === 401 && !extra.has('WWW-Authenticate')) extra.set('WWW-Authenticate', 'Bearer');
  const retryAfter = (error.details as { retry_after?: unknown } | undefined)?.retry_after;
  if (error.status === 429 && typeof retryAfter === 'number' && !extra.has('Retry-After')) extra.set('Retry-After', String(retryAfter));
  refuseSocket(socket, error, { headers: Object.fromEntries(extra), body: withoutCredentials(error.toBody(), req) });
}

function admissionOf(phase: UpgradeAdmission['phase'], request: AuthRequest, user: () => Promise<User | undefined>): UpgradeAdmission {
  return { phase, request, user };
}

async function authenticate(kernel: Kernel, request: AuthRequest): Promise<User | undefined> {
  return (await kernel.hooks.authenticate.promise(request)) ?? undefined;
}

function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= fn());
}
