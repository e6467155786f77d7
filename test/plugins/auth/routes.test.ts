/**
 * Where the auth plugin's doors are: the session routes under the instance's base path, and the
 * body user on the JSON-RPC route as actually served — wherever the plugin serving it put it,
 * even when that plugin registers after auth.
 */
import { expect } from 'chai';
import type { Plugin } from '../../../kernel';
import { startServer, USERS, type TestServer } from '../../helpers/server';
import { cookiePair, expectUnauthorized, startAuthServer } from './helpers';

const KEY = 'dave-api-key-0123456789abcdef';
const REQUIRED = 'Authentication required';

/**
 * Serves the JSON-RPC door the way a protocol plugin does — at `path` when given (its own option),
 * else where the config puts it — answering with the user the request was identified as.
 */
function rpcDoor(path?: string): Plugin {
  return {
    name: 'test-rpc-door',
    register(k) {
      const route = k.http.route('rpc', path);
      k.hooks.routes.tap('test-rpc-door', (router) => {
        router.post(route, (req, res) => void res.json({ user: req.objectql.user ?? null }));
      });
    },
  };
}

describe('auth: routes', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  describe('session routes under basePath', () => {
    it('serves the session routes under the base path, and lists them there', async () => {
      const s = await startAuthServer(
        { apiKeys: [{ key: KEY, user: { id: 'dave', roles: ['member'] } }], sessions: true },
        { basePath: '/v2' },
      );
      servers.push(s);
      const created = await s.request('POST', '/v2/api/auth/session', undefined, { 'x-api-key': KEY });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const cookie = cookiePair(created);
      const current = await s.request('GET', '/v2/api/auth/session', undefined, { cookie });
      expect(current.status, JSON.stringify(current.body)).to.equal(200);
      expect(current.body.data.user).to.deep.include({ id: 'dave' });
      expect((await s.request('DELETE', '/v2/api/auth/session', undefined, { cookie })).status).to.equal(204);

      const outside = await s.request('POST', '/api/auth/session', undefined, { 'x-api-key': KEY });
      expect(outside.status, 'nothing outside the base path').to.equal(404);

      const caps = (await s.request('GET', '/v2/.well-known/objectql')).body.capabilities;
      expect(caps.find((c: { plugin: string }) => c.plugin === 'auth').routes).to.deep.equal([
        'POST /v2/api/auth/session',
        'GET /v2/api/auth/session',
        'DELETE /v2/api/auth/session',
      ]);
    });

    it('puts sessions.path under the base path too', async () => {
      const s = await startAuthServer(
        { apiKeys: [{ key: KEY, user: { id: 'dave', roles: [] } }], sessions: { path: '/login' } },
        { basePath: '/tenant/a' },
      );
      servers.push(s);
      const created = await s.request('POST', '/tenant/a/login/session', undefined, { 'x-api-key': KEY });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.headers.get('set-cookie')).to.match(/; Path=\/; /);
    });
  });

  describe('body user on the JSON-RPC route as served', () => {
    async function start(config: Record<string, unknown>, door: Plugin): Promise<TestServer> {
      const s = await startServer({ security: { allowBodyUser: true }, ...config, plugins: { auth: {} } }, { use: [door] });
      servers.push(s);
      return s;
    }

    it('follows the route a plugin registered after auth moved it to', async () => {
      const s = await start({}, rpcDoor('/moved/rpc'));
      const res = await s.request('POST', '/moved/rpc', { op: 'find', object: 'project', user: USERS.carol });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.user).to.deep.equal(USERS.carol);
      // The route it moved away from honours no body user.
      expectUnauthorized(await s.request('POST', '/api/objectql', { op: 'find', object: 'project', user: USERS.carol }), REQUIRED);
    });

    it('follows the base path', async () => {
      const s = await start({ basePath: '/v2' }, rpcDoor());
      const res = await s.request('POST', '/v2/api/objectql', { op: 'find', object: 'project', user: USERS.carol });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.user).to.deep.equal(USERS.carol);
    });

    it('follows routes.rpc', async () => {
      const s = await start({ routes: { rpc: '/rpc' } }, rpcDoor());
      const res = await s.request('POST', '/rpc', { user: USERS.carol });
      expect(res.body.user).to.deep.equal(USERS.carol);
    });
  });
});
