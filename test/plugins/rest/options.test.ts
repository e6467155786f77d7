/**
 * The rest plugin's options on real servers: `path` moves every REST route (and the Location of a
 * created record, the capability entry, the discovery entry and the OpenAPI paths), wins over
 * config `routes.data`, sits under config `basePath` (as JSON-RPC does); a wrong option stops
 * start-up naming the key.
 */
import { expect } from 'chai';
import type { ObjectQLConfig } from '../../../kernel';
import type { OpenAPIDocument } from '../../../kernel/protocol';
import { startServer, USERS, type TestServer } from '../../helpers/server';
import { ids, ok, type Res } from './helpers';

const AS_CAROL = { 'x-test-user': JSON.stringify(USERS.carol) };

describe('REST plugin options', () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  async function start(config: ObjectQLConfig): Promise<TestServer> {
    s = await startServer({ security: { allowBodyUser: true }, ...config }, { identityFromHeader: true });
    return s;
  }

  async function startFails(options: unknown): Promise<string> {
    try {
      s = await startServer({ plugins: { rest: options as Record<string, unknown> } });
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error('expected the server not to start');
  }

  const send = (t: TestServer, method: string, path: string, body?: unknown): Promise<Res> => t.request(method, path, body, AS_CAROL);

  /** Every REST route answers under `prefix` (a created record's Location too), and nothing under each of `notUnder`. */
  async function expectServedUnder(t: TestServer, prefix: string, ...notUnder: string[]): Promise<void> {
    expect(ids(ok(await send(t, 'GET', `${prefix}/project?sort=id`)))).to.deep.equal(['prj-apollo', 'prj-gemini', 'prj-mercury']);
    const created = await send(t, 'POST', `${prefix}/account`, { name: 'Moved' });
    const id = ok(created, 201).id as string;
    expect(created.headers.get('location')).to.equal(`${prefix}/account/${id}`);
    expect(ok(await send(t, 'GET', created.headers.get('location')!)).name).to.equal('Moved');
    ok(await send(t, 'PATCH', `${prefix}/account/${id}`, { name: 'Moved again' }));
    ok(await send(t, 'POST', `${prefix}/account/bulk-update`, { filters: { id }, data: { name: 'Moved thrice' } }));
    ok(await send(t, 'DELETE', `${prefix}/account/${id}`));
    for (const other of notUnder) {
      const missing = await send(t, 'GET', `${other}/project`);
      expect(missing.status, other).to.equal(404);
      expect(missing.body.error.code).to.equal('NOT_FOUND');
    }
  }

  async function discovery(t: TestServer, at = '/.well-known/objectql'): Promise<any> {
    return ok(await t.request('GET', at));
  }

  function openApiPaths(t: TestServer): string[] {
    const base: OpenAPIDocument = { openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {} };
    return Object.keys(t.kernel.hooks.openapi.call(base).paths);
  }

  it('path moves every route, the Location header, the capability entry, the discovery entry and the OpenAPI paths', async () => {
    const t = await start({ plugins: { rest: { path: '/x/data' } } });
    await expectServedUnder(t, '/x/data', '/api/data');
    const found = await discovery(t);
    expect(found.routes.data).to.equal('/x/data');
    const routes: string[] = found.capabilities.find((c: any) => c.plugin === 'rest').routes;
    expect(routes).to.include('GET /x/data/:object').and.include('POST /x/data/:object/bulk-delete');
    expect(routes.every((r) => r.split(' ')[1].startsWith('/x/data/'))).to.equal(true);
    const paths = openApiPaths(t);
    expect(paths).to.include('/x/data/project').and.include('/x/data/project/{id}');
    expect(paths.every((p) => p.startsWith('/x/data/'))).to.equal(true);
  });

  it('path wins over routes.data; routes.data alone still moves the routes', async () => {
    let t = await start({ routes: { data: '/cfg/data' }, plugins: { rest: { path: '/x/data' } } });
    await expectServedUnder(t, '/x/data', '/cfg/data', '/api/data');
    expect((await discovery(t)).routes.data).to.equal('/x/data');
    await t.stop();
    s = undefined;
    t = await start({ routes: { data: '/cfg/data' }, plugins: { rest: true } });
    await expectServedUnder(t, '/cfg/data', '/api/data');
  });

  it('basePath moves REST and JSON-RPC, the Location header and the discovery route', async () => {
    const t = await start({ basePath: '/v2', plugins: { rpc: true, rest: true } });
    await expectServedUnder(t, '/v2/api/data', '/api/data');
    const count = await t.request('POST', '/v2/api/objectql', { op: 'count', object: 'project', user: USERS.carol });
    expect(ok(count)).to.deep.equal({ count: 3, '@type': 'project' });
    expect((await t.request('POST', '/api/objectql', { op: 'count', object: 'project' })).status).to.equal(404);
    const found = await discovery(t, '/v2/.well-known/objectql');
    expect(found.routes).to.include({ rpc: '/v2/api/objectql', data: '/v2/api/data' });
    const capability = (plugin: string) => found.capabilities.find((c: any) => c.plugin === plugin).routes;
    expect(capability('rpc')).to.deep.equal(['POST /v2/api/objectql']);
    expect(capability('rest')).to.include('GET /v2/api/data/:object/:id');
    expect(openApiPaths(t)).to.include('/v2/api/objectql').and.include('/v2/api/data/project');
  });

  it('basePath and path together', async () => {
    const t = await start({ basePath: '/v2', plugins: { rest: { path: '/x/data' } } });
    await expectServedUnder(t, '/v2/x/data', '/x/data', '/v2/api/data');
    expect((await discovery(t, '/v2/.well-known/objectql')).routes.data).to.equal('/v2/x/data');
  });

  it('a wrong option stops start-up, naming the key', async () => {
    for (const path of ['data', '/x/:object', '/x//data', '/x?y', '']) {
      expect(await startFails({ path }), JSON.stringify(path))
        .to.include("Plugin 'rest'")
        .and.include('path must be a path of plain segments');
    }
    expect(await startFails({ path: ['/x'] })).to.include("Plugin 'rest': path must be a string");
    expect(await startFails({ prefix: '/x/data' })).to.include("Plugin 'rest': unknown option 'prefix'");
  });
});
