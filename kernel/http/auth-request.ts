/**
 * The request the `authenticate` hook judges, the same shape on every transport: an HTTP request
 * (built by the kernel for every non-public route) and a WebSocket (its upgrade request, or a
 * credential a client sends over the socket, such as graphql-ws's `authorization` connection
 * parameter). A tap reads headers, method, path and address and may add headers to the answer;
 * it never sees an Express object, so one tap serves every transport.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Request, Response } from 'express';
import type { Logger } from '../logger';

export interface AuthRequest {
  /** `http` for an HTTP request; `ws` for a WebSocket (its upgrade, or a credential sent over it). */
  readonly transport: 'http' | 'ws';
  /** The HTTP method; `GET` for a WebSocket. */
  readonly method: string;
  /** The path, without the query string. */
  readonly path: string;
  /**
   * Header names in lower case. Over a WebSocket these are the upgrade request's headers, or only
   * the credentials the client sent over the socket when the protocol carries them there.
   */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The TCP peer's address (X-Forwarded-For is not trusted). */
  readonly ip: string | undefined;
  /** Whether the connection is TLS. */
  readonly secure: boolean;
  /** HTTP: the parsed JSON body, when there is one; undefined over a WebSocket. */
  readonly body: unknown;
  /** A logger for this request (carrying its id over HTTP). */
  readonly log: Logger;
  /**
   * Headers for the answer to this request: HTTP sets them on the response (a 401's
   * `WWW-Authenticate`, a cleared cookie); a WebSocket upgrade that is refused sends them with
   * its refusal. Over an open socket there is no answer to carry them.
   */
  readonly responseHeaders: Headers;
}

/** The AuthRequest of an HTTP request; `applyResponseHeaders` copies what the taps added onto `res`. */
export function httpAuthRequest(req: Request): AuthRequest {
  return new LazyHeadersRequest(
    'http',
    req.method,
    req.path,
    flatHeaders(req.headers),
    req.socket.remoteAddress,
    isTls(req),
    req.body,
    req.log,
  );
}

/**
 * The AuthRequest of a WebSocket upgrade request. `credentials` replaces the request's headers
 * when the protocol carries credentials over the socket instead (graphql-ws's connection
 * parameters, the realtime API's `auth` message).
 */
export function upgradeAuthRequest(req: IncomingMessage, log: Logger, credentials?: Record<string, string>): AuthRequest {
  let path = '/';
  try {
    path = new URL(req.url ?? '/', 'http://localhost').pathname;
  } catch {
    /* a malformed URL stays '/' */
  }
  const headers = credentials ? lowerCased(credentials) : flatHeaders(req.headers);
  return new LazyHeadersRequest('ws', 'GET', path, headers, req.socket.remoteAddress, isTls(req), undefined, log);
}

/** Sets the headers the `authenticate` taps added on the HTTP response (each Set-Cookie on its own). */
export function applyResponseHeaders(request: AuthRequest, res: Response): void {
  const headers = request instanceof LazyHeadersRequest ? request.added() : request.responseHeaders;
  if (!headers) return;
  for (const cookie of headers.getSetCookie()) res.append('Set-Cookie', cookie);
  for (const [name, value] of headers) if (name !== 'set-cookie') res.setHeader(name, value);
}

/** Builds `responseHeaders` only when a tap asks for it: most requests add none. */
class LazyHeadersRequest implements AuthRequest {
  #responseHeaders?: Headers;

  constructor(
    readonly transport: 'http' | 'ws',
    readonly method: string,
    readonly path: string,
    readonly headers: Readonly<Record<string, string | undefined>>,
    readonly ip: string | undefined,
    readonly secure: boolean,
    readonly body: unknown,
    readonly log: Logger,
  ) {}

  get responseHeaders(): Headers {
    return (this.#responseHeaders ??= new Headers());
  }

  /** The response headers, if a tap added any. */
  added(): Headers | undefined {
    return this.#responseHeaders;
  }
}

function isTls(req: IncomingMessage): boolean {
  return (req.socket as Partial<TLSSocket>).encrypted === true;
}

/**
 * Node joins repeated request headers itself (', ', or '; ' for cookies) except a few kept as
 * arrays: those are joined here, and the object is passed on untouched when there are none.
 */
function flatHeaders(headers: IncomingHttpHeaders): Record<string, string | undefined> {
  for (const value of Object.values(headers)) {
    if (Array.isArray(value)) {
      return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
    }
  }
  return headers as Record<string, string | undefined>;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
