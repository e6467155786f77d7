/**
 * HTTP hygiene, mounted by the host before anything else (docs/security.md): CORS for browsers on
 * other origins (off unless configured; preflights are answered here, before authentication), the
 * security headers of a JSON API on every response, and keeping credentials out of error bodies.
 */
import cors from 'cors';
import type { Request, RequestHandler } from 'express';
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
  if (security.headers) out.push(securityHeaders(security) as RequestHandler, apiCsp);
  if (security.cors !== false) out.push(corsMiddleware(security.cors) as RequestHandler);
  return out;
}

/** Set by hand, not by helmet, to keep the exact text; a route serving HTML sets its own after this. */
const apiCsp: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', API_CSP);
  next();
};

function securityHeaders(security: Security) {
  const hsts = security.hsts === false ? false : security.hsts === true ? { maxAge: ONE_YEAR, includeSubDomains: true } : security.hsts;
  return helmet({
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
