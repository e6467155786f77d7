/**
 * What the kernel answers on the endpoint before the GraphQL route runs — refused credentials
 * (401), the rate limit (429), a body that is not JSON (400) — is a GraphQL response
 * {errors: [{message, extensions: {code, details?}}]} with the kernel's status and headers, over
 * real HTTP, on the kernel's server and on a port of the plugin's own; other paths keep the
 * spec's {error: {...}}.
 */
import { expect } from 'chai';
import { startServer, type TestServer } from '../../helpers/server';
import { SQLITE } from './helpers';

const SECRET = 'errors-before-route-secret-of-32-characters';
const QUERY = { query: '{ __typename }' };
const BAD_TOKEN = { authorization: 'Bearer not.a.token' };

/** A GraphQL response carrying one error with this code; returns that error. */
function graphQLError(body: any, code: string): { message: string; extensions: { code: string; details?: unknown } } {
  expect(body, JSON.stringify(body)).to.have.all.keys('errors');
  expect(body.errors).to.have.length(1);
  const [error] = body.errors;
  expect(error).to.have.all.keys('message', 'extensions');
  expect(error.message).to.be.a('string').and.not.equal('');
  expect(error.extensions.code).to.equal(code);
  return error;
}

/** The spec's own error body. */
function kernelError(body: any, code: string): void {
  expect(body, JSON.stringify(body)).to.have.all.keys('error');
  expect(body.error.code).to.equal(code);
}

describe('GraphQL: errors answered before the route', () => {
  describe('on the kernel’s server', () => {
    let s: TestServer;
    before(async () => {
      s = await startServer({ plugins: { graphql: true, auth: { jwt: { secret: SECRET }, required: false } }, datasources: SQLITE });
    });
    after(async () => {
      await s?.stop();
    });

    it('refused credentials: 401 UNAUTHORIZED as a GraphQL error, with WWW-Authenticate', async () => {
      const res = await s.request('POST', '/api/graphql', QUERY, BAD_TOKEN);
      expect(res.status).to.equal(401);
      graphQLError(res.body, 'UNAUTHORIZED');
      expect(res.headers.get('www-authenticate')).to.match(/^Bearer/);
      expect(JSON.stringify(res.body), 'no credential echoed').not.to.contain('not.a.token');
      const get = await s.request('GET', `/api/graphql?query=${encodeURIComponent(QUERY.query)}`, undefined, BAD_TOKEN);
      expect(get.status).to.equal(401);
      graphQLError(get.body, 'UNAUTHORIZED');
    });

    it('a body that is not JSON: 400 INVALID_REQUEST as a GraphQL error', async () => {
      const res = await s.request('POST', '/api/graphql', '{"query": ', { 'content-type': 'application/json' });
      expect(res.status).to.equal(400);
      expect(graphQLError(res.body, 'INVALID_REQUEST').message).to.match(/^Malformed JSON in request body/);
    });

    it('a POST whose body is not declared as JSON: 415 with the shared message', async () => {
      const res = await s.request('POST', '/api/graphql', '{ __typename }', { 'content-type': 'text/plain' });
      expect(res.status).to.equal(415);
      expect(graphQLError(res.body, 'INVALID_REQUEST').message).to.equal("Content-Type must be application/json, got 'text/plain'");
    });

    it('other paths keep the spec’s error body', async () => {
      const res = await s.request('POST', '/api/elsewhere', QUERY, BAD_TOKEN);
      expect(res.status).to.equal(401);
      kernelError(res.body, 'UNAUTHORIZED');
      const similar = await s.request('POST', '/api/graphqlx', QUERY);
      expect(similar.status).to.equal(404);
      kernelError(similar.body, 'NOT_FOUND');
    });
  });

  describe('with the rate limit', () => {
    let s: TestServer;
    before(async () => {
      s = await startServer({ plugins: { graphql: true, 'rate-limit': { tiers: { anonymous: { perMinute: 1 } } } }, datasources: SQLITE });
    });
    after(async () => {
      await s?.stop();
    });

    it('429 RATE_LIMIT_EXCEEDED as a GraphQL error, with details and Retry-After', async () => {
      expect((await s.request('POST', '/api/graphql', QUERY)).status).to.equal(200);
      const res = await s.request('POST', '/api/graphql', QUERY);
      expect(res.status).to.equal(429);
      const error = graphQLError(res.body, 'RATE_LIMIT_EXCEEDED');
      expect(error.extensions.details).to.have.property('retry_after');
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      expect(res.headers.get('x-ratelimit-remaining')).to.equal('0');
    });
  });

  describe('on a port of its own', () => {
    let s: TestServer;
    let own: string;
    before(async () => {
      s = await startServer({ plugins: { graphql: { port: 0 }, auth: { jwt: { secret: SECRET }, required: false } }, datasources: SQLITE });
      const cap = (await s.request('GET', '/.well-known/objectql')).body.capabilities.find((c: any) => c.plugin === 'graphql');
      own = `http://127.0.0.1:${cap.port}`;
    });
    after(async () => {
      await s?.stop();
    });

    const post = (url: string, body: string, headers: Record<string, string> = {}) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

    it('answers 401 and 400 at /graphql as GraphQL errors', async () => {
      const refused = await post(`${own}/graphql`, JSON.stringify(QUERY), BAD_TOKEN);
      expect(refused.status).to.equal(401);
      graphQLError(await refused.json(), 'UNAUTHORIZED');
      const malformed = await post(`${own}/graphql?x=1`, '{"query": ');
      expect(malformed.status).to.equal(400);
      graphQLError(await malformed.json(), 'INVALID_REQUEST');
    });

    it('answers its 404 as a GraphQL error', async () => {
      const res = await fetch(`${own}/api/elsewhere`);
      expect(res.status).to.equal(404);
      const error = graphQLError(await res.json(), 'NOT_FOUND');
      expect(error.message).to.equal('No route for GET /api/elsewhere: this port serves GraphQL at /graphql');
    });

    it('leaves the kernel’s server answering the path in the spec’s format (it does not serve GraphQL there)', async () => {
      const res = await s.request('POST', '/api/graphql', QUERY);
      expect(res.status).to.equal(404);
      kernelError(res.body, 'NOT_FOUND');
    });
  });
});
