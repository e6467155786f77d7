/** Shared by the metadata API tests: a server with header identity, requests as a user, error checks. */
import { expect } from 'chai';
import type { ObjectQLConfig } from '../../../kernel';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';

export type Res = { status: number; body: any };
export type Caller = { id: string; roles: string[] } | undefined;

/** A server with rpc and metadata, the caller read from the `x-test-user` header (JSON). */
export function startMetadataServer(config: ObjectQLConfig = {}): Promise<TestServer> {
  return startServer({ plugins: { rpc: true, metadata: true }, ...config }, { identityFromHeader: true });
}

/** One request as `user` (none: anonymous). */
export function as(
  s: TestServer,
  user: Caller,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Res> {
  return s.request(method, path, body, { ...headers, ...identityHeader(user) });
}

/** A successful response: status 200, returns the body. */
export function ok(res: Res): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body).not.to.have.property('error');
  return res.body;
}

/** An error response in the spec's shape: status, code, and a message naming each of `named`. */
export function expectError(res: Res, status: number, code: string, ...named: string[]): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body).to.be.an('object').with.property('error');
  expect(Object.keys(res.body)).to.deep.equal(['error']);
  expect(res.body.error.code).to.equal(code);
  expect(res.body.error.message).to.be.a('string');
  for (const name of named) expect(res.body.error.message).to.include(name);
}
