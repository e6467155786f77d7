/**
 * The Redis store over real HTTP and a real Redis: one budget shared by the kernels that use the
 * same server and key prefix, and requests still served (counted in memory) while Redis is away.
 * Every key this file writes starts with a prefix unique to the run, and is deleted at the end.
 */
import { expect } from 'chai';
import Redis from 'ioredis';
import { createKernel, type Kernel } from '../../../server';
import type { RateLimitOptions } from '../../../plugins/rate-limit';
import { needService, probeRedis, SERVICE_URLS } from '../../helpers/services';
import { closedPort, Relay } from '../../kernel/redis/relay';
import { SAMPLE_METADATA, startServer } from '../../helpers/server';
import { allowance, expectTooMany, hit, limits, startLimited, type Res } from './helpers';
import type { TestServer } from '../../helpers/server';

describe('rate-limit with a Redis store', function () {
  const prefix = `objectql-test:rate-limit:${process.pid}:${Date.now()}`;
  let redis: Redis | undefined;
  let url: string;
  let seq = 0;
  const servers: Array<TestServer | Kernel> = [];
  const relays: Relay[] = [];

  before(async function () {
    if (!(await needService(this, 'redis', probeRedis))) return;
    url = SERVICE_URLS.redis!;
    redis = new Redis(url);
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    await Promise.all(relays.splice(0).map((r) => r.stop()));
  });
  after(async () => {
    if (!redis) return;
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  /** A key prefix of its own for each test. */
  const keyPrefix = () => `${prefix}:${++seq}`;

  async function server(options: RateLimitOptions): Promise<TestServer> {
    const s = await startLimited(options);
    servers.push(s);
    return s;
  }

  it('shares one budget between two kernels that use the same Redis and key prefix', async () => {
    const store = { redis: { url, keyPrefix: keyPrefix() } };
    const tiers = { anonymous: { perMinute: 4, perHour: 100 } };
    const a = await server({ tiers, store });
    const b = await server({ tiers, store });
    const seen: Res[] = [await hit(a), await hit(b), await hit(a), await hit(b)];
    expect(seen.map((r) => [r.status, limits(r).remaining])).to.deep.equal([
      [200, 3],
      [200, 2],
      [200, 1],
      [200, 0],
    ]);
    expectTooMany(await hit(a));
    expectTooMany(await hit(b));
    expect(
      await redis!.get(`${store.redis.keyPrefix}:anonymous:hour:ip:127.0.0.1`),
      'refused requests are not counted in the hour',
    ).to.equal('4');
    expect(limits(await hit(b, { id: 'alice', roles: [] })), 'users have budgets of their own').to.deep.include({
      limit: 100,
      remaining: 99,
    });
  });

  it('opens one named connection, closed on stop', async () => {
    const connections = async () =>
      String(await redis!.client('LIST'))
        .split('\n')
        .filter((line) => line.includes(' name=objectql-rate-limit ')).length;
    const before = await connections();
    const s = await startLimited({ store: { redis: { url, keyPrefix: keyPrefix() } } });
    expect(await connections()).to.equal(before + 1);
    await s.stop();
    expect(await connections()).to.equal(before);
  });

  it('keeps the budgets of two key prefixes apart', async () => {
    const tiers = { anonymous: { perMinute: 2, perHour: 100 } };
    const a = await server({ tiers, store: { redis: { url, keyPrefix: keyPrefix() } } });
    const b = await server({ tiers, store: { redis: { url, keyPrefix: keyPrefix() } } });
    expect(await allowance(a, null)).to.equal(2);
    expect(await allowance(b, null)).to.equal(2);
  });

  /** A kernel counting in Redis through a relay, with the plugin's log lines captured. */
  async function behindRelay(): Promise<{ relay: Relay; get: () => Promise<Res>; counted: () => Promise<number>; logged: string[] }> {
    const target = new URL(url);
    const relay = new Relay({ host: target.hostname, port: Number(target.port || 6379) });
    relays.push(relay);
    await relay.start();
    const store = { redis: { url: relay.url, keyPrefix: keyPrefix() } };
    const kernel = await createKernel({
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      metadata: [SAMPLE_METADATA],
      datasources: { default: { driver: 'memory' } },
      plugins: { rest: true, 'rate-limit': { tiers: { anonymous: { perMinute: 1000, perHour: 1000 } }, store } },
    });
    // The plugin logs with the kernel's logger, read when it starts.
    const logged: string[] = [];
    const capture = (level: string) => (_obj: unknown, msg: unknown) =>
      void (typeof msg === 'string' && msg.startsWith('rate-limit:') && logged.push(`${level}: ${msg}`));
    kernel.logger.warn = capture('warn') as typeof kernel.logger.warn;
    kernel.logger.info = capture('info') as typeof kernel.logger.info;
    await kernel.start();
    servers.push(kernel);
    const get = async (): Promise<Res> => {
      const res = await fetch(`${kernel.http.url}/api/data/account?top=1`);
      return { status: res.status, body: await res.json(), headers: res.headers };
    };
    const hourKey = `${store.redis.keyPrefix}:anonymous:hour:ip:127.0.0.1`;
    return { relay, get, logged, counted: async () => Number((await redis!.get(hourKey)) ?? 0) };
  }

  /** Requests (each served) until one is counted in Redis, or 15 s have passed: ioredis reconnects on its own schedule (backoff up to 2 s). */
  async function untilCountedInRedis(get: () => Promise<Res>, counted: () => Promise<number>): Promise<number> {
    const before = await counted();
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      expect((await get()).status).to.equal(200);
      if ((await counted()) > before) break;
    }
    return (await counted()) - before;
  }

  it('falls back to memory when Redis goes away, logs it once, and counts in Redis again when it is back', async () => {
    const { relay, get, counted, logged } = await behindRelay();
    expect((await get()).status).to.equal(200);
    expect(await counted()).to.equal(1);

    await relay.stop();
    for (let i = 0; i < 3; i++) {
      const res = await get();
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(limits(res).limit).to.equal(1000);
    }
    expect(await counted(), 'nothing reached Redis').to.equal(1);
    expect(logged).to.have.length(1);
    expect(logged[0]).to.match(/^warn: rate-limit: Redis is unreachable/);

    await relay.start();
    expect(await untilCountedInRedis(get, counted), 'counted in Redis again').to.equal(1);
    expect(logged).to.have.length(2);
    expect(logged[1]).to.match(/^info: rate-limit: Redis is back/);
  });

  it('serves when Redis stops answering, and counts in Redis again when it answers', async () => {
    const { relay, get, counted, logged } = await behindRelay();
    expect((await get()).status).to.equal(200);

    relay.freeze();
    for (let i = 0; i < 3; i++) {
      const res = await get();
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(limits(res).limit).to.equal(1000);
    }
    expect(await counted(), 'nothing reached Redis').to.equal(1);
    expect(logged).to.deep.equal(['warn: rate-limit: Redis is unreachable; each instance counts in its own memory until it is back']);

    relay.thaw();
    expect(await untilCountedInRedis(get, counted), 'counted in Redis again').to.equal(1);
    expect(logged[1]).to.match(/^info: rate-limit: Redis is back/);
  });

  it('serves with wrong Redis credentials, counting in memory, and never logs the password', async () => {
    const password = `pw-${process.pid}-${Date.now()}`;
    const target = new URL(url);
    target.username = 'objectql-test-nobody';
    target.password = password;
    const lines: string[] = [];
    const s = await startServer(
      {
        logLevel: 'debug',
        plugins: {
          rest: true,
          'rate-limit': {
            tiers: { anonymous: { perMinute: 3, perHour: 100 } },
            store: { redis: { url: target.href, keyPrefix: keyPrefix() } },
          },
        },
      },
      { logDestination: { write: (line: string) => void lines.push(line) } },
    );
    servers.push(s);
    const res = await hit(s);
    expect(res.status).to.equal(200);
    expect(limits(res)).to.deep.include({ limit: 3, remaining: 2 });
    const warning = lines
      .map((l) => JSON.parse(l) as { msg: string; redis?: string; err?: { message: string } })
      .find((l) => l.msg.startsWith('rate-limit: Redis is unreachable'));
    expect(warning?.redis).to.equal(`redis://objectql-test-nobody:***@${target.host}`);
    expect(warning?.err?.message).to.match(/^WRONGPASS/);
    expect(lines.join('')).not.to.include(password);
  });
});

// No Redis needed: nothing listens where this one points.
describe('rate-limit with a Redis store that cannot be reached', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('serves when Redis is unreachable from the start, counting in memory', async () => {
    const s = await startLimited({
      tiers: { anonymous: { perMinute: 3, perHour: 100 } },
      store: { redis: { url: `redis://127.0.0.1:${await closedPort()}`, keyPrefix: 'unused' } },
    });
    stop = () => s.stop();
    const first = await hit(s);
    expect(first.status).to.equal(200);
    expect(limits(first)).to.deep.include({ limit: 3, remaining: 2 });
    expect(await allowance(s, null)).to.equal(2);
    const discovery = await hit(s, null, 'GET', '/.well-known/objectql');
    expect(discovery.body.capabilities.find((c: { plugin: string }) => c.plugin === 'rate-limit').store).to.equal('redis');
  });
});
