/**
 * OData under the instance's base path (config `basePath`): every URL the service writes follows
 * it (service document, @odata.context, Location, @odata.nextLink, $batch part URLs and
 * references), the route overlap check compares the prefixes as served, and a port of its own
 * keeps OData at the plugin's basePath. Failures answered before the route runs (credentials
 * refused, rate limit, a body that does not parse) are OData errors there too.
 */
import { expect } from 'chai';
import type { Plugin } from '../../../kernel';
import { USERS, startServer, type TestServer } from '../../helpers/server';
import { multipartBatch, readMultipartResponse, type ReadResponse } from './batch/helpers';
import { expectODataError, ok, startODataServer, type Res } from './helpers';

const ROOT = '/v2/odata';
const carol = { 'x-test-user': JSON.stringify(USERS.carol) };

describe('OData under the instance base path', () => {
  let s: TestServer;
  before(async () => {
    s = await startODataServer({}, { basePath: '/v2', limits: { defaultTop: 2 } });
  });
  after(() => s.stop());

  const get = (path: string): Promise<Res> => s.request('GET', ROOT + path, undefined, carol);

  it('serves the service document and $metadata there, not at /odata', async () => {
    const doc = ok(await get(''));
    expect(doc['@odata.context']).to.equal(`${ROOT}/$metadata`);
    expect(doc.value.map((v: any) => v.name)).to.include('project');
    expect((await get('/$metadata')).status).to.equal(200);
    expect((await s.request('GET', '/odata', undefined, carol)).status).to.equal(404);
  });

  it('writes the base path into @odata.context, Location and @odata.nextLink', async () => {
    const one = ok(await get("/project('prj-apollo')?$select=name"));
    expect(one['@odata.context']).to.equal(`${ROOT}/$metadata#project(name)/$entity`);
    const page = ok(await get('/project?$select=id'));
    expect(page['@odata.context']).to.equal(`${ROOT}/$metadata#project(id)`);
    expect(page['@odata.nextLink']).to.equal(`${ROOT}/project?%24select=id&%24skip=2`);
    const created = await s.request('POST', `${ROOT}/account`, { name: 'Based Account' }, carol);
    const entity = ok(created, 201);
    expect(created.headers.get('location')).to.equal(`${ROOT}/account('${entity.id}')`);
    expect(entity['@odata.context']).to.equal(`${ROOT}/$metadata#account/$entity`);
    // A bind may name the entity by its path under the base path.
    const task = ok(
      await s.request('POST', `${ROOT}/task`, { title: 'Based Task', 'project_nav@odata.bind': `${ROOT}/project('prj-apollo')` }, carol),
      201,
    );
    expect(task.project).to.equal('prj-apollo');
  });

  it('serves $batch there: part URLs under the base path, relative ones and $-references resolve', async () => {
    const { contentType, body } = multipartBatch([
      { method: 'GET', url: `${ROOT}/project('prj-apollo')?$select=name` },
      {
        changeset: [
          { method: 'POST', url: 'account', body: { name: 'Batch Based' }, contentId: '1' },
          { method: 'PATCH', url: '$1', body: { industry: 'retail' }, contentId: '2' },
        ],
      },
    ]);
    const res = await s.request('POST', `${ROOT}/$batch`, body.toString('utf8'), { ...carol, 'content-type': contentType });
    expect(res.status, String(res.body)).to.equal(200);
    expect(res.headers.get('odata-version')).to.equal('4.0');
    const [read, cs] = readMultipartResponse(res.headers.get('content-type')!, res.body) as [ReadResponse, { changeset: ReadResponse[] }];
    expect(read.status).to.equal(200);
    expect(read.body['@odata.context']).to.equal(`${ROOT}/$metadata#project(name)/$entity`);
    expect(cs.changeset.map((r) => r.status)).to.deep.equal([201, 200]);
    expect(cs.changeset[0].headers.location).to.match(/^\/v2\/odata\/account\('.+'\)$/);
    expect(cs.changeset[1].body.industry).to.equal('retail');
    const outside = multipartBatch([{ method: 'GET', url: "/odata/project('prj-apollo')" }]);
    const refused = await s.request('POST', `${ROOT}/$batch`, outside.body.toString('utf8'), {
      ...carol,
      'content-type': outside.contentType,
    });
    expect(expectODataError(refused, 400, 'INVALID_REQUEST', `outside the service root '${ROOT}'`).details[0].target).to.equal('part 1');
  });

  it('names the base path in its capability entry', async () => {
    const caps = (await s.request('GET', '/v2/.well-known/objectql')).body.capabilities;
    const odata = caps.find((c: any) => c.plugin === 'odata');
    expect(odata).to.deep.include({ basePath: ROOT, metadata: `${ROOT}/$metadata` });
    expect(odata.routes).to.include.members([`GET ${ROOT}`, `POST ${ROOT}/$batch`]);
  });
});

