/**
 * Sessions with the in-process store: a Bearer token or an API key buys a session cookie, the
 * cookie then identifies its user, GET shows it, DELETE ends it; expiry, revocation through the
 * `sessions` service, cookie attributes, and what cannot create a session.
 */
import { expect } from 'chai';
import type { TestServer } from '../../helpers/server';
import { bearer, cookiePair, expectUnauthorized, hs256, ids, list, SECRET, sleep, startAuthServer, type Res } from './helpers';

const KEY = 'bob-api-key-0123456789abcdef';

async function createSession(s: TestServer, headers: Record<string, string>): Promise<{ res: Res; cookie: string; id: string }> {
  const res = await s.request('POST', '/api/auth/session', undefined, headers);
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  const cookie = cookiePair(res);
  return { res, cookie, id: cookie.slice('session_id='.length) };
}

describe('auth: sessions (memory store)', () => {
  let s: TestServer;
  before(async () => {
    s = await startAuthServer({
      jwt: { secret: SECRET },
      apiKeys: [{ key: KEY, user: { id: 'bob', roles: ['member'] } }],
      sessions: { ttlSeconds: 3600 },
    });
  });
  after(() => s?.stop());

  it('creates a session from a Bearer token: 201, the user, its expiry and an HttpOnly cookie', async () => {
    const before = Date.now();
    const { res, id } = await createSession(s, bearer(await hs256()));
    expect(res.body.data.user).to.include({ id: 'alice' });
    expect(res.body.data.user.roles).to.deep.equal(['member']);
    const expires = Date.parse(res.body.data.expires_at);
    expect(expires).to.be.within(before + 3600_000 - 1000, Date.now() + 3600_000 + 1000);
    expect(id).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(res.headers.get('set-cookie')).to.equal(`session_id=${id}; HttpOnly; SameSite=Lax; Path=/; Max-Age=3600`);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(JSON.stringify(res.body)).not.to.include(id);
  });

  it('identifies the user by the cookie, with that user’s permissions', async () => {
    const { cookie } = await createSession(s, { 'x-api-key': KEY });
    expect(ids(await list(s, 'project', { cookie }))).to.deep.equal(['prj-gemini']);
    const rpc = await s.rpc({ op: 'count', object: 'task' }, { cookie: `theme=dark; ${cookie}; other=1` });
    expect(rpc.status, JSON.stringify(rpc.body)).to.equal(200);
    expect(rpc.body.count).to.equal(3);
  });

  it('GET shows the current session; DELETE ends it and clears the cookie; the cookie is then refused', async () => {
    const { res: created, cookie, id } = await createSession(s, bearer(await hs256({ sub: 'carol', roles: ['manager'] })));
    const current = await s.request('GET', '/api/auth/session', undefined, { cookie });
    expect(current.status).to.equal(200);
    expect(current.body).to.deep.equal({ data: { expires_at: created.body.data.expires_at, user: created.body.data.user } });

    const ended = await s.request('DELETE', '/api/auth/session', undefined, { cookie });
    expect(ended.status).to.equal(204);
    expect(ended.headers.get('set-cookie')).to.match(/^session_id=; HttpOnly; SameSite=Lax; Path=\/; Max-Age=0/);

    for (const [method, path] of [
      ['GET', '/api/auth/session'],
      ['DELETE', '/api/auth/session'],
      ['GET', '/api/data/project'],
    ]) {
      const res = await s.request(method, path, undefined, { cookie });
      expectUnauthorized(res, 'Session cookie rejected: session expired or ended', id);
      // The refused cookie is cleared in the browser.
      expect(res.headers.get('set-cookie')).to.match(/^session_id=;.*Max-Age=0/);
    }
  });

  it('GET and DELETE without a session are 401; other credentials are not a session', async () => {
    expectUnauthorized(await s.request('GET', '/api/auth/session'), 'Authentication required');
    expectUnauthorized(
      await s.request('GET', '/api/auth/session', undefined, bearer(await hs256())),
      'No session: send the session_id cookie',
    );
    expectUnauthorized(await s.request('DELETE', '/api/auth/session', undefined, { 'x-api-key': KEY }), 'No session');
  });

  it('refuses to make a session from a session cookie, and an unknown or malformed cookie', async () => {
    const { cookie, id } = await createSession(s, { 'x-api-key': KEY });
    expectUnauthorized(
      await s.request('POST', '/api/auth/session', undefined, { cookie }),
      'A session is created from a Bearer token or an X-API-Key header',
      id,
    );
    const unknown = 'A'.repeat(43);
    expectUnauthorized(await list(s, 'project', { cookie: `session_id=${unknown}` }), 'session expired or ended', unknown);
    expectUnauthorized(await list(s, 'project', { cookie: 'session_id=../../etc/passwd' }), 'session expired or ended');
  });

  it('refuses a bad Bearer token at session creation without echoing it', async () => {
    const bad = await hs256({ exp: Math.floor(Date.now() / 1000) - 3600 });
    expectUnauthorized(await s.request('POST', '/api/auth/session', undefined, bearer(bad)), 'Bearer token rejected: expired', bad);
  });

  it('revokes one session, or every session of a user, through the sessions service', async () => {
    const service = s.kernel.resolve('sessions');
    const first = await createSession(s, { 'x-api-key': KEY });
    const second = await createSession(s, { 'x-api-key': KEY });
    const other = await createSession(s, bearer(await hs256()));

    expect(await service.revoke(first.id)).to.equal(true);
    expect(await service.revoke(first.id)).to.equal(false);
    expectUnauthorized(await list(s, 'project', { cookie: first.cookie }), 'session expired or ended', first.id);
    expect((await list(s, 'project', { cookie: second.cookie })).status).to.equal(200);

    expect(await service.revokeUser('bob')).to.be.at.least(1);
    expectUnauthorized(await list(s, 'project', { cookie: second.cookie }), 'session expired or ended', second.id);
    // Alice's session is untouched.
    expect((await list(s, 'project', { cookie: other.cookie })).status).to.equal(200);
    expect((await service.get(other.id))?.user.id).to.equal('alice');
  });

  it('lets an application create a session for a user it identified itself', async () => {
    const session = await s.kernel.resolve('sessions').create({ id: 'carol', roles: ['manager'] });
    expect(ids(await list(s, 'project', { cookie: `session_id=${session.id}` }))).to.have.length(3);
  });

  it('ends a session when its time is up', async () => {
    const short = await startAuthServer({ apiKeys: [{ key: KEY, user: { id: 'bob', roles: ['member'] } }], sessions: { ttlSeconds: 1 } });
    try {
      const { cookie, id, res } = await createSession(short, { 'x-api-key': KEY });
      expect(res.headers.get('set-cookie')).to.include('Max-Age=1');
      expect((await list(short, 'project', { cookie })).status).to.equal(200);
      await sleep(1100);
      expectUnauthorized(await list(short, 'project', { cookie }), 'session expired or ended', id);
    } finally {
      await short.stop();
    }
  });

  it('sets SameSite=Strict and Secure when configured; a session path of its own', async () => {
    const strict = await startAuthServer({
      apiKeys: [{ key: KEY, user: { id: 'bob', roles: ['member'] } }],
      sessions: { path: '/v2/login/', cookie: { sameSite: 'strict', secure: true } },
    });
    try {
      expect((await strict.request('POST', '/api/auth/session', undefined, { 'x-api-key': KEY })).status).to.equal(404);
      const res = await strict.request('POST', '/v2/login/session', undefined, { 'x-api-key': KEY });
      expect(res.status).to.equal(201);
      expect(res.headers.get('set-cookie')).to.match(/^session_id=[\w-]{43}; HttpOnly; SameSite=Strict; Path=\/; Secure; Max-Age=28800$/);
    } finally {
      await strict.stop();
    }
  });

  it('keeps sessions per kernel: a cookie of one server means nothing to another', async () => {
    const other = await startAuthServer({ apiKeys: [{ key: KEY, user: { id: 'bob', roles: ['member'] } }], sessions: true });
    try {
      const { cookie, id } = await createSession(s, { 'x-api-key': KEY });
      expectUnauthorized(await list(other, 'project', { cookie }), 'session expired or ended', id);
    } finally {
      await other.stop();
    }
  });

  it('lists the session routes in the capabilities and the OpenAPI document', async () => {
    const caps = (await s.request('GET', '/.well-known/objectql')).body.capabilities;
    expect(caps.find((c: { plugin: string }) => c.plugin === 'auth')).to.deep.equal({
      plugin: 'auth',
      credentials: ['bearer', 'apiKey', 'session'],
      required: true,
      routes: ['POST /api/auth/session', 'GET /api/auth/session', 'DELETE /api/auth/session'],
    });
    const withDocs = await startAuthServer(
      { apiKeys: [{ key: KEY, user: { id: 'bob', roles: [] } }], sessions: true },
      { plugins: { openapi: true } },
    );
    try {
      const doc = (await withDocs.request('GET', '/api/objectql/openapi.json')).body;
      expect(doc.security).to.deep.equal([{ bearerAuth: [] }, { apiKey: [] }, { sessionCookie: [] }]);
      const paths = doc.paths['/api/auth/session'];
      expect(Object.keys(paths)).to.deep.equal(['post', 'get', 'delete']);
      expect(paths.post.security).to.deep.equal([{ bearerAuth: [] }, { apiKey: [] }]);
      expect(paths.get.security).to.deep.equal([{ sessionCookie: [] }]);
    } finally {
      await withDocs.stop();
    }
  });
});
