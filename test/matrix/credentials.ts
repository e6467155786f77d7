/**
 * Identity, in ONE place: how a matrix caller proves who it is, and what the server needs to
 * understand that — a real Bearer JWT (HS256, signed here with the test secret) verified by the
 * `auth` plugin. `required: false`: a caller without a token reaches the engine as anonymous, so
 * the matrix asserts what the permission files give anonymous callers.
 */
import { createHmac } from 'node:crypto';
import type { ObjectQLConfig } from '../../kernel';
import type { StartOptions } from '../helpers/server';
import type { MatrixUser } from './users';

const SECRET = 'matrix-secret-at-least-32-characters-long';

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** jose signs asynchronously; a compact HS256 JWT is small enough to sign by hand, synchronously. */
function sign(claims: Record<string, unknown>): string {
  const body = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
  return `${body}.${base64url(createHmac('sha256', SECRET).update(body).digest())}`;
}

/** The headers that carry `u`'s identity; none for the anonymous caller. */
export function credentials(u: MatrixUser): Record<string, string> {
  if (!u.user) return {};
  const { id, ...rest } = u.user;
  const now = Math.floor(Date.now() / 1000);
  return { authorization: `Bearer ${sign({ ...rest, sub: id, iat: now, exp: now + 3600 })}` };
}

/** What the server needs to accept those credentials. */
export const identityServer: { config: Partial<ObjectQLConfig>; options: StartOptions } = {
  config: { plugins: { auth: { jwt: { secret: SECRET }, required: false } } },
  options: {},
};
