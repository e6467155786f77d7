/**
 * An instance-wide base path (config `basePath`) moves every GraphQL door on the kernel's server:
 * the HTTP endpoint, the GraphiQL page and its files, and the subscriptions' WebSocket — and the
 * capability entry names where they are.
 */
import { expect } from 'chai';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { USERS, startServer, type TestServer } from '../../helpers/server';
import { as, gql, refusedUpgrade, SQLITE, untilSubscriptions } from './helpers';

const BASE = '/v2';
const ENDPOINT = `${BASE}/api/graphql`;
const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('GraphQL under a base path', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ basePath: BASE, plugins: { graphql: true }, datasources: SQLITE }, { identityFromHeader: true });
  });
  after(async () => {
    await s?.stop();
  });

  it('serves the endpoint at basePath + path, and nothing at the path alone', async () => {
    const res = await gql(s, '{ project(id: "prj-apollo") { id } }', undefined, USERS.admin, ENDPOINT);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ data: { project: { id: 'prj-apollo' } } });
    const get = await s.request('GET', `${ENDPOINT}?query=${encodeURIComponent('{ __typename }')}`);
    expect(get.body).to.deep.equal({ data: { __typename: 'Query' } });
    expect((await gql(s, '{ __typename }', undefined, USERS.admin)).status, 'the path without the base path').to.equal(404);
  });

  it('names the moved routes in its capability entry', async () => {
    const discovery = await s.request('GET', `${BASE}/.well-known/objectql`);
    const cap = discovery.body.capabilities.find((c: any) => c.plugin === 'graphql');
    expect(cap.routes).to.deep.equal([`GET ${ENDPOINT}`, `POST ${ENDPOINT}`]);
  });

  it('serves GraphiQL there, pointed at the moved endpoint', async () => {
    const page = await s.request('GET', ENDPOINT, undefined, BROWSER);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.contain('text/html');
    const scripts = [...String(page.body).matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts.length).to.be.greaterThan(0);
    for (const src of scripts) {
      expect(src.startsWith(`${ENDPOINT}/graphiql/`), src).to.equal(true);
      expect((await s.request('GET', src)).status, src).to.equal(200);
    }
    const init = scripts.find((src) => src.endsWith('objectql-graphiql-init.js'));
    expect((await s.request('GET', init!)).body).to.contain(`url: ${JSON.stringify(ENDPOINT)}`);
    expect((await s.request('GET', '/api/graphql', undefined, BROWSER)).status).to.equal(404);
  });

  it('serves subscriptions (graphql-ws) at the moved address, and refuses the old one', async () => {
    const ws = s.url.replace(/^http/, 'ws');
    const client = createClient({ url: ws + ENDPOINT, webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      const name = `Under ${BASE} ${Date.now()}`;
      // account has no permission file: an anonymous subscriber may read it.
      const received = new Promise<string>((resolve, reject) => {
        client.subscribe<{ accountCreated: { name: string } }>(
          { query: 'subscription { accountCreated { name } }' },
          { next: (r) => r.data && resolve(r.data.accountCreated.name), error: reject, complete: () => undefined },
        );
      });
      await untilSubscriptions(s, 1);
      const res = await s.request(
        'POST',
        ENDPOINT,
        { query: 'mutation($i: AccountInput!) { createAccount(input: $i) { id } }', variables: { i: { name } } },
        as(USERS.carol),
      );
      expect(res.body.errors, JSON.stringify(res.body)).to.equal(undefined);
      expect(await received).to.equal(name);
    } finally {
      await client.dispose();
    }
    const status = await refusedUpgrade(`${ws}/api/graphql`, 'graphql-transport-ws');
    expect(status, 'an upgrade to the path without the base path').to.equal(404);
  });
});
