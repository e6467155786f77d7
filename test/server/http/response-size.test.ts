/**
 * limits.maxResponseBytes (kernel/http/response-cap.ts) on every protocol: a response larger than
 * the cap is 400 INVALID_REQUEST naming the limit — in the protocol's own error format — instead of
 * being sent; smaller ones pass; files are not capped (their size is bounded by the file limits).
 */
import { expect } from 'chai';
import { startServer, type TestServer } from '../../helpers/server';

const KEY = 'response-size-key-0123456789';
const HEADERS = { 'x-api-key': KEY };
const MAX = 4096;

const EVERY_PLUGIN = {
  rpc: true,
  rest: true,
  'metadata-api': true,
  openapi: true,
  files: { storage: { type: 'memory' } },
  odata: true,
  graphql: true,
  auth: { apiKeys: [{ key: KEY, user: { id: 'root', roles: ['admin'] } }] },
};

/** Requests whose answer is far above MAX once the accounts below exist. */
const LARGE: Array<{ name: string; method: string; path: string; body?: unknown }> = [
  { name: 'JSON-RPC', method: 'POST', path: '/api/objectql', body: { op: 'find', object: 'account', args: { top: 100 } } },
  { name: 'REST', method: 'GET', path: '/api/data/account?top=100' },
  { name: 'metadata API', method: 'GET', path: '/api/metadata/objects' },
  { name: 'OData', method: 'GET', path: '/odata/account?$top=100' },
  { name: 'GraphQL', method: 'POST', path: '/api/graphql', body: { query: '{ accountList(top: 100) { id name } }' } },
  { name: 'OpenAPI document', method: 'GET', path: '/api/objectql/openapi.json' },
];

/** The error's message and details, wherever the protocol's format puts them. */
function capError(name: string, body: any): { message: string; details: unknown } {
  if (name === 'OData') return { message: body.error.message, details: body.error.details?.[0] ?? body.error.innererror };
  if (name === 'GraphQL') return { message: body.errors[0].message, details: body.errors[0].extensions?.details };
  return body.error;
}

describe('response size cap (limits.maxResponseBytes)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ plugins: EVERY_PLUGIN, limits: { maxResponseBytes: MAX } });
    for (let i = 0; i < 25; i++) {
      const res = await s.rpc({ op: 'create', object: 'account', args: { name: `${i} ${'n'.repeat(240)}` } }, HEADERS);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    }
  });
  after(async () => {
    await s?.stop();
  });

  for (const req of LARGE) {
    it(`${req.name}: a response above the cap is 400 INVALID_REQUEST naming the limit`, async () => {
      const res = await s.request(req.method, req.path, req.body, HEADERS);
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(400);
      const text = JSON.stringify(res.body);
      expect(text.length).to.be.below(MAX);
      expect(text).to.include('INVALID_REQUEST');
      const { message } = capError(req.name, res.body);
      expect(message).to.equal(`The response would be larger than ${MAX} bytes, the limit: ask for fewer records (top) or fewer fields`);
      expect(text).to.include('maxResponseBytes');
    });
  }

  it('the spec error shape carries details {limit, max}', async () => {
    const res = await s.request('GET', '/api/data/account?top=100', undefined, HEADERS);
    expect(res.body.error.details).to.deep.equal({ limit: 'maxResponseBytes', max: MAX });
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
  });

  it('responses within the cap pass, on the same routes', async () => {
    for (const res of [
      await s.rpc({ op: 'find', object: 'account', args: { top: 2 } }, HEADERS),
      await s.request('GET', '/api/data/account?top=2&fields=name', undefined, HEADERS),
      await s.request('GET', '/odata/account?$top=2&$select=name', undefined, HEADERS),
      await s.request('POST', '/api/graphql', { query: '{ accountList(top: 2) { id } }' }, HEADERS),
      await s.request('GET', '/health'),
    ]) {
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
    }
  });

  it('files are not capped', async () => {
    const content = 'f'.repeat(3 * MAX);
    const form = new FormData();
    form.append('file', new Blob([content], { type: 'text/plain' }), 'big.txt');
    const res = await fetch(`${s.url}/api/files/upload`, { method: 'POST', body: form, headers: HEADERS });
    const body = (await res.json()) as { data: { url: string } };
    expect(res.status, JSON.stringify(body)).to.equal(200);
    const file = await fetch(new URL(body.data.url, s.url), { headers: HEADERS });
    expect(file.status).to.equal(200);
    expect(await file.text()).to.equal(content);
  });
});
