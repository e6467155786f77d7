/**
 * Redis failing under a running server with every Redis user on (auth sessions, rate-limit
 * counters, pubsub-redis), all through one TCP proxy on loopback that the test stalls,
 * black-holes and resets. Session requests answer 503 SERVICE_UNAVAILABLE (never a 500, never a
 * hang), requests with other credentials keep working (rate limits counted in memory meanwhile),
 * /health/ready names each Redis user that is down, /health stays 200, and everything is back
 * without a restart once Redis answers. Durations are printed, not asserted.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { FaultProxy, until } from '../helpers/fault-proxy';
import { probeHealthDuring } from '../helpers/health-probe';
import { startServer, type TestServer } from '../helpers/server';
import { SERVICE_URLS, needService, probeRedis } from '../helpers/services';

const KEY = 'carol-api-key-0123456789abcdef';
const REDIS_USERS = ['auth sessions', 'rate-limit', 'pubsub'];

describe('Redis failing under a running server', function () {
  this.timeout(60_000);
  let proxy: FaultProxy;
  let server: TestServer;
  let cookie: string;

  before(async function () {
    await needService(this, 'redis', probeRedis);
  });
  beforeEach(async () => {
    proxy = FaultProxy.to(SERVICE_URLS.redis!);
    await proxy.start();
    const prefix = `objectql-test:faults:${randomUUID()}`;
    server = await startServer({
      health: { readyTimeoutMs: 1500, readyCacheMs: 0 },
      plugins: {
        rest: true,
        auth: {
          apiKeys: [{ key: KEY, user: { id: 'carol', roles: ['manager'] } }],
          sessions: { store: { redis: { url: proxy.url, keyPrefix: `${prefix}:auth:` } } },
        },
        'rate-limit': { store: { redis: { url: proxy.url, keyPrefix: `${prefix}:rl` } } },
        'pubsub-redis': { url: proxy.url, channelPrefix: `${prefix}:` },
      },
    });
    const created = await server.request('POST', '/api/auth/session', undefined, { 'x-api-key': KEY });
    expect(created.status).to.equal(201);
    cookie = /session_id=[^;]+/.exec(created.headers.get('set-cookie') ?? '')![0];
  });
  afterEach(async () => {
    await server?.stop();
    await proxy?.stop();
  });

  const withCookie = () => server.request('GET', '/api/data/project?top=1', undefined, { cookie });
  const withKey = () => server.request('GET', '/api/data/project?top=1', undefined, { 'x-api-key': KEY });
  const ready = () => server.request('GET', '/health/ready');

  async function expectSessionUnavailable(what: string): Promise<void> {
    const started = performance.now();
    const res = await withCookie();
    console.log(`      ${what}: ${res.status} in ${Math.round(performance.now() - started)} ms`);
    expect(res.status, JSON.stringify(res.body)).to.equal(503);
    expect(res.body.error).to.deep.equal({ code: 'SERVICE_UNAVAILABLE', message: 'The session store is unavailable' });
    expect(res.headers.get('retry-after')).to.equal('5');
  }

  async function expectNotReady(): Promise<void> {
    const res = await ready();
    expect(res.status, JSON.stringify(res.body)).to.equal(503);
    for (const name of REDIS_USERS) expect(res.body.error.message).to.contain(`redis '${name}'`);
    const down = (res.body.error.details.checks as Array<{ name: string; status: string }>).filter((c) => c.status === 'down');
    expect(down.map((c) => c.name)).to.have.members(REDIS_USERS);
  }

  async function expectRecovered(): Promise<void> {
    const started = performance.now();
    await until(async () => (await withCookie()).status === 200, 20_000);
    await until(async () => (await ready()).status === 200, 20_000);
    console.log(`      recovered in ${Math.round(performance.now() - started)} ms`);
    const res = await ready();
    expect(res.body.status).to.equal('ready');
    const redis = (res.body.checks as Array<{ kind: string; name: string; status: string }>).filter((c) => c.kind === 'redis');
    expect(redis.map((c) => [c.name, c.status])).to.have.deep.members(REDIS_USERS.map((n) => [n, 'up']));
  }

  it('reports every Redis user in /health/ready while Redis is up', async () => {
    await expectRecovered();
  });

  it('black hole: session requests answer 503, others keep working, readiness names each Redis user; all back after restore', async () => {
    expect((await withCookie()).status).to.equal(200);
    proxy.blackHole();
    const { health } = await probeHealthDuring(server.url, async () => {
      for (let i = 1; i <= 3; i++) await expectSessionUnavailable(`black-holed session lookup ${i}`);
      const other = await withKey();
      expect(other.status, 'an API key needs no Redis; the rate limit counts in memory meanwhile').to.equal(200);
      expect(other.headers.get('ratelimit-limit') ?? other.headers.get('x-ratelimit-limit')).to.be.a('string');
      await expectNotReady();
    });
    expect(health.failures).to.equal(0);
    proxy.restore();
    await expectRecovered();
  });

  it('stall: a session lookup on a connection that stopped answering gets 503, then a new connection serves', async () => {
    proxy.stall();
    await expectSessionUnavailable('stalled session lookup');
    expect((await server.request('GET', '/health')).status).to.equal(200);
    // New connections pass while the old one stays silent: ioredis drops it and connects again.
    await expectRecovered();
  });

  it('reset: session requests answer 503 at once; back after restore', async () => {
    proxy.reset();
    await expectSessionUnavailable('reset session lookup');
    await expectNotReady();
    expect((await withKey()).status).to.equal(200);
    proxy.restore();
    await expectRecovered();
  });
});