describe('OData errors answered before the route', () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  /** An OData error with the headers every OData error carries. */
  function expectRendered(res: Res, status: number, code: string): any {
    const error = expectODataError(res, status, code);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.headers.get('content-type')).to.match(/^application\/json;\s*odata\.metadata=minimal/);
    return error;
  }

  it('401, 429 and a malformed JSON body under the instance base path, in OData format with OData-Version', async () => {
    s = await startServer({
      basePath: '/v2',
      plugins: {
        odata: true,
        auth: { jwt: { secret: 'x'.repeat(32) }, required: false },
        // Every request below counts: 401, 400, two 404s, one answered; the sixth is over the limit.
        'rate-limit': { tiers: { anonymous: { perMinute: 5 } } },
      },
    });
    const refused = await s.request('GET', `${ROOT}/account`, undefined, { authorization: 'Bearer not-a-token' });
    expect(JSON.stringify(expectRendered(refused, 401, 'UNAUTHORIZED'))).not.to.include('not-a-token');
    expect(refused.headers.get('www-authenticate')).to.match(/^Bearer/);
    const malformed = expectRendered(await s.request('POST', `${ROOT}/account`, '{"name":'), 400, 'INVALID_REQUEST');
    expect(malformed.message).to.include('Malformed JSON');
    // The kernel's own format stays outside the base path, and at /odata, which is not OData's here.
    for (const path of ['/v2/api/objectql/nothing', '/odata/account']) {
      const other = await s.request('GET', path);
      expect(other.status, path).to.equal(404);
      expect(other.headers.get('odata-version'), path).to.equal(null);
      expect(other.body.error.details, path).to.equal(undefined);
    }
    ok(await s.request('GET', `${ROOT}/account`));
    const limited = await s.request('GET', `${ROOT}/account`);
    expect(expectRendered(limited, 429, 'RATE_LIMIT_EXCEEDED').innererror.retry_after).to.be.a('number');
    expect(limited.headers.get('x-ratelimit-limit')).to.equal('5');
  });

  it('a body without Content-Type is refused by the one JSON body rule', async () => {
    s = await startODataServer({}, { basePath: '/v2' });
    const res = await fetch(`${s.url}${ROOT}/account`, {
      method: 'POST',
      headers: carol,
      body: new TextEncoder().encode('{"name":"Untyped"}'),
    });
    const error = expectRendered({ status: res.status, headers: res.headers, body: await res.json() }, 400, 'INVALID_REQUEST');
    expect(error.message).to.equal("Content-Type must be application/json, got 'none'");
    expect(error.details).to.deep.equal([{ code: 'INVALID_REQUEST', message: error.message, target: 'Content-Type' }]);
  });
});

describe('OData route checks against the served prefixes', () => {
  async function startFails(config: Parameters<typeof startServer>[0], use: Parameters<typeof startServer>[1] = {}): Promise<string> {
    let s: TestServer | undefined;
    try {
      s = await startServer(config, use);
    } catch (err) {
      return (err as Error).message;
    }
    await s.stop();
    throw new Error('expected the server not to start');
  }

  it('compares with the base path applied to both', async () => {
    const message = await startFails({ basePath: '/v2', plugins: { odata: { basePath: '/api/data' } } });
    expect(message)
      .to.include("basePath '/api/data' (served at '/v2/api/data') overlaps the data route '/v2/api/data'")
      .and.include('routes.data');
  });

  it("reads the doors once every plugin has registered (a plugin's own path option counts)", async () => {
    // Registered after odata: a door moved then is only known at start.
    const late: Plugin = {
      name: 'late-door',
      dependsOn: ['odata'],
      register(k) {
        k.http.route('data', '/odata/data');
      },
    };
    const message = await startFails({ plugins: { odata: true } }, { use: [late] });
    expect(message).to.include("overlaps the data route '/odata/data'");
  });
});

describe('OData on a port of its own under an instance base path', () => {
  let s: TestServer;
  let url: string;
  before(async () => {
    s = await startODataServer({ port: 0 }, { basePath: '/v2' });
    url = (await s.request('GET', '/v2/.well-known/objectql')).body.capabilities.find((c: any) => c.plugin === 'odata').url;
  });
  after(() => s.stop());

  it('stays at its basePath there, and answers errors before the route in OData format', async () => {
    expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/odata$/);
    const doc = (await (await fetch(url, { headers: carol })).json()) as any;
    expect(doc['@odata.context']).to.equal('/odata/$metadata');
    const malformed = await fetch(`${url}/account`, {
      method: 'POST',
      headers: { ...carol, 'content-type': 'application/json' },
      body: '{"name":',
    });
    expectODataError({ status: malformed.status, headers: malformed.headers, body: await malformed.json() }, 400, 'INVALID_REQUEST');
    // The main server serves no OData, neither at /v2/odata nor at /odata, and answers in the kernel's format.
    for (const path of ['/v2/odata', '/odata']) {
      const res = await s.request('GET', path, undefined, carol);
      expect(res.status, path).to.equal(404);
      expect(res.headers.get('odata-version'), path).to.equal(null);
    }
  });
});
