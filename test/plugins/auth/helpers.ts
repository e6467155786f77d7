/** Shared by the auth tests: a server with the auth plugin, tokens, and the checks of a refusal. */
import { expect } from 'chai';
import { SignJWT, type CryptoKey, type JWTPayload, type KeyObject } from 'jose';
import { startServer, type TestServer } from '../../helpers/server';
import type { ObjectQLConfig } from '../../../kernel';

export type Res = { status: number; body: any; headers: Headers };

export const SECRET = 'a-test-secret-of-more-than-32-characters';
export const SECRET_BYTES = new TextEncoder().encode(SECRET);

/** A server with JSON-RPC, REST and the auth plugin with these options. */
export function startAuthServer(auth: Record<string, unknown>, config: ObjectQLConfig = {}): Promise<TestServer> {
  return startServer({ ...config, plugins: { rpc: true, rest: true, ...config.plugins, auth } });
}

/** A signed JWT: subject `sub`, the given claims, expiring in an hour unless the claims say otherwise. */
export async function token(
  key: Uint8Array | CryptoKey | KeyObject,
  alg: string,
  claims: JWTPayload = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'alice', roles: ['member'], iat: now, exp: now + 3600, ...claims })
    .setProtectedHeader({ ...header, alg })
    .sign(key);
}

/** An HS256 token signed with SECRET. */
export function hs256(claims: JWTPayload = {}): Promise<string> {
  return token(SECRET_BYTES, 'HS256', claims);
}

export const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

/** GET a REST list as the caller these headers identify. */
export function list(s: TestServer, object: string, headers: Record<string, string> = {}): Promise<Res> {
  return s.request('GET', `${s.kernel.config.routes.data}/${object}?sort=id`, undefined, headers);
}

/** POST to the JSON-RPC route, with the response headers. */
export function rpc(s: TestServer, body: unknown, headers: Record<string, string> = {}): Promise<Res> {
  return s.request('POST', s.kernel.config.routes.rpc, body, headers);
}

export function ids(res: Res): string[] {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.items.map((r: { id: string }) => r.id);
}

/**
 * A 401 UNAUTHORIZED in the spec's error body whose message includes `fragment`, with a
 * WWW-Authenticate challenge, and which repeats none of `secrets` (token, key, session id)
 * anywhere in its body or headers.
 */
export function expectUnauthorized(res: Res, fragment: string | RegExp, ...secrets: string[]): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(401);
  expect(res.body.error.code).to.equal('UNAUTHORIZED');
  if (typeof fragment === 'string') expect(res.body.error.message).to.include(fragment);
  else expect(res.body.error.message).to.match(fragment);
  expect(res.headers.get('www-authenticate')).to.match(/^Bearer\b/);
  const everything = JSON.stringify(res.body) + JSON.stringify([...res.headers.entries()]);
  for (const secret of secrets) {
    expect(everything).not.to.include(secret);
    // Not even a recognisable part of it (a JWT's signature or payload segment).
    for (const part of secret.split('.').filter((p) => p.length >= 16)) expect(everything).not.to.include(part);
  }
}

/** The `name=value` pair of a Set-Cookie header, for a Cookie header. */
export function cookiePair(res: Res): string {
  const header = res.headers.get('set-cookie');
  expect(header, 'Set-Cookie').to.be.a('string');
  return header!.split(';')[0];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
