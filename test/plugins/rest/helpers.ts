/** Shared by the REST tests: requests as a given user (X-Test-User, see startServer's identityFromHeader) and checks. */
import { expect } from 'chai';
import { identityHeader, startServer, USERS, type TestServer } from '../../helpers/server';

export type Res = { status: number; body: any; headers: Headers };
export type Caller = { id: string; roles: string[] } | null;

/** The objects of the sample application. */
export const SAMPLE_OBJECTS = ['account', 'contact', 'project', 'task', 'milestone', 'expense'] as const;

/** A server with JSON-RPC and REST, identity from the X-Test-User header. */
export function startRestServer(): Promise<TestServer> {
  return startServer({ plugins: { rpc: true, rest: true }, security: { allowBodyUser: true } }, { identityFromHeader: true });
}

/** One REST request under the data prefix as served, as `user` (carol unless given; null = anonymous). */
export function rest(
  s: TestServer,
  method: string,
  path: string,
  body?: unknown,
  user: Caller = USERS.carol,
  headers: Record<string, string> = {},
): Promise<Res> {
  return s.request(method, s.kernel.http.routes.data + path, body, { ...identityHeader(user), ...headers });
}

/** GET with query parameters given as pairs (encoded here). */
export function list(
  s: TestServer,
  object: string,
  params: Record<string, string> | Array<[string, string]> = {},
  user: Caller = USERS.carol,
): Promise<Res> {
  const qs = new URLSearchParams(params).toString();
  return rest(s, 'GET', `/${object}${qs ? `?${qs}` : ''}`, undefined, user);
}

/** A successful response with the given status (200 unless said); returns the body. */
export function ok(res: { status: number; body: any }, status = 200): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body).not.to.have.property('error');
  return res.body;
}

/** Asserts an error response: status, code, and that the message names each of `named`. */
export function expectError(res: Res, status: number, code: string, ...named: string[]): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body, 'error body').to.be.an('object').with.property('error');
  expect(Object.keys(res.body)).to.deep.equal(['error']);
  expect(res.body.error.code).to.equal(code);
  expect(res.body.error.message).to.be.a('string');
  for (const name of named) expect(res.body.error.message).to.include(name);
  expect(JSON.stringify(res.body)).not.to.match(/\bat .+\.(ts|js):\d+/, 'no stack trace in the body');
}

/** Ids of a list response's items. */
export function ids(body: any): string[] {
  return body.items.map((r: any) => r.id);
}

/** Every stored record of the sample objects, as an admin sees them: to show a request changed nothing. */
export async function snapshot(s: TestServer): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const object of SAMPLE_OBJECTS) out[object] = ok(await list(s, object, { sort: 'id', top: '1000' }, USERS.admin)).items;
  return out;
}
