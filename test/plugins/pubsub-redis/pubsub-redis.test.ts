/**
 * pubsub-redis over a real Redis: kernels sharing a Redis and channel prefix hear each other's
 * record changes, other prefixes stay apart, an outage (a TCP relay cut and restored) is survived,
 * and a write on instance B reaches a realtime subscriber and a GraphQL subscriber on instance A.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RECORD_CHANGED_CHANNEL, type RecordChange } from '../../../kernel';
import { needService, probeRedis, SERVICE_URLS } from '../../helpers/services';
import { closedPort, Relay, until } from '../../kernel/redis/relay';
import { startServer, USERS, type TestServer } from '../../helpers/server';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { Client, SECRET, token, wsUrl } from '../realtime/helpers';

describe('pubsub-redis plugin', function () {
  const servers: TestServer[] = [];
  const relays: Relay[] = [];
  const prefix = () => `objectql-test:${process.pid}:${Date.now()}:${Math.random().toString(36).slice(2)}:`;
  let url: string;
  let seq = 0;

  before(async function () {
    await needService(this, 'redis', probeRedis);
    url = SERVICE_URLS.redis!;
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    await Promise.all(relays.splice(0).map((r) => r.stop()));
  });

  async function instance(options: { url?: string; channelPrefix: string }, extra: Record<string, unknown> = {}): Promise<TestServer> {
    const s = await startServer({ security: { allowBodyUser: true }, plugins: { rpc: true, 'pubsub-redis': options }, ...extra });
    servers.push(s);
    return s;
  }
  async function listen(s: TestServer): Promise<RecordChange[]> {
    const got: RecordChange[] = [];
    await s.kernel.resolve('pubsub').subscribe(RECORD_CHANGED_CHANNEL, (m) => got.push(m as RecordChange));
    return got;
  }
  const create = async (s: TestServer) => {
    const name = `PS ${process.pid}-${++seq}`;
    const res = await s.rpc({ op: 'create', object: 'project', args: { name }, user: USERS.carol });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return name;
  };

  it('delivers a change made on B to a subscriber on A', async () => {
    const p = prefix();
    const a = await instance({ url, channelPrefix: p });
    const b = await instance({ url, channelPrefix: p });
    const onA = await listen(a);
    const name = await create(b);
    await until(() => onA.some((c) => c.record?.name === name));
    const change = onA.find((c) => c.record?.name === name)!;
    expect(change).to.include({ object: 'project', type: 'created' });
  });

  it('delivers an instance its own changes exactly once', async () => {
    const a = await instance({ url, channelPrefix: prefix() });
    const onA = await listen(a);
    const name = await create(a);
    await until(() => onA.some((c) => c.record?.name === name));
    await new Promise((r) => setTimeout(r, 200));
    expect(onA.filter((c) => c.record?.name === name)).to.have.length(1);
  });

  it('keeps different channel prefixes apart', async () => {
    const a = await instance({ url, channelPrefix: prefix() });
    const b = await instance({ url, channelPrefix: prefix() });
    const onA = await listen(a);
    const name = await create(b);
    await new Promise((r) => setTimeout(r, 300));
    expect(onA.filter((c) => c.record?.name === name)).to.have.length(0);
  });

  it('fails start-up naming the URL when Redis is unreachable', async () => {
    const port = await closedPort();
    const err = await startServer({ plugins: { rpc: true, 'pubsub-redis': { url: `redis://127.0.0.1:${port}` } } }).catch((e: Error) => e);
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message).to.contain(`redis://127.0.0.1:${port}`);
  });

  it('fails start-up on wrong credentials, naming the URL without its password', async () => {
    const password = `pw-${process.pid}-${Date.now()}`;
    const target = new URL(url);
    target.username = 'objectql-test-nobody';
    target.password = password;
    const lines: string[] = [];
    const err = await startServer(
      { logLevel: 'debug', plugins: { rpc: true, 'pubsub-redis': { url: target.href } } },
      { logDestination: { write: (line: string) => void lines.push(line) } },
    ).catch((e: Error) => e);
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message).to.include(
      `pubsub-redis: cannot connect to Redis at redis://objectql-test-nobody:***@${target.host}: WRONGPASS`,
    );
    expect(lines.join('')).not.to.include(password);
  });

  it('rejects invalid options', async () => {
    const err = await startServer({ plugins: { 'pubsub-redis': { url: 'http://x' } } }).catch((e: Error) => e);
    expect((err as Error).message).to.contain('url');
  });

  it('survives a Redis outage: writes succeed meanwhile, messages flow again after it', async function () {
    this.timeout(30000);
    const target = new URL(url);
    const relay = new Relay({ host: target.hostname, port: Number(target.port || 6379) });
    relays.push(relay);
    await relay.start();
    const p = prefix();
    const a = await instance({ url: relay.url, channelPrefix: p });
    const b = await instance({ url, channelPrefix: p });
    const onA = await listen(a);
    const first = await create(b);
    await until(() => onA.some((c) => c.record?.name === first));

    await relay.stop();
    // A write on A while its Redis is gone: succeeds, and A's own listeners still hear it.
    const during = await create(a);
    await until(() => onA.some((c) => c.record?.name === during));
    expect((await a.request('GET', '/health')).status).to.equal(200);

    await relay.start();
    // Reconnected and re-subscribed: B's changes reach A again.
    let after = '';
    const end = Date.now() + 15000;
    while (Date.now() < end) {
      after = await create(b);
      const seen = await until(() => onA.some((c) => c.record?.name === after), 500).then(
        () => true,
        () => false,
      );
      if (seen) break;
    }
    expect(onA.some((c) => c.record?.name === after)).to.equal(true);
  });

  it('a write on B reaches a realtime subscriber on A (shared SQLite)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'objectql-rt-'));
    try {
      const p = prefix();
      const config = (port = 0) => ({
        port,
        datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: join(dir, 'db.sqlite') } } },
        plugins: { rpc: true, realtime: true, auth: { jwt: { secret: SECRET } }, 'pubsub-redis': { url, channelPrefix: p } },
      });
      const a = await startServer(config());
      servers.push(a);
      const b = await startServer(config());
      servers.push(b);
      const c = await Client.open(wsUrl(a.url));
      try {
        await c.request({ type: 'auth', id: 'a', token: token(USERS.carol) });
        await c.request({ type: 'subscribe', id: 's', object: 'project' });
        const name = `RT-B ${process.pid}-${++seq}`;
        const res = await b.rpc({ op: 'create', object: 'project', args: { name } }, { authorization: `Bearer ${token(USERS.carol)}` });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const m = await c.next((x) => x.type === 'change' && x.record?.name === name, 5000);
        expect(m).to.include({ subscription: 's', operation: 'created', object: 'project' });
      } finally {
        c.close();
      }
    } finally {
      await Promise.all(servers.splice(0).map((s) => s.stop()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('a write on B reaches a GraphQL subscriber on A (shared SQLite)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'objectql-gql-'));
    try {
      const p = prefix();
      const config = {
        datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: join(dir, 'db.sqlite') } } },
        plugins: { 'pubsub-redis': { url, channelPrefix: p }, rpc: true, graphql: true, auth: { jwt: { secret: SECRET } } },
      };
      const a = await startServer(config);
      servers.push(a);
      const b = await startServer(config);
      servers.push(b);
      const authorization = `Bearer ${token(USERS.carol)}`;
      const client = createClient({
        url: `${a.url.replace(/^http/, 'ws')}/api/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { authorization },
        retryAttempts: 0,
      });
      try {
        const name = `GQL-B ${process.pid}-${++seq}`;
        const received = new Promise<{ name: string }>((resolve, reject) => {
          client.subscribe<{ projectCreated: { name: string } }>(
            { query: 'subscription { projectCreated(where: {status: "planning"}) { name } }' },
            {
              next: (r) => (r.data?.projectCreated.name.startsWith(name) ? resolve(r.data.projectCreated) : undefined),
              error: reject,
              complete: () => undefined,
            },
          );
        });
        // The subscription is live once an event arrives: create until one does (graphql-ws acknowledges no subscribe).
        const deadline = Date.now() + 10000;
        let got: { name: string } | undefined;
        for (let attempt = 1; !got && Date.now() < deadline; attempt++) {
          const res = await b.rpc(
            { op: 'create', object: 'project', args: { name: `${name} #${attempt}`, status: 'planning' } },
            { authorization },
          );
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          got = await Promise.race([received, new Promise<undefined>((r) => setTimeout(() => r(undefined), 500))]);
        }
        expect(got?.name).to.match(new RegExp(`^${name} #\\d+$`));
      } finally {
        await client.dispose();
      }
    } finally {
      await Promise.all(servers.splice(0).map((s) => s.stop()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
