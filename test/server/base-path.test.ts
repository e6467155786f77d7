/**
 * One setting moves every door of an instance: with `basePath: '/v2'` and every built-in protocol
 * on, each door answers under /v2 — JSON-RPC, REST, the metadata API, the File API, OData, GraphQL
 * (HTTP and its subscriptions' WebSocket), realtime, the OpenAPI document and its page, the session
 * routes and the discovery route — and none answers where it stood without it. `/health` stays at
 * the root and answers under /v2 too. (Each plugin's own tests go deeper; this is the instance.)
 */
import { expect } from 'chai';
import WebSocket from 'ws';
import { startServer, type TestServer } from '../helpers/server';

const KEY = 'base-path-key-0123456789';
const HEADERS = { 'x-api-key': KEY };

const EVERY_PLUGIN = {
  rpc: true,
  rest: true,
  'metadata-api': true,
  openapi: true,
  files: { storage: { type: 'memory' } },
  odata: true,
  graphql: true,
  realtime: {},
  auth: { apiKeys: [{ key: KEY, user: { id: 'root', roles: ['admin'] } }], sessions: { store: 'memory' } },
};

/** Every door: how to ask it something over HTTP, by its path without the base path. */
const DOORS: Array<{ name: string; method: string; path: string; body?: unknown; headers?: Record<string, string> }> = [
  { name: 'JSON-RPC', method: 'POST', path: '/api/objectql', body: { op: 'count', object: 'account', args: {} } },
  { name: 'REST', method: 'GET', path: '/api/data/account?top=1' },
  { name: 'metadata API', method: 'GET', path: '/api/metadata/objects' },
  { name: 'OData service document', method: 'GET', path: '/odata' },
  { name: 'OData entity set', method: 'GET', path: '/odata/account?$top=1' },
  { name: 'GraphQL', method: 'POST', path: '/api/graphql', body: { query: '{ accountList(top: 1) { id } }' } },
  { name: 'GraphiQL', method: 'GET', path: '/api/graphql', headers: { accept: 'text/html' } },
  { name: 'OpenAPI document', method: 'GET', path: '/api/objectql/openapi.json' },
  { name: 'API reference page', method: 'GET', path: '/api/objectql/docs' },
  { name: 'session routes', method: 'POST', path: '/api/auth/session' },
  { name: 'discovery', method: 'GET', path: '/.well-known/objectql' },
];

describe('server: one basePath moves every door', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ basePath: '/v2', plugins: EVERY_PLUGIN });
  });
  after(() => server?.stop());

  for (const door of DOORS) {
    it(`${door.name}: under /v2, and not where it stood`, async () => {
      const moved = await server.request(door.method, `/v2${door.path}`, door.body, { ...HEADERS, ...door.headers });
      expect(moved.status, `/v2${door.path}: ${JSON.stringify(moved.body)}`).to.be.within(200, 299);
      const old = await server.request(door.method, door.path, door.body, { ...HEADERS, ...door.headers });
      expect(old.status, `${door.path}: ${JSON.stringify(old.body)}`).to.equal(404);
    });
  }

  it('File API: an upload under /v2 answers URLs under /v2, which serve the file', async () => {
    const form = new FormData();
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
    const res = await fetch(`${server.url}/v2/api/files/upload`, { method: 'POST', body: form, headers: HEADERS });
    const body = (await res.json()) as { data: { id: string; url: string } };
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect(new URL(body.data.url, server.url).pathname).to.equal(`/v2/api/files/${body.data.id}`);
    const file = await fetch(new URL(body.data.url, server.url), { headers: HEADERS });
    expect(await file.text()).to.equal('hello');
    expect((await fetch(`${server.url}/api/files/${body.data.id}`, { headers: HEADERS })).status).to.equal(404);
  });

  it('the discovery route lists every door under /v2', async () => {
    const { basePath, routes, capabilities } = (await server.request('GET', '/v2/.well-known/objectql', undefined, HEADERS)).body;
    expect(basePath).to.equal('/v2');
    expect(routes).to.deep.equal({ rpc: '/v2/api/objectql', data: '/v2/api/data', metadata: '/v2/api/metadata', files: '/v2/api/files' });
    const outside = (capabilities as Array<{ plugin: string; routes?: string[] }>).flatMap((c) =>
      (c.routes ?? []).filter((r) => !/^([A-Z]+ )?\/v2\//.test(r)).map((r) => `${c.plugin}: ${r}`),
    );
    expect(outside).to.deep.equal([]);
  });

  it('/health answers at the root and under /v2', async () => {
    expect((await server.request('GET', '/health')).status).to.equal(200);
    expect((await server.request('GET', '/v2/health')).status).to.equal(200);
  });

  for (const [name, path, protocol] of [
    ['realtime', '/api/realtime', undefined],
    ['GraphQL subscriptions', '/api/graphql', 'graphql-transport-ws'],
  ] as const) {
    it(`${name}: the WebSocket opens under /v2 and is refused where it stood`, async () => {
      const open = (at: string) =>
        new Promise<number | 'open'>((resolve) => {
          const ws = new WebSocket(server.url.replace(/^http/, 'ws') + at, protocol, { headers: HEADERS });
          ws.once('open', () => {
            ws.close();
            resolve('open');
          });
          ws.once('unexpected-response', (_req, res) => {
            resolve(res.statusCode ?? 0);
            ws.terminate();
          });
          ws.once('error', () => undefined);
        });
      expect(await open(`/v2${path}`)).to.equal('open');
      expect(await open(path)).to.equal(404);
    });
  }
});
