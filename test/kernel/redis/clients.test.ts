/**
 * objectql/redis against a real Redis (skipped with a reason when it is unreachable, failing when
 * REQUIRE_SERVICES names it), with a TCP relay in front of it to cut or freeze: the profiles'
 * fail-fast and reconnecting behaviour, connecting, quitting with a time limit, and outage logging.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { connectRedis, createRedisClient, logRedisOutages, quitRedis, type RedisProfile } from '../../../kernel/redis';
import { needService, probeRedis, SERVICE_URLS } from '../../helpers/services';
import { closedPort, Relay, until } from './relay';

describe('objectql/redis against a real Redis', function () {
  let url: string;
  let admin: Redis;
  const clients: Redis[] = [];
  const relays: Relay[] = [];

  before(async function () {
    await needService(this, 'redis', probeRedis);
    url = SERVICE_URLS.redis!;
    admin = new Redis(url);
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await Promise.all(relays.splice(0).map((r) => r.stop()));
  });
  after(async () => {
    await admin?.quit();
  });

  /** A client kept for cleanup, with an error listener (errors are expected here). */
  function client(target: string, profile: RedisProfile, name = `objectql-test-${randomUUID()}`): Redis {
    const c = createRedisClient(target, profile, name);
    c.on('error', () => {});
    clients.push(c);
    return c;
  }

  async function relay(): Promise<Relay> {
    const r = Relay.to(url);
    relays.push(r);
    await r.start();
    return r;
  }

  /** The connections CLIENT LIST shows with this name. */
  async function named(name: string): Promise<number> {
    const list = String(await admin.client('LIST'));
    return list.split('\n').filter((line) => line.includes(` name=${name} `)).length;
  }

  /** A logger whose lines (JSON) are collected. */
  function capturedLogger(): {
    logger: pino.Logger;
    lines: Array<{ level: number; msg: string; [key: string]: unknown }>;
    text: () => string;
  } {
    const raw: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void raw.push(line) });
    return {
      logger,
      get lines() {
        return raw.map((line) => JSON.parse(line) as { level: number; msg: string });
      },
      text: () => raw.join(''),
    };
  }

  describe('profiles', () => {
    it('create clients without any I/O (lazy), which connect under their name', async () => {
      const r = await relay();
      const name = `objectql-test-${randomUUID()}`;
      const commands = client(r.url, 'commands', name);
      const subscriber = client(r.url, 'subscriber', `${name}-sub`);
      expect([commands.status, subscriber.status]).to.deep.equal(['wait', 'wait']);
      expect(r.connections, 'no connection made before connecting').to.equal(0);
      await Promise.all([connectRedis(commands), connectRedis(subscriber)]);
      expect(await named(name)).to.equal(1);
      expect(await named(`${name}-sub`)).to.equal(1);
    });

    it('commands: a command while Redis is away fails at once rather than waiting in a queue, and works again once it is back', async () => {
      const r = await relay();
      const c = client(r.url, 'commands');
      await connectRedis(c);
      await r.stop();
      await until(() => c.status !== 'ready');
      const err = await c.get('objectql-test:any').then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).to.match(/enableOfflineQueue/);
      await r.start();
      await until(() => c.status === 'ready');
      expect(await c.ping()).to.equal('PONG');
    });

    it('commands: a command Redis does not answer fails (the connection is dropped and made again)', async () => {
      const r = await relay();
      const c = client(r.url, 'commands');
      await connectRedis(c);
      r.freeze();
      const err = await c.get('objectql-test:any').then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).to.match(/timed out|timeout/i);
      r.thaw();
      await until(async () => (await c.ping().catch(() => undefined)) === 'PONG');
    });

    it('subscriber: re-subscribes after Redis comes back, and keeps receiving', async function () {
      this.timeout(30_000);
      const r = await relay();
      const channel = `objectql-test:${randomUUID()}`;
      const c = client(r.url, 'subscriber');
      const got: string[] = [];
      c.on('message', (_channel: string, message: string) => got.push(message));
      await connectRedis(c);
      await c.subscribe(channel);
      await admin.publish(channel, 'before');
      await until(() => got.includes('before'));

      await r.stop();
      await until(() => c.status !== 'ready');
      await r.start();
      let n = 0;
      await until(async () => {
        await admin.publish(channel, `after ${++n}`);
        return got.some((m) => m.startsWith('after'));
      }, 15_000);
    });

    it('subscriber: a subscribe while Redis is away waits for it instead of failing', async () => {
      const r = await relay();
      const channel = `objectql-test:${randomUUID()}`;
      const c = client(r.url, 'subscriber');
      const got: string[] = [];
      c.on('message', (_channel: string, message: string) => got.push(message));
      await connectRedis(c);
      await r.stop();
      await until(() => c.status !== 'ready');
      const subscribed = c.subscribe(channel);
      await r.start();
      await subscribed;
      await admin.publish(channel, 'hello');
      await until(() => got.includes('hello'));
    });
  });

  describe('connectRedis', () => {
    it('rejects when Redis cannot be reached, leaving no reconnection loop behind', async () => {
      const c = client(`redis://127.0.0.1:${await closedPort()}`, 'commands');
      const err = await connectRedis(c).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).to.match(/ECONNREFUSED/);
      await until(() => c.status === 'end');
    });

    it('waits for a connection a command already started', async () => {
      const c = client(url, 'commands');
      void c.ping().catch(() => undefined); // a lazy client starts connecting on its first command
      expect(c.status).to.equal('connecting');
      await connectRedis(c);
      expect(c.status).to.equal('ready');
    });
  });

  describe('quitRedis', () => {
    it('says goodbye to a live server: the connection is gone from CLIENT LIST when it returns', async () => {
      const name = `objectql-test-${randomUUID()}`;
      const c = client(url, 'commands', name);
      await connectRedis(c);
      expect(await named(name)).to.equal(1);
      await quitRedis(c);
      expect(c.status).to.equal('end');
      expect(await named(name)).to.equal(0);
    });

    for (const profile of ['subscriber', 'commands'] as const) {
      it(`returns against a server that stopped answering (${profile}), closing the connection`, async () => {
        const r = await relay();
        const c = client(r.url, profile);
        await connectRedis(c);
        if (profile === 'subscriber') await c.subscribe(`objectql-test:${randomUUID()}`);
        r.freeze();
        // The subscriber has no command timeout: a QUIT awaited without a time limit would never return.
        await quitRedis(c, 200);
        await until(() => c.status === 'end' && r.connections === 0);
      });
    }

    it('closes a client that is not connected, or still trying to, without waiting', async () => {
      const idle = client(url, 'commands');
      await quitRedis(idle);
      expect(idle.status).to.equal('end');

      const trying = client(`redis://127.0.0.1:${await closedPort()}`, 'commands');
      let attempts = 0;
      trying.on('connecting', () => attempts++);
      void trying.connect().catch(() => undefined);
      await until(() => attempts >= 2);
      await quitRedis(trying);
      const seen = attempts;
      // The next attempt was due within 300 ms (100 ms after the second failure).
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(attempts, 'no reconnection attempt after quitting').to.equal(seen);
    });
  });

  describe('logRedisOutages', () => {
    it('logs an outage once and the return once, however many reconnection attempts fail', async function () {
      this.timeout(30_000);
      const r = await relay();
      const c = client(r.url, 'commands');
      const log = capturedLogger();
      const outages = logRedisOutages(c, log.logger, { url: r.url, down: 'test: away', back: 'test: back', fields: { connection: 'x' } });
      await connectRedis(c);
      await r.stop();
      // Several failed attempts (at most 1 s apart).
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await r.start();
      await until(() => c.status === 'ready', 15_000);
      await r.stop();
      await until(() => c.status !== 'ready');
      outages.stop();
      await quitRedis(c);
      expect(log.lines.map((l) => [l.level, l.msg])).to.deep.equal([
        [40, 'test: away'],
        [30, 'test: back'],
        [40, 'test: away'],
      ]);
      expect(log.lines[0]).to.include({ redis: r.url, connection: 'x' });
    });

    it('logs a failure before the first connection unless told not to', async () => {
      const port = await closedPort();
      for (const logFirstFailure of [true, false]) {
        const c = client(`redis://127.0.0.1:${port}`, 'commands');
        const log = capturedLogger();
        logRedisOutages(c, log.logger, { url: `redis://127.0.0.1:${port}`, down: 'test: away', back: 'test: back', logFirstFailure });
        await connectRedis(c).catch(() => undefined);
        expect(log.lines.map((l) => l.msg)).to.deep.equal(logFirstFailure ? ['test: away'] : []);
      }
    });

    it('never logs the password: not in the URL, not in the error (whose command holds it)', async () => {
      const password = `pw-${randomUUID()}`;
      const target = new URL(url);
      target.username = 'objectql-test-nobody';
      target.password = password;
      const c = client(target.href, 'commands');
      const log = capturedLogger();
      logRedisOutages(c, log.logger, { url: target.href, down: 'test: away', back: 'test: back' });
      const err = await connectRedis(c).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err, 'wrong credentials are refused').to.be.instanceOf(Error);
      expect(log.lines.map((l) => l.msg)).to.deep.equal(['test: away']);
      expect(log.lines[0].redis).to.equal(`redis://objectql-test-nobody:***@${target.host}`);
      expect(JSON.stringify(log.lines[0].err)).to.match(/WRONGPASS/);
      expect(log.text()).not.to.include(password);
      expect(String(err?.message)).not.to.include(password);
    });
  });
});
