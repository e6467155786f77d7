/**
 * Which pages may open a WebSocket that carries cookies (cross-site WebSocket hijacking: browsers
 * send a site's cookies with an upgrade from any other site's page, and no CORS rule stops it).
 * Pure. See docs/security.md, "WebSockets".
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ResolvedConfig } from '../config/schema';

type Security = ResolvedConfig['security'];

/**
 * Allowed: an upgrade without a cookie (no ambient credential to abuse), one without an Origin
 * (not sent by a browser), one from the service's own origin (the Origin's host is the Host
 * header), or one from an origin listed in `security.websocketOrigins` ('*': any) or in
 * `security.cors` with `credentials: true`.
 */
export function websocketOriginAllowed(headers: IncomingHttpHeaders, security: Security): boolean {
  if (!headers.cookie) return true;
  const origin = headers.origin;
  if (origin === undefined) return true;
  const parsed = parseOrigin(origin);
  if (!parsed) return false;
  if (headers.host && sameHost(parsed, headers.host)) return true;
  return allowedOrigins(security).some((allowed) => allowed === '*' || parseOrigin(allowed)?.origin === parsed.origin);
}

function allowedOrigins(security: Security): string[] {
  const cors = security.cors;
  const fromCors = typeof cors === 'object' && cors.credentials ? [cors.origin].flat() : [];
  return [...security.websocketOrigins, ...fromCors];
}

function parseOrigin(origin: string): URL | undefined {
  try {
    const url = new URL(origin);
    return url.origin === 'null' ? undefined : url;
  } catch {
    return undefined;
  }
}

/** The Host header read with the Origin's scheme, so that a default port written or not compares equal. */
function sameHost(origin: URL, host: string): boolean {
  try {
    return new URL(`${origin.protocol}//${host}`).host === origin.host;
  } catch {
    return false;
  }
}
