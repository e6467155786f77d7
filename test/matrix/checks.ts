/** The matrix's assertions, in protocol-neutral terms (Outcome). */
import { expect } from 'chai';
import type { Outcome, Rec } from './protocol';
import { isAnonymousCaller, type MatrixUser } from './users';

function show(o: Outcome): string {
  return JSON.stringify(o.raw);
}

/** A success (2xx) without an error body. */
export function expectOk(o: Outcome, what: string): void {
  expect(o.status, `${what}: ${show(o)}`).to.be.within(200, 299);
  expect(o.error, `${what}: ${show(o)}`).to.equal(undefined);
}

/**
 * A permission denial: 403 FORBIDDEN for an authenticated caller, 401 UNAUTHORIZED for an
 * anonymous one (authenticate and retry), naming the permission and the caller's roles.
 */
export function expectDenied(o: Outcome, u: MatrixUser, permission: string, what: string): void {
  const anonymous = isAnonymousCaller(u);
  expect(o.status, `${what}: ${show(o)}`).to.equal(anonymous ? 401 : 403);
  expect(o.error?.code, `${what}: ${show(o)}`).to.equal(anonymous ? 'UNAUTHORIZED' : 'FORBIDDEN');
  expect(o.error?.details?.required_permission, `${what}: ${show(o)}`).to.equal(permission);
  expect(o.error?.details?.user_roles, `${what}: ${show(o)}`).to.deep.equal(u.user?.roles ?? []);
}

/**
 * `o` is an error answered exactly as `probe` was, once `name` (a hidden field, a record out of
 * scope) is written as `probeName` (a field or record that does not exist): same status, code,
 * message and details, so the answer does not tell whether `name` exists.
 */
export function expectSameAs(o: Outcome, probe: Outcome, name: string, probeName: string, what: string): void {
  expect(o.status, `${what}: ${show(o)}`).to.be.within(400, 499);
  expect(o.status, `${what}: ${show(o)} vs ${show(probe)}`).to.equal(probe.status);
  expect(JSON.stringify(o.error).split(name).join(probeName), what).to.equal(JSON.stringify(probe.error));
}

/** NOT_FOUND, worded as for a record that does not exist. */
export function expectNotFound(o: Outcome, probe: Outcome, id: string, probeId: string, what: string): void {
  expect(o.status, `${what}: ${show(o)}`).to.equal(404);
  expect(o.error?.code).to.equal('NOT_FOUND');
  expectSameAs(o, probe, id, probeId, what);
}

/** None of `hidden` appears as a key of `record`. */
export function expectNoHidden(record: Rec | undefined, hidden: string[], what: string): void {
  if (!record) return;
  for (const field of hidden) expect(record, `${what}: '${field}' must not be returned`).not.to.have.property(field);
}

/** A record as the user should see it: the truth limited to the fields the user may read. */
export function projection(truth: Rec, readable: string[]): Rec {
  return Object.fromEntries(readable.map((f) => [f, truth[f] ?? null]));
}

export function sortedIds(items: Rec[] | undefined): string[] {
  return (items ?? []).map((r) => r.id as string).sort();
}
