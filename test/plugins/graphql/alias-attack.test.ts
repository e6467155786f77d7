/**
 * Issue 14's GraphQL attack, bounded: a large value stored, then documents of 10,000 aliases of a
 * list selecting it, sent at once. Each is refused before anything runs — by maxTokens with the
 * defaults, and by the cost of its lists when every other limit is raised — while /health keeps
 * answering and the server keeps serving.
 */
import { expect } from 'chai';
import { probeHealthDuring } from '../../helpers/health-probe';
import { USERS, type TestServer } from '../../helpers/server';
import { gql, startGraphQLServer } from './helpers';

const ALIASES = 10_000;
const attack = `{ ${Array.from({ length: ALIASES }, (_, i) => `a${i}: projectList(top: 1000) { settings }`).join(' ')} }`;

async function storeLargeValue(s: TestServer): Promise<void> {
  const settings = JSON.stringify({ blob: 'x'.repeat(100_000) });
  const res = await gql(
    s,
    'mutation($s: String) { createProject(input: {name: "Large", settings: $s}) { id } }',
    { s: settings },
    USERS.admin,
  );
  expect(res.body.errors).to.equal(undefined);
}

async function attackDuringProbe(s: TestServer, concurrent: number): Promise<Array<{ status: number; body: any }>> {
  const { result, health } = await probeHealthDuring(s.url, () =>
    Promise.all(Array.from({ length: concurrent }, () => gql(s, attack, undefined, USERS.admin))),
  );
  expect(health.failures).to.equal(0);
  return result;
}

async function expectStillServing(s: TestServer): Promise<void> {
  const res = await gql(s, '{ projectList(top: 1) { id } }', undefined, USERS.admin);
  expect(res.status).to.equal(200);
  expect(res.body.data.projectList).to.have.length(1);
}

describe('GraphQL: 10,000 aliases of a list selecting a large value (issue 14)', () => {
  it('with the defaults: refused by maxTokens, /health answering throughout', async () => {
    const s = await startGraphQLServer();
    try {
      await storeLargeValue(s);
      for (const res of await attackDuringProbe(s, 10)) {
        expect(res.status).to.equal(400);
        expect(res.body.errors[0].extensions).to.deep.equal({ code: 'INVALID_REQUEST', details: { limit: 'maxTokens', max: 1000 } });
      }
      await expectStillServing(s);
    } finally {
      await s.stop();
    }
  });

  it('with tokens, aliases and selections raised: refused by the cost of its lists', async () => {
    const s = await startGraphQLServer({ maxTokens: 1_000_000, maxAliases: 100_000, maxSelections: 100_000 });
    try {
      await storeLargeValue(s);
      // Fewer at once: with the limits raised, each document is parsed and validated whole.
      for (const res of await attackDuringProbe(s, 3)) {
        expect(res.status).to.equal(400);
        expect(res.body.errors[0].extensions).to.deep.equal({ code: 'INVALID_REQUEST', details: { limit: 'maxCost', max: 50_000 } });
      }
      await expectStillServing(s);
    } finally {
      await s.stop();
    }
  });
});
