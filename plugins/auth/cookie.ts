/** The `session_id` cookie: read from the Cookie header, set and cleared with fixed attributes. */
import type { SessionOptions } from './options';

export const SESSION_COOKIE = 'session_id';

/** The first `session_id` value of a Cookie header, or undefined. */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1) : value;
  }
  return undefined;
}

/** `Set-Cookie` for a new session lasting `maxAgeSeconds`. */
export function sessionCookie(id: string, maxAgeSeconds: number, options: SessionOptions['cookie'], secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; ${attributes(options, secure)}; Max-Age=${maxAgeSeconds}`;
}

/** `Set-Cookie` that removes the session cookie from the browser. */
export function clearedSessionCookie(options: SessionOptions['cookie'], secure: boolean): string {
  return `${SESSION_COOKIE}=; ${attributes(options, secure)}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}

/** `secure`: whether the request came over TLS (what `secure: 'auto'` follows). */
function attributes(options: SessionOptions['cookie'], secure: boolean): string {
  const markSecure = options.secure === 'auto' ? secure : options.secure;
  return `HttpOnly; SameSite=${options.sameSite === 'strict' ? 'Strict' : 'Lax'}; Path=/${markSecure ? '; Secure' : ''}`;
}
