/**
 * The odata plugin's options on a real server: wrong values stop start-up naming the key, a custom
 * basePath, ETags, $search and $batch switched off, the expand depth, a port of its own, the
 * capability entry, and failures answered before the route (credentials, rate limit) in OData's
 * error format.
 */
import { expect } from 'chai';
import { USERS, type TestServer } from '../../helpers/server';
import { BASE, expectODataError, key, od, ok, query, startODataServer } from './helpers';

describe('OData plugin options', () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  async function startFails(options: Record<string, unknown>, config = {}): Promise<string> {
    try {
      s = await startODataServer(options, config);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error('expected the server not to start');
  }

  it('stops start-up on a wrong option, naming it', async () => {
    expect(await startFails({ basePath: 'odata' }))
      .to.include("Plugin 'odata'")
      .and.include('basePath');
    expect(await startFails({ maxExpandDepth: 'deep' })).to.include('maxExpandDepth');
    expect(await startFails({ etags: false })).to.include("unknown option 'etags'");
  });

  it("refuses a basePath overlapping a route prefix and an expand depth above the kernel's limit", async () => {
    expect(await startFails({ basePath: '/api/data' })).to.include('routes.data');
    expect(await startFails({ basePath: '/api' })).to.include('overlaps');
    expect(await startFails({ maxExpandDepth: 5 })).to.include('limits.maxExpandDepth 3');
    s = await startODataServer({ maxExpandDepth: 5 }, { limits: { maxExpandDepth: 5 } });
  });

  it('serves under a custom basePath, which every URL it writes carries', async () => {
    s = await startODataServer({ basePath: '/v4/odata' });
    const doc = ok(await s.request('GET', '/v4/odata', undefined, { 'x-test-user': JSON.stringify(USERS.carol) }));
    expect(doc['@odata.context']).to.equal('/v4/odata/$metadata');
    const created = await s.request('POST', '/v4/odata/account', { name: 'Based' }, { 'x-test-user': JSON.stringify(USERS.carol) });
    expect(created.headers.get('location')).to.match(/^\/v4\/odata\/account\('.+'\)$/);
    expect(created.body['@odata.context']).to.equal('/v4/odata/$metadata#account/$entity');
    expect((await s.request('GET', '/odata')).status).to.equal(404);
  });

  it('without ETags: no ETag header, no @odata.etag, If-Match not checked', async () => {
    s = await startODataServer({ enableETags: false });
    const res = await od(s, 'GET', `/project${key('prj-apollo')}`);
    expect(res.headers.get('etag')).to.equal(null);
    expect(ok(res)).not.to.have.property('@odata.etag');
    ok(await od(s, 'PATCH', `/project${key('prj-apollo')}`, { priority: 'low' }, USERS.carol, { 'if-match': 'W/"stale"' }));
  });

  it('without $search, and with a smaller expand depth', async () => {
    s = await startODataServer({ enableSearch: false, maxExpandDepth: 1 });
    expectODataError(await query(s, '/project', { $search: 'apollo' }), 400, 'INVALID_REQUEST', '$search');
    ok(await query(s, '/task', { $expand: 'project_nav' }));
    const error = expectODataError(
      await query(s, '/task', { $expand: 'project_nav($expand=account_nav)' }),
      400,
      'EXPAND_DEPTH_EXCEEDED',
      'maximum expand depth is 1',
    );
    expect(error.details[0].target).to.equal('$expand');
  });

  it('without $batch, $batch is not found', async () => {
    s = await startODataServer({ enableBatch: false });
    expectODataError(
      await od(s, 'POST', '/$batch', 'x', USERS.carol, { 'content-type': 'multipart/mixed; boundary=b' }),
      404,
      'NOT_FOUND',
      '$batch',
    );
  });

  it('lists its routes and settings in the capabilities', async () => {
    s = await startODataServer({});
    const caps = (await s.request('GET', '/.well-known/objectql')).body.capabilities;
    const odata = caps.find((c: any) => c.plugin === 'odata');
    expect(odata).to.deep.include({
      protocol: 'odata',
      version: '4.0',
      basePath: BASE,
      metadata: `${BASE}/$metadata`,
      maxExpandDepth: 3,
      batch: true,
      search: true,
      etags: true,
    });
    expect(odata.routes).to.include.members([`GET ${BASE}`, `GET ${BASE}/$metadata`, `POST ${BASE}/$batch`]);
  });

  it('answers failures before the route (credentials refused, rate limit) in OData format', async () => {
    s = await startODataServer(
      {},
      { plugins: { auth: { jwt: { secret: 'x'.repeat(32) }, required: false }, 'rate-limit': { tiers: { anonymous: { perMinute: 2 } } } } },
    );
    const refused = await s.request('GET', `${BASE}/account`, undefined, { authorization: 'Bearer not-a-token' });
    const error = expectODataError(refused, 401, 'UNAUTHORIZED');
    expect(JSON.stringify(error)).not.to.include('not-a-token');
    ok(await s.request('GET', `${BASE}/account`));
    const limited = await s.request('GET', `${BASE}/account`);
    const tooMany = expectODataError(limited, 429, 'RATE_LIMIT_EXCEEDED');
    expect(tooMany.innererror.retry_after).to.be.a('number');
    expect(limited.headers.get('x-ratelimit-limit')).to.equal('2');
    // Outside the base path the kernel's own format stays.
    expect((await s.request('GET', '/api/objectql/nothing')).body.error).not.to.have.property('innererror');
  });
});

describe('OData on a port of its own', () => {
  let s: TestServer;
  let url: string;
  before(async () => {
    s = await startODataServer({ port: 0 });
    const caps = (await s.request('GET', '/.well-known/objectql')).body.capabilities;
    url = caps.find((c: any) => c.plugin === 'odata').url;
  });
  after(() => s.stop());

  const get = (path: string, user = USERS.carol) => fetch(url + path, { headers: { 'x-test-user': JSON.stringify(user) } });

  it('serves OData there, through the same identity and permissions', async () => {
    expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/odata$/);
    expect(url.startsWith(s.url)).to.equal(false);
    const res = await get('/project');
    expect(res.status).to.equal(200);
    expect(res.headers.get('odata-version')).to.equal('4.0');
    expect(((await res.json()) as any).value).to.have.length(3);
    const member = (await (await get('/project', USERS.alice)).json()) as any;
    expect(member.value).to.have.length(2);
  });

  it('serves nothing else there but /health, and no OData on the main port', async () => {
    const other = await fetch(new URL('/api/objectql', url), { method: 'POST' });
    expect(other.status).to.equal(404);
    expect(((await other.json()) as any).error.code).to.equal('NOT_FOUND');
    expect((await fetch(new URL('/health', url))).status).to.equal(200);
    expect((await s.request('GET', BASE)).status).to.equal(404);
  });
});
