/** Shared by the rate-limit tests: servers with small tiers, requests as a user, the headers read as numbers. */
import { expect } from 'chai';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';
import type { RateLimitOptions } from '../../../plugins/rate-limit';

export type Res = { status: number; body: any; headers: Headers };
export type Caller = { id: string; roles: string[]; [key: string]: unknown } | null;

/** A server with JSON-RPC, REST (and more plugins if given) and the rate limit; identity from X-Test-User. */
export function startLimited(options: RateLimitOptions, plugins: Record<string, unknown> = {}): Promise<TestServer> {
  return startServer(
    { plugins: { rpc: true, rest: true, ...plugins, 'rate-limit': options as Record<string, unknown> } },
    { identityFromHeader: true },
  );
}

/** One request as `user` (null: anonymous); GET of an open object's list unless told otherwise. */
export function hit(
  s: TestServer,
  user: Caller = null,
  method = 'GET',
  path = '/api/data/account?top=1',
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Res> {
  return s.request(method, path, body, { ...headers, ...identityHeader(user) });
}

export interface Limits {
  limit: number;
  remaining: number;
  reset: number;
  retryAfter: number | undefined;
}

/** The rate limit headers of a response; fails when one of the three is missing or not an integer. */
export function limits(res: Res): Limits {
  const read = (name: string) => {
    const value = res.headers.get(name);
    expect(value, `${name} on a ${res.status} response`).to.match(/^\d+$/);
    return Number(value);
  };
  const retry = res.headers.get('retry-after');
  return {
    limit: read('x-ratelimit-limit'),
    remaining: read('x-ratelimit-remaining'),
    reset: read('x-ratelimit-reset'),
    retryAfter: retry === null ? undefined : Number(retry),
  };
}

export function hasNoLimitHeaders(res: Res): void {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'])
    expect(res.headers.get(name), name).to.equal(null);
}

/** Requests until the first 429 (at most `max`); returns how many were let through. */
export async function allowance(s: TestServer, user: Caller, max = 50): Promise<number> {
  for (let n = 0; n < max; n++) {
    const res = await hit(s, user);
    if (res.status === 429) return n;
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }
  throw new Error(`no 429 after ${max} requests`);
}

/** Asserts the spec's 429 body and the Retry-After header; returns details.retry_after. */
export function expectTooMany(res: Res): number {
  expect(res.status, JSON.stringify(res.body)).to.equal(429);
  expect(Object.keys(res.body)).to.deep.equal(['error']);
  expect(Object.keys(res.body.error).sort()).to.deep.equal(['code', 'details', 'message']);
  expect(res.body.error.code).to.equal('RATE_LIMIT_EXCEEDED');
  expect(Object.keys(res.body.error.details)).to.deep.equal(['retry_after']);
  const retryAfter = res.body.error.details.retry_after;
  expect(Number.isInteger(retryAfter) && retryAfter >= 1, `retry_after ${retryAfter}`).to.equal(true);
  expect(limits(res).retryAfter).to.equal(retryAfter);
  expect(limits(res).remaining).to.equal(0);
  return retryAfter;
}
