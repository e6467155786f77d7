/**
 * The rpc plugin's options on real servers: `path` moves the route (and its capability entry,
 * discovery entry and OpenAPI path), wins over config `routes.rpc`, sits under config `basePath`;
 * a wrong option stops start-up naming the key.
 */
import { expect } from 'chai';
import type { ObjectQLConfig } from '../../../kernel';
import type { OpenAPIDocument } from '../../../kernel/protocol';
import { startServer, USERS, type TestServer } from '../../helpers/server';

const countBody = { op: 'count', object: 'project', args: {}, user: USERS.carol };

describe('JSON-RPC plugin options', () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  async function start(config: ObjectQLConfig): Promise<TestServer> {
    s = await startServer({ security: { allowBodyUser: true }, ...config });
    return s;
  }

  async function startFails(options: unknown): Promise<string> {
    try {
      s = await startServer({ plugins: { rpc: options as Record<string, unknown> } });
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error('expected the server not to start');
  }

  /** Serves count at `path`, and nothing at each of `notAt`. */
  async function expectServedAt(t: TestServer, path: string, ...notAt: string[]): Promise<void> {
    const res = await t.request('POST', path, countBody);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ count: 3, '@type': 'project' });
    for (const other of notAt) {
      const missing = await t.request('POST', other, countBody);
      expect(missing.status, other).to.equal(404);
      expect(missing.body.error.code).to.equal('NOT_FOUND');
    }
  }

  async function discovery(t: TestServer, at = '/.well-known/objectql'): Promise<any> {
    const res = await t.request('GET', at);
    expect(res.status).to.equal(200);
    return res.body;
  }

  function openApiPaths(t: TestServer): string[] {
    const base: OpenAPIDocument = { openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {} };
    return Object.keys(t.kernel.hooks.openapi.call(base).paths);
  }

  it('serves at the default routes.rpc without options', async () => {
    const t = await start({});
    await expectServedAt(t, '/api/objectql');
    expect((await discovery(t)).routes.rpc).to.equal('/api/objectql');
  });

  it('path moves the route, its capability entry, its discovery entry and its OpenAPI path', async () => {
    const t = await start({ plugins: { rpc: { path: '/x/rpc' } } });
    await expectServedAt(t, '/x/rpc', '/api/objectql');
    const found = await discovery(t);
    expect(found.routes.rpc).to.equal('/x/rpc');
    expect(found.capabilities.find((c: any) => c.plugin === 'rpc').routes).to.deep.equal(['POST /x/rpc']);
    expect(openApiPaths(t)).to.deep.equal(['/x/rpc']);
  });

  it('a trailing slash of path is dropped', async () => {
    const t = await start({ plugins: { rpc: { path: '/x/rpc/' } } });
    await expectServedAt(t, '/x/rpc');
    expect((await discovery(t)).routes.rpc).to.equal('/x/rpc');
  });

  it('path wins over routes.rpc; routes.rpc alone still moves the route', async () => {
    let t = await start({ routes: { rpc: '/cfg/rpc' }, plugins: { rpc: { path: '/x/rpc' } } });
    await expectServedAt(t, '/x/rpc', '/cfg/rpc', '/api/objectql');
    expect((await discovery(t)).routes.rpc).to.equal('/x/rpc');
    await t.stop();
    s = undefined;
    t = await start({ routes: { rpc: '/cfg/rpc' } });
    await expectServedAt(t, '/cfg/rpc', '/api/objectql');
  });

  it('basePath moves the route, with or without path', async () => {
    let t = await start({ basePath: '/v2' });
    await expectServedAt(t, '/v2/api/objectql', '/api/objectql');
    let found = await discovery(t, '/v2/.well-known/objectql');
    expect(found.routes.rpc).to.equal('/v2/api/objectql');
    expect(found.capabilities.find((c: any) => c.plugin === 'rpc').routes).to.deep.equal(['POST /v2/api/objectql']);
    expect(openApiPaths(t)).to.deep.equal(['/v2/api/objectql']);
    await t.stop();
    s = undefined;
    t = await start({ basePath: '/v2', plugins: { rpc: { path: '/x/rpc' } } });
    await expectServedAt(t, '/v2/x/rpc', '/x/rpc', '/v2/api/objectql');
    found = await discovery(t, '/v2/.well-known/objectql');
    expect(found.routes.rpc).to.equal('/v2/x/rpc');
  });

  it('a wrong option stops start-up, naming the key', async () => {
    for (const path of ['x/rpc', '/x/:op', '/x//rpc', '/x rpc', '']) {
      expect(await startFails({ path }), JSON.stringify(path))
        .to.include("Plugin 'rpc'")
        .and.include('path must be a path of plain segments');
    }
    expect(await startFails({ path: 5 })).to.include("Plugin 'rpc': path must be a string");
    expect(await startFails({ route: '/x/rpc' })).to.include("Plugin 'rpc': unknown option 'route'");
  });
});
