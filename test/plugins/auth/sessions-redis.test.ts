/**
 * Sessions in Redis (skipped with a reason when Redis is unreachable, failing when REQUIRE_SERVICES
 * names it): two kernels sharing one store, Redis-enforced expiry, revocation, and a store whose
 * keys and values never hold a live session id.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createKernel } from '../../../server';
import { SAMPLE_METADATA, startServer, type TestServer } from '../../helpers/server';
import { needService, probeRedis, SERVICE_URLS } from '../../helpers/services';
import { Relay, until } from '../../kernel/redis/relay';
import { cookiePair, expectUnauthorized, ids, list, sleep, startAuthServer } from './helpers';

const KEY = 'carol-api-key-0123456789abcdef';

describe('auth: sessions (Redis store)', () => {
  let url: string;
  let redis: Redis;
  let keyPrefix: string;
  const servers: TestServer[] = [];

  const start = async (ttlSeconds = 3600) => {
    const s = await startAuthServer({
      apiKeys: [{ key: KEY, user: { id: 'carol', roles: ['manager'] } }],
      sessions: { store: { redis: { url, keyPrefix } }, ttlSeconds },
    });
    servers.push(s);
    return s;
  };

  before(async function () {
    await needService(this, 'redis', probeRedis);
    url = SERVICE_URLS.redis!;
    redis = new Redis(url);
  });
  beforeEach(() => {
    keyPrefix = `objectql-test:auth:${randomUUID()}:`;
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length) await redis.del(...keys);
  });
  after(async () => {
    await redis?.quit();
  });

  it('shares sessions between two kernels on one store; ending it on one ends it on both', async () => {
    const a = await start();
    const b = await start();
    const created = await a.request('POST', '/api/auth/session', undefined, { 'x-api-key': KEY });
    expect(created.status).to.equal(201);
    const cookie = cookiePair(created);
    const id = cookie.slice('session_id='.length);
    expect(ids(await list(b, 'project', { cookie }))).to.have.length(3);
    const seen = await b.request('GET', '/api/auth/session', undefined, { cookie });
    expect(seen.body.data).to.deep.equal(created.body.data);

    expect((await b.request('DELETE', '/api/auth/session', undefined, { cookie })).status).to.equal(204);
    expectUnauthorized(await list(a, 'project', { cookie }), 'session expired or ended', id);
  });

  it('revokes every session of a user through the service of either kernel', async () => {
    const a = await start();
    const b = await start();
    const cookies = [];
    for (const s of [a, b, a]) cookies.push(cookiePair(await s.request('POST', '/api/auth/session', undefined, { 'x-api-key': KEY })));
    expect(await b.kernel.resolve('sessions').revokeUser('carol')).to.equal(3);
    for (const cookie of cookies) expectUnauthorized(await list(a, 'project', { cookie }), 'session expired or ended');
    expect(await redis.keys(`${keyPrefix}*`)).to.deep.equal([]);
  });

  it('stores only hashes of session ids, with a Redis expiry', async () => {
    const s = await start(600);
    const cookie = cookiePair(await s.request('POST', '/api/auth/session', undefined, { 'x-api-key': KEY }));
    const id = cookie.slice('session_id='.length);
    const keys = await redis.keys(`${keyPrefix}*`);
    expect(keys).to.have.length(2); // the session and carol's index
    for (const key of keys) {
      expect(key).not.to.include(id);
      const value = (await redis.type(key)) === 'set' ? (await redis.smembers(key)).join() : await redis.get(key);
      expect(value).not.to.include(id);
      const ttl = await redis.pttl(key);
      expect(ttl).to.be.within(1, 600_000);
    }
    const sessionKey = keys.find((k) => k.includes(':session:'))!;
    expect(JSON.parse((await redis.get(sessionKey))!).user).to.deep.equal({ id: 'carol', roles: ['manager'] });
  });

  it('lets Redis end a session when its time is up', async () => {
    const s = await start(1);
    const cookie = cookiePair(await s.request('POST', '/api/auth/session', undefined, { 'x-api-key': KEY }));
    expect((await list(s, 'project', { cookie })).status).to.equal(200);
    await sleep(1100);
    expectUnauthorized(await list(s, 'project', { cookie }), 'session expired or ended');
  });

  it('answers session requests at once while Redis is away (503), keeps the cookie, and accepts it again once Redis is back', async function () {
    this.timeout(30_000);
    const relay = Relay.to(url);
    await relay.start();
    const lines: string[] = [];
    const s = await startServer(
      {
        logLevel: 'info',
        plugins: {
          rest: true,
          auth: {
            apiKeys: [{ key: KEY, user: { id: 'carol', roles: ['manager'] } }],
            sessions: { store: { redis: { url: relay.url, keyPrefix } } },
          },
        },
      },
      { logDestination: { write: (line: string) => void lines.push(line) } },
    );
    servers.push(s);
    try {
      const cookie = cookiePair(await s.request('POST', '/api/auth/session', undefined, { 'x-api-key': KEY }));
      await relay.stop();
      for (let i = 0; i < 3; i++) {
        const res = await list(s, 'project', { cookie });
        expect(res.status, JSON.stringify(res.body)).to.equal(503);
        expect(res.body.error).to.deep.equal({ code: 'SERVICE_UNAVAILABLE', message: 'The session store is unavailable' });
        expect(res.headers.get('retry-after')).to.equal('5');
        expect(res.headers.get('set-cookie'), 'the cookie is not cleared: the session may be fine').to.equal(null);
      }
      const created = await s.request('POST', '/api/auth/session', undefined, { 'x-api-key': KEY });
      expect(created.status).to.equal(503);
      expect(created.body.error.message).to.equal('The session store is unavailable');

      await relay.start();
      await until(async () => (await list(s, 'project', { cookie })).status === 200, 15_000);
      const outages = lines.map((l) => JSON.parse(l) as { msg: string }).filter((l) => l.msg.startsWith('auth: the session store'));
      expect(outages.map((l) => l.msg)).to.deep.equal([
        'auth: the session store (Redis) is unreachable; requests with a session cookie fail until it is back',
        'auth: the session store (Redis) is back',
      ]);
    } finally {
      await relay.stop();
    }
  });

  it('fails start-up naming the store when Redis cannot be reached, leaving nothing open', async () => {
    const kernel = await createKernel({
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      metadata: [SAMPLE_METADATA],
      datasources: { default: { driver: 'memory' } },
      plugins: { auth: { sessions: { store: { redis: { url: 'redis://user:pw@127.0.0.1:1' } } } } },
    });
    const err = await kernel.start().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).to.match(/^Plugin 'auth': cannot connect to the session store at redis:\/\/user:\*\*\*@127\.0\.0\.1:1/);
  });

  it('refuses wrong Redis credentials at start-up, naming the URL without its password', async () => {
    const password = `pw-${randomUUID()}`;
    const target = new URL(url);
    target.username = 'objectql-test-nobody';
    target.password = password;
    const lines: string[] = [];
    const err = await startServer(
      { logLevel: 'debug', plugins: { auth: { sessions: { store: { redis: { url: target.href } } } } } },
      { logDestination: { write: (line: string) => void lines.push(line) } },
    ).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).to.include(
      `Plugin 'auth': cannot connect to the session store at redis://objectql-test-nobody:***@${target.host}: WRONGPASS`,
    );
    expect(lines.join('')).not.to.include(password);
  });
});
