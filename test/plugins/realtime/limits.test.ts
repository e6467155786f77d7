/**
 * The kernel's WebSocket limits on the realtime API, each at its default + 1, over a real server
 * and real `ws` clients: subscriptions per connection and per user, connections per user and per
 * address, a socket that never authenticates, a ping flood (with /health answering throughout), a
 * client that stops reading (closed, memory bounded) and one that stops answering pings.
 */
import { expect } from 'chai';
import WebSocket from 'ws';
import { RECORD_CHANGED_CHANNEL, type ObjectQLConfig } from '../../../kernel';
import { webSockets } from '../../../kernel/protocol';
import { probeHealthDuring } from '../../helpers/health-probe';
import { startServer, type TestServer } from '../../helpers/server';
import { closed, upgrade, type UpgradeAnswer } from '../../server/websocket/upgrade';
import { SECRET, token } from './helpers';

const DEFAULTS = {
  maxConnectionsPerIp: 128,
  maxConnectionsPerUser: 32,
  maxSubscriptionsPerConnection: 100,
  maxSubscriptionsPerUser: 200,
};

describe('realtime WebSocket limits', function () {
  this.timeout(60_000);
  let server: TestServer;
  const sockets: WebSocket[] = [];

  async function start(config: ObjectQLConfig = {}, realtime: Record<string, unknown> = {}): Promise<void> {
    server = await startServer({ ...config, plugins: { rpc: true, realtime, auth: { jwt: { secret: SECRET } } } });
  }
  afterEach(async () => {
    for (const ws of sockets.splice(0)) ws.terminate();
    await server?.stop();
  });
  const url = () => server.url.replace(/^http/, 'ws') + '/api/realtime';
  const as = (id: string) => ({ authorization: `Bearer ${token({ id, roles: ['manager'] })}` });

  async function open(headers: Record<string, string> = {}): Promise<UpgradeAnswer> {
    const answer = await upgrade(url(), headers);
    if (answer.ws) sockets.push(answer.ws);
    return answer;
  }

  /** Sends and resolves with the reply carrying `id`. */
  async function ask(answer: UpgradeAnswer, message: Record<string, unknown>): Promise<any> {
    answer.ws!.send(JSON.stringify(message));
    const deadline = Date.now() + 5000;
    for (;;) {
      const i = answer.messages.findIndex((m) => m.id === message.id);
      if (i >= 0) return answer.messages.splice(i, 1)[0];
      if (Date.now() > deadline) throw new Error(`no reply to ${JSON.stringify(message)}: ${JSON.stringify(answer.messages)}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  async function subscribeMany(answer: UpgradeAnswer, n: number, prefix: string): Promise<void> {
    for (let i = 0; i < n; i++) {
      const reply = await ask(answer, { type: 'subscribe', id: `${prefix}${i}`, object: 'project' });
      expect(reply.type, JSON.stringify(reply)).to.equal('ack');
    }
  }

  it(`refuses subscription ${DEFAULTS.maxSubscriptionsPerConnection + 1} on one connection (limits.websocket.maxSubscriptionsPerConnection)`, async () => {
    await start();
    const c = await open(as('sub-conn'));
    await subscribeMany(c, DEFAULTS.maxSubscriptionsPerConnection, 's');
    const reply = await ask(c, { type: 'subscribe', id: 'over', object: 'project' });
    expect(reply).to.deep.include({ type: 'error', id: 'over', code: 'INVALID_REQUEST' });
    expect(reply.details).to.deep.equal({ limit: 'limits.websocket.maxSubscriptionsPerConnection', max: 100 });
    // The socket stays; an unsubscribe frees a place.
    expect(await ask(c, { type: 'unsubscribe', id: 's0' })).to.deep.equal({ type: 'ack', id: 's0' });
    expect((await ask(c, { type: 'subscribe', id: 'again', object: 'project' })).type).to.equal('ack');
  });

  it(`refuses subscription ${DEFAULTS.maxSubscriptionsPerUser + 1} of one user over its connections (limits.websocket.maxSubscriptionsPerUser)`, async () => {
    await start();
    const [a, b, c] = [await open(as('sub-user')), await open(as('sub-user')), await open(as('sub-user'))];
    await subscribeMany(a, 100, 'a');
    await subscribeMany(b, 100, 'b');
    const reply = await ask(c, { type: 'subscribe', id: 'over', object: 'project' });
    expect(reply).to.deep.include({ type: 'error', code: 'INVALID_REQUEST' });
    expect(reply.details).to.deep.equal({ limit: 'limits.websocket.maxSubscriptionsPerUser', max: 200 });
    // Another user is not affected; closing a socket gives its subscriptions back.
    const other = await open(as('someone-else'));
    expect((await ask(other, { type: 'subscribe', id: 'x', object: 'project' })).type).to.equal('ack');
    a.ws!.close();
    await a.closed;
    expect((await ask(c, { type: 'subscribe', id: 'now', object: 'project' })).type).to.equal('ack');
  });

  it(`closes connection ${DEFAULTS.maxConnectionsPerUser + 1} of one user with its error and 1008 (limits.websocket.maxConnectionsPerUser)`, async () => {
    await start();
    for (let i = 0; i < DEFAULTS.maxConnectionsPerUser; i++) expect((await open(as('many'))).status).to.equal(101);
    const over = await open(as('many'));
    const { code } = await over.closed;
    expect(code).to.equal(1008);
    expect(over.messages[0]).to.deep.include({ type: 'error', code: 'RATE_LIMIT_EXCEEDED' });
    expect(over.messages[0].details).to.deep.equal({ limit: 'limits.websocket.maxConnectionsPerUser', max: 32 });
    // Over `auth` as well: the ack never comes, the error does.
    const late = await open();
    const reply = await ask(late, { type: 'auth', id: 'a', token: token({ id: 'many', roles: ['manager'] }) });
    expect(reply).to.deep.include({ type: 'error', code: 'RATE_LIMIT_EXCEEDED' });
    expect((await late.closed).code).to.equal(1008);
  });

  it(`refuses upgrade ${DEFAULTS.maxConnectionsPerIp + 1} from one address with 429 before the handshake (limits.websocket.maxConnectionsPerIp)`, async () => {
    await start();
    const answers = await Promise.all(Array.from({ length: DEFAULTS.maxConnectionsPerIp }, () => open()));
    expect(answers.every((a) => a.status === 101)).to.equal(true);
    const over = await open();
    expect(over.status).to.equal(429);
    expect(over.body.error).to.deep.include({ code: 'RATE_LIMIT_EXCEEDED' });
    expect(over.body.error.details).to.deep.equal({ limit: 'limits.websocket.maxConnectionsPerIp', max: 128 });
    answers[0].ws!.close();
    await answers[0].closed;
    expect((await open()).status).to.equal(101);
  });

  it('closes a socket that has not authenticated within limits.websocket.authTimeoutSeconds (4408)', async () => {
    await start({ limits: { websocket: { authTimeoutSeconds: 0.3 } } });
    const anonymous = await open();
    const authed = await open();
    expect((await ask(authed, { type: 'auth', id: '1', token: token({ id: 'quick', roles: ['manager'] }) })).type).to.equal('ack');
    const { code, reason } = await anonymous.closed;
    expect(code).to.equal(4408);
    expect(reason).to.match(/Authentication timeout/);
    await new Promise((r) => setTimeout(r, 400));
    expect(authed.ws!.readyState).to.equal(WebSocket.OPEN);
  });

  it('closes sockets flooding pings with 1008 while /health keeps answering', async () => {
    await start();
    const floods = await Promise.all(Array.from({ length: 10 }, () => open(as('flood'))));
    // The clients share the server's process: they send in batches, so that the probe measures the server, not them.
    const { health, result } = await probeHealthDuring(server.url, async () => {
      for (let batch = 0; batch < 10; batch++) {
        for (const f of floods) {
          if (f.ws!.readyState !== WebSocket.OPEN) continue;
          for (let i = 0; i < 500; i++) f.ws!.send('{"type":"ping"}');
          for (let i = 0; i < 50; i++) f.ws!.ping();
        }
        await new Promise((r) => setImmediate(r));
      }
      return Promise.all(floods.map((f) => f.closed));
    });
    const codes = result.map((c) => c.code);
    console.log(`      /health during a ping flood: ${health.count} probes, p99 ${health.p99.toFixed(1)} ms`);
    expect(health.failures).to.equal(0);
    expect(codes).to.deep.equal(Array(10).fill(1008));
    // Pongs were answered up to the burst, and not one past it.
    expect(floods[0].messages.filter((m) => m.type === 'pong').length).to.be.at.most(200);
  });

  it('closes a client that stopped reading (1013) instead of buffering for it; memory stays bounded', async () => {
    await start();
    const readers = await Promise.all(Array.from({ length: 4 }, (_, i) => open(as(`slow-${i}`))));
    for (const r of readers) await subscribeMany(r, 100, 's');
    for (const r of readers) r.ws!.pause();
    const registry = webSockets(server.kernel);
    const before = process.memoryUsage().rss;
    let peak = before;
    const repo = server.kernel.engine.repo('project', { user: { id: 'root', roles: ['admin'] } });
    const record = await repo.create({ name: `slow reader ${process.pid}`, settings: { pad: '' } });
    // Each update sends 100 × ~16 KB to each reader: unbounded, 60 updates would buffer ~400 MB.
    for (let i = 0; i < 60 && registry.open > 0; i++) {
      await repo.update(record.id as string, { settings: { pad: `${i}`.padEnd(16_000, 'x') } });
      await new Promise((r) => setImmediate(r));
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    for (let i = 0; i < 100 && registry.open > 0; i++) await new Promise((r) => setTimeout(r, 50));
    console.log(`      slow readers: rss ${Math.round(before / 2 ** 20)} → peak ${Math.round(peak / 2 ** 20)} MB`);
    expect(registry.open, 'every slow reader was closed by the server').to.equal(0);
    expect(peak - before).to.be.lessThan(200 * 2 ** 20);
    for (const r of readers) r.ws!.resume();
    await Promise.all(readers.map((r) => r.closed));
  });

  it('closes a socket whose reads fall more than 1000 change events behind (1013) instead of queueing them', async () => {
    await start();
    const c = await open(as('behind'));
    await subscribeMany(c, 1, 'b');
    const record = await server.kernel.engine.repo('project', { user: { id: 'root', roles: ['admin'] } }).create({ name: 'behind' });
    const pubsub = server.kernel.resolve('pubsub');
    // Published in one burst, faster than the socket re-reads each record as its subscriber.
    const change = { object: 'project', type: 'updated', id: record.id, record };
    await Promise.all(Array.from({ length: 1200 }, () => pubsub.publish(RECORD_CHANGED_CHANNEL, change)));
    const { code, reason } = await c.closed;
    expect(code).to.equal(1013);
    expect(reason).to.match(/more than 1000 change events waiting/);
  });

  it('refuses a message id longer than 128 characters without echoing it; the socket stays', async () => {
    await start();
    const c = await open(as('long-id'));
    c.ws!.send(JSON.stringify({ type: 'ping', id: 'x'.repeat(129) }));
    const deadline = Date.now() + 5000;
    while (!c.messages.some((m) => m.type === 'error') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(c.messages.find((m) => m.type === 'error')).to.deep.equal({
      type: 'error',
      code: 'INVALID_REQUEST',
      message: "'id' must be at most 128 characters",
    });
    expect(await ask(c, { type: 'ping', id: 'y'.repeat(128) })).to.deep.equal({ type: 'pong', id: 'y'.repeat(128) });
  });

  it('terminates a socket that stops answering pings (realtime heartbeatSeconds)', async () => {
    await start({}, { heartbeatSeconds: 0.2 });
    const silent = new WebSocket(url(), { headers: as('silent'), autoPong: false });
    sockets.push(silent);
    await new Promise((resolve) => silent.once('open', resolve));
    const answering = await open(as('answering'));
    const { code } = await closed(silent);
    expect(code).to.equal(1006);
    expect(answering.ws!.readyState).to.equal(WebSocket.OPEN);
  });
});
