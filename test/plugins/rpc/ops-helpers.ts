/** Shared by the JSON-RPC end-to-end tests (ops*.test.ts, bad-input.test.ts): calls and error checks. */
import { expect } from 'chai';
import { USERS, type TestServer } from '../../helpers/server';

export type Res = { status: number; body: any };
export type Caller = { id: string; roles: string[] };

/** The objects of the sample application. */
export const SAMPLE_OBJECTS = ['account', 'contact', 'project', 'task', 'milestone', 'expense'] as const;

/** One JSON-RPC call; the identity comes from the body `user` (security.allowBodyUser). */
export function call(s: TestServer, op: string, object: string, args: unknown, user: Caller = USERS.carol): Promise<Res> {
  return s.rpc({ op, object, args, user });
}

/** Asserts an error response: status, code, and that the message names each of `named`. */
export function expectError(res: Res, status: number, code: string, ...named: string[]): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body, 'error body').to.be.an('object').with.property('error');
  expect(res.body.error.code).to.equal(code);
  expect(res.body.error.message).to.be.a('string');
  for (const name of named) expect(res.body.error.message).to.include(name);
  expect(JSON.stringify(res.body)).not.to.match(/\bat .+\.(ts|js):\d+/, 'no stack trace in the body');
}

/** A VALIDATION_ERROR naming `field` in the message and in details.fields; returns the field's message. */
export function expectFieldError(res: Res, field: string): string {
  expectError(res, 400, 'VALIDATION_ERROR', field);
  expect(res.body.error.details.fields, JSON.stringify(res.body)).to.have.property(field).that.is.a('string').and.not.equal('');
  return res.body.error.details.fields[field];
}

/** A successful call: status 200, returns the body. */
export function ok(res: Res): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body).not.to.have.property('error');
  return res.body;
}

export async function countOf(s: TestServer, object: string, filters?: unknown): Promise<number> {
  const body = ok(await call(s, 'count', object, filters === undefined ? {} : { filters }, USERS.admin));
  return body.count as number;
}

/** Every stored record of the sample objects, as an admin sees them: to show a request changed nothing. */
export async function snapshot(s: TestServer): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const object of SAMPLE_OBJECTS) {
    out[object] = ok(await call(s, 'find', object, { sort: [['id', 'asc']], top: 1000 }, USERS.admin)).items;
  }
  return out;
}

/** Today as the server computes `$today` (UTC). */
export function utcToday(): string {
  return new Date().toISOString().slice(0, 10);
}
