/**
 * Who gets in without credentials: 401 when authentication is required (the default), the
 * anonymous user when one is configured (and a refused credential never becomes anonymous), no
 * user when `required` is false; public routes never ask. And the JSON-RPC body user, honoured
 * only with security.allowBodyUser.
 */
import { expect } from 'chai';
import { createKernel } from '../../../server';
import { SAMPLE_METADATA, USERS, type TestServer } from '../../helpers/server';
import { bearer, expectUnauthorized, hs256, ids, list, rpc, SECRET, startAuthServer } from './helpers';

const REQUIRED = 'Authentication required: send a Bearer token, an X-API-Key header or a session cookie';
const findProjects = (user?: unknown) => ({
  op: 'find',
  object: 'project',
  args: { fields: ['id'], sort: [['id', 'asc']] },
  ...(user ? { user } : {}),
});
const rpcIds = (res: { status: number; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.items.map((r: { id: string }) => r.id);
};

describe('auth: required, anonymous and the body user', () => {
  describe('required (the default)', () => {
    let s: TestServer;
    before(async () => {
      s = await startAuthServer({ jwt: { secret: SECRET } }, { plugins: { openapi: true, metadata: true } });
    });
    after(() => s?.stop());

    it('answers 401 with a Bearer challenge to a request without credentials, on every protocol', async () => {
      for (const res of [
        await list(s, 'account'),
        await rpc(s, findProjects()),
        await s.request('GET', '/api/metadata/objects'),
        await s.request('GET', '/api/nowhere'),
      ]) {
        expectUnauthorized(res, REQUIRED);
        expect(res.body).to.deep.equal({ error: { code: 'UNAUTHORIZED', message: REQUIRED } });
        expect(res.headers.get('www-authenticate')).to.equal('Bearer');
      }
    });

    it('never asks on public routes: health, discovery, the OpenAPI document and the docs page', async () => {
      for (const path of ['/health', '/.well-known/objectql', '/api/objectql/openapi.json', '/api/objectql/docs']) {
        expect((await s.request('GET', path)).status, path).to.equal(200);
      }
    });

    it('declares no anonymous access in the OpenAPI document', async () => {
      const doc = (await s.request('GET', '/api/objectql/openapi.json')).body;
      expect(doc.security).to.deep.equal([{ bearerAuth: [] }, { apiKey: [] }, { sessionCookie: [] }]);
    });

    it('ignores the body user while security.allowBodyUser is off', async () => {
      expectUnauthorized(await rpc(s, findProjects(USERS.admin)), REQUIRED);
      // With a token, the token decides and the body user is ignored.
      expect(rpcIds(await rpc(s, findProjects(USERS.admin), bearer(await hs256())))).to.deep.equal(['prj-apollo', 'prj-mercury']);
    });
  });

  describe('anonymous', () => {
    let s: TestServer;
    before(async () => {
      s = await startAuthServer({ jwt: { secret: SECRET }, anonymous: { roles: ['viewer'] } }, { plugins: { openapi: true } });
    });
    after(() => s?.stop());

    it('lets a request without credentials in as the anonymous user with the configured roles', async () => {
      // viewer may read projects (project.permission.yml): every one, without record scope.
      expect(ids(await list(s, 'project'))).to.deep.equal(['prj-apollo', 'prj-gemini', 'prj-mercury']);
      // A denial of the anonymous user is 401 (the kernel's rule for callers marked anonymous): authenticating may change it.
      const write = await s.request('POST', '/api/data/project', { name: 'Nope' });
      expect(write.status, JSON.stringify(write.body)).to.equal(401);
      expect(write.body.error.code).to.equal('UNAUTHORIZED');
      expect(write.body.error.details.user_roles).to.deep.equal(['viewer']);
    });

    it('still refuses credentials that are present but invalid', async () => {
      const expired = await hs256({ exp: Math.floor(Date.now() / 1000) - 3600 });
      expectUnauthorized(await list(s, 'project', bearer(expired)), 'Bearer token rejected: expired', expired);
      expectUnauthorized(
        await list(s, 'project', { 'x-api-key': 'anything-0123456789abcdef' }),
        'API key rejected',
        'anything-0123456789abcdef',
      );
    });

    it('lets a valid token through as its own user', async () => {
      expect(ids(await list(s, 'project', bearer(await hs256())))).to.deep.equal(['prj-apollo', 'prj-mercury']);
    });

    it('declares anonymous access in the OpenAPI document', async () => {
      const doc = (await s.request('GET', '/api/objectql/openapi.json')).body;
      expect(doc.security).to.deep.include({});
    });
  });

  describe('an anonymous role no permission file names', () => {
    let s: TestServer;
    before(async () => {
      s = await startAuthServer({ jwt: { secret: SECRET }, anonymous: { roles: ['public'] } });
    });
    after(() => s?.stop());

    it('opens the objects without a permission file and nothing else', async () => {
      expect(ids(await list(s, 'account'))).to.include('acc-acme');
      const projects = await list(s, 'project');
      expect(projects.status).to.equal(401);
      expect(projects.body.error.message).to.include('anonymous callers may not');
      // The same role on a real user is a 403.
      const withToken = await list(s, 'project', bearer(await hs256({ roles: ['public'] })));
      expect(withToken.status).to.equal(403);
      expect(withToken.body.error.code).to.equal('FORBIDDEN');
    });
  });

  describe('required: false', () => {
    let s: TestServer;
    before(async () => {
      s = await startAuthServer({ jwt: { secret: SECRET }, required: false });
    });
    after(() => s?.stop());

    it('lets a request without credentials in with no user; permission files then deny', async () => {
      expect((await list(s, 'account')).status).to.equal(200);
      const projects = await list(s, 'project');
      expect(projects.status).to.equal(401);
      expect(projects.body.error.message).to.include('anonymous callers may not');
      const bad = `${await hs256()}x`;
      expectUnauthorized(await list(s, 'account', bearer(bad)), 'bad signature', bad);
    });
  });

  describe('the JSON-RPC body user with security.allowBodyUser', () => {
    let s: TestServer;
    before(async () => {
      s = await startAuthServer({ jwt: { secret: SECRET } }, { security: { allowBodyUser: true } });
    });
    after(() => s?.stop());

    it('identifies a JSON-RPC request by its body user, with that user’s permissions', async () => {
      expect(rpcIds(await rpc(s, findProjects(USERS.alice)))).to.deep.equal(['prj-apollo', 'prj-mercury']);
      expect(rpcIds(await rpc(s, findProjects(USERS.carol)))).to.deep.equal(['prj-apollo', 'prj-gemini', 'prj-mercury']);
    });

    it('lets header credentials win over the body user', async () => {
      expect(rpcIds(await rpc(s, findProjects(USERS.admin), bearer(await hs256({ sub: 'bob' }))))).to.deep.equal(['prj-gemini']);
      const bad = `${await hs256()}x`;
      expectUnauthorized(await rpc(s, findProjects(USERS.admin), bearer(bad)), 'bad signature', bad);
    });

    it('refuses a malformed body user with 400 naming user', async () => {
      for (const user of [{ roles: ['admin'] }, 'root', { id: 'x', roles: 'admin' }, { id: 'x', roles: [1] }, null]) {
        const res = await rpc(s, { ...findProjects(), user });
        expect(res.status, JSON.stringify(user)).to.equal(400);
        expect(res.body.error.code).to.equal('INVALID_REQUEST');
        expect(res.body.error.message).to.include("'user");
      }
    });

    it('honours the body user only on the JSON-RPC route', async () => {
      expectUnauthorized(await s.request('POST', '/api/data/account', { name: 'X', user: USERS.admin }), REQUIRED);
      expectUnauthorized(await s.request('GET', '/api/objectql'), REQUIRED);
    });

    it('lists the body user among the credential forms', async () => {
      const caps = (await s.request('GET', '/.well-known/objectql')).body.capabilities;
      expect(caps.find((c: { plugin: string }) => c.plugin === 'auth').credentials).to.deep.equal(['bearer', 'bodyUser']);
    });
  });

  describe('options', () => {
    const fail = (auth: unknown) =>
      createKernel({ logLevel: 'silent', metadata: [SAMPLE_METADATA], plugins: { auth: auth as Record<string, unknown> } }).then(
        () => 'no error',
        (e: Error) => e.message,
      );

    it('refuses wrong options with a message naming the key', async () => {
      expect(await fail({ jwt: { secret: 'short' } })).to.equal("Plugin 'auth': jwt.secret must be at least 32 characters (256 bits) long");
      expect(await fail({ jwt: {} })).to.equal("Plugin 'auth': jwt must set exactly one of secret, publicKey or jwksUrl");
      expect(await fail({ jwt: { jwksUrl: 'ftp://keys.example' } })).to.equal("Plugin 'auth': jwt.jwksUrl must be an http(s) URL");
      expect(await fail({ jwt: { secret: SECRET, algorithms: ['none'] } })).to.match(
        /^Plugin 'auth': jwt\.algorithms\[0\] must list algorithms among HS256/,
      );
      expect(await fail({ jwt: { secret: SECRET, clockTolerance: -1 } })).to.equal(
        "Plugin 'auth': jwt.clockTolerance must not be negative",
      );
      expect(await fail({ sessions: { store: { redis: { url: 'http://x' } } } })).to.equal(
        "Plugin 'auth': sessions.store.redis.url must be a redis:// or rediss:// URL",
      );
      expect(await fail({ sessions: { cookie: { name: 'sid' } } })).to.equal("Plugin 'auth': unknown option 'sessions.cookie.name'");
      expect(await fail({ sessions: { ttlSeconds: 0 } })).to.equal("Plugin 'auth': sessions.ttlSeconds must be positive");
      expect(await fail({ anonymous: { roles: 'public' } })).to.equal("Plugin 'auth': anonymous.roles must be a list of strings");
      expect(await fail({ required: 'yes' })).to.equal("Plugin 'auth': required must be true or false");
      expect(await fail({ allowBodyUser: true })).to.equal(
        "Plugin 'auth': allowBodyUser is not an auth option; set security.allowBodyUser at the top level of the config",
      );
    });

    it('accepts `auth: true` (required, nothing else configured)', async () => {
      const s = await startAuthServer(true as unknown as Record<string, unknown>);
      try {
        expectUnauthorized(await list(s, 'account'), REQUIRED);
      } finally {
        await s.stop();
      }
    });
  });
});
