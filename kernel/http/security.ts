/**
 * HTTP hygiene, mounted by the host before anything else (docs/security.md): CORS for browsers on
 * other origins (off unless configured; preflights are answered here, before authentication), the
 * security headers of a JSON API on every response, and keeping credentials out of error bodies.
 */
import cors from 'cors';
import type { Request, RequestHandler } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import type { ResolvedConfig } from '../config/schema';

type Security = ResolvedConfig['security'];

/** Response headers a browser script may read whenever CORS is on (plus the configured ones). */
export const EXPOSED_HEADERS: readonly string[] = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'ETag',
  'Location',
  'WWW-Authenticate',
];

/** A JSON API loads nothing and is framed by nobody. Routes serving HTML (the API docs page) set their own. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

const ONE_YEAR = 31_536_000;

/** The middleware, in order: security headers, then CORS. */
export function securityMiddleware(security: Security): RequestHandler[] {
  const out: RequestHandler[] = [];
  if (security.headers) out.push(fixedHeaders(securityHeaders(security)));
  if (security.cors !== false) out.push(corsMiddleware(security.cors) as RequestHandler);
  return out;
}

/** What helmet does to a response, recorded once: its headers set and removed, then the API's CSP. */
interface FixedHeaders {
  set: Array<[string, string]>;
  removed: string[];
}

/**
 * One middleware setting the recorded headers: helmet decides them (once, at start-up, on a
 * recording response) but runs eleven middlewares per request to set constants. Set by hand
 * after helmet's: the CSP, to keep its exact text; a route serving HTML sets its own after this.
 */
function fixedHeaders(headers: FixedHeaders): RequestHandler {
  const { set, removed } = headers;
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (let i = 0; i < set.length; i++) res.setHeader(set[i][0], set[i][1]);
    next();
  };
}

function securityHeaders(security: Security): FixedHeaders {
  const hsts = security.hsts === false ? false : security.hsts === true ? { maxAge: ONE_YEAR, includeSubDomains: true } : security.hsts;
  const middleware = helmet({
    contentSecurityPolicy: false,
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    // With CORS on, other origins are meant to use the responses (files in <img> included).
    crossOriginResourcePolicy: { policy: security.cors === false ? 'same-origin' : 'cross-origin' },
    originAgentCluster: true,
    referrerPolicy: { policy: 'no-referrer' },
    // Only behind TLS: a browser that saw it over plain HTTP would refuse this host's http:// URLs.
    strictTransportSecurity: hsts,
    xContentTypeOptions: true,
    xDnsPrefetchControl: { allow: false },
    xDownloadOptions: true,
    xFrameOptions: { action: 'deny' },
    xPermittedCrossDomainPolicies: { permittedPolicies: 'none' },
    xPoweredBy: true,
    xXssProtection: true,
  });
  const recorded: FixedHeaders = { set: [], removed: [] };
  // helmet's headers depend on its options only, never on the request: a stand-in response records them.
  const recorder = {
    setHeader: (name: string, value: string) => void recorded.set.push([name, String(value)]),
    removeHeader: (name: string) => void recorded.removed.push(name),
  };
  let done = false;
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, () => (done = true));
  if (!done) throw new Error('helmet did not finish synchronously');
  recorded.set.push(['Content-Security-Policy', API_CSP]);
  return recorded;
}

function corsMiddleware(setting: Exclude<Security['cors'], false>) {
  const options = setting === true ? { origin: '*' } : setting;
  const origins = [options.origin].flat();
  return cors({
    // One '*' means any origin; otherwise the request's Origin is echoed when listed, and Vary: Origin is sent.
    origin: origins.includes('*') ? '*' : origins.length === 1 ? origins[0] : origins,
    credentials: 'credentials' in options ? options.credentials : undefined,
    maxAge: 'maxAge' in options ? options.maxAge : undefined,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: 'allowedHeaders' in options ? options.allowedHeaders : undefined,
    exposedHeaders: [...new Set([...EXPOSED_HEADERS, ...('exposedHeaders' in options ? (options.exposedHeaders ?? []) : [])])],
    optionsSuccessStatus: 204,
  });
}

/** Credentials shorter than this are not searched for (they would match ordinary words). */
const MIN_SECRET_LENGTH = 8;

/** The credentials a request carries: the Authorization value (and its token), X-API-Key, and each cookie value. */
export function requestCredentials(req: Pick<Request, 'headers'>): string[] {
  const found: string[] = [];
  const auth = req.headers.authorization;
  if (auth) found.push(auth, auth.replace(/^\S+\s+/, ''));
  const key = req.headers['x-api-key'];
  found.push(...[key ?? []].flat());
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const value = part.slice(part.indexOf('=') + 1).trim();
    if (part.includes('=')) found.push(value);
  }
  return [...new Set(found.map((s) => s.trim()))].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/**
 * An error body with every credential of the request replaced: whatever a plugin put in a message
 * or in details, a token never comes back in a response (nor, through it, in a proxy's log).
 */
export function withoutCredentials<T>(body: T, req: Pick<Request, 'headers'>): T {
  const secrets = requestCredentials(req);
  if (!secrets.length) return body;
  let json = JSON.stringify(body);
  const before = json;
  for (const secret of secrets) {
    const encoded = JSON.stringify(secret).slice(1, -1);
    json = json.split(encoded).join('[redacted]');
  }
  return json === before ? body : (JSON.parse(json) as T);
}
