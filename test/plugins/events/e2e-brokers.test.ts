/**
 * The events pipeline end to end to real brokers: writes over REST → the outbox → the dispatcher →
 * a `publish` action → a NATS JetStream stream / a durable RabbitMQ queue, read back by the test
 * with the official clients (@nats-io/jetstream, amqplib): one message per event, its message id
 * the delivery id (`Nats-Msg-Id`, AMQP `message-id`), the standard body. One server (SQLite) per
 * broker; skipped with the reason printed when the broker is down, unless REQUIRE_SERVICES names it.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { openNamespace, type Namespace } from '../../drivers/sql/helpers';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';
import { needService, probeNats, probeRabbitmq, SERVICE_URLS } from '../../helpers/services';
import { FIXTURES, until } from './e2e-helpers';

const MANAGER = { id: 'mia', roles: ['manager'] };
/** The subject (NATS) and queue (RabbitMQ) of the fixtures' workflows. */
const SUBJECT = 'objectql.e2e.item';
const STREAM = 'OBJECTQL_E2E';

interface Body {
  id: string;
  workflow: string;
  object: string;
  operation: string;
  position: number;
  record: { id: string; title: string };
}

async function serverFor(ns: Namespace, folder: string, brokers: Record<string, unknown>): Promise<TestServer> {
  return startServer(
    {
      metadata: [join(FIXTURES, 'objects'), join(FIXTURES, folder)],
      datasources: { default: ns.config() },
      plugins: {
        rest: true,
        events: {
          dispatcher: { pollMs: 50, batch: 20, leaseSeconds: 5, concurrency: 4 },
          retry: { maxAttempts: 100, initialDelayMs: 20, maxDelayMs: 200 },
          brokers,
        },
      },
    },
    { identityFromHeader: true },
  );
}

/** Creates `n` items over REST; returns their ids and the positions of their events (change feed). */
async function createItems(s: TestServer, n: number, prefix: string): Promise<Map<string, number>> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await s.request('POST', `${s.kernel.http.routes.data}/item`, { title: `${prefix} ${i}` }, identityHeader(MANAGER));
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    ids.push(r.body.id as string);
  }
  const feed = await s.request('GET', '/api/events?after=0&limit=1000', undefined, identityHeader(MANAGER));
  expect(feed.status).to.equal(200);
  const positions = new Map<string, number>();
  for (const e of feed.body.events as Array<{ id: string; position: number }>) if (ids.includes(e.id)) positions.set(e.id, e.position);
  expect(positions.size).to.equal(n);
  return positions;
}

describe('events end to end: publish to a real NATS JetStream stream', function () {
  this.timeout(30_000);
  let ns: Namespace | undefined;
  let s: TestServer | undefined;

  before(async function () {
    await needService(this, 'nats', probeNats);
    await deleteStream();
    ns = await openNamespace('sqlite');
    s = await serverFor(ns, 'nats', { nats: { servers: SERVICE_URLS.nats!, stream: STREAM } });
  });
  after(async () => {
    await s?.stop();
    await ns?.drop();
    if (s) await deleteStream();
  });

  async function deleteStream(): Promise<void> {
    const { connect } = await import('@nats-io/transport-node');
    const { jetstreamManager } = await import('@nats-io/jetstream');
    const nc = await connect({ servers: SERVICE_URLS.nats, timeout: 2000 });
    try {
      await (await jetstreamManager(nc)).streams.delete(STREAM).catch(() => false);
    } finally {
      await nc.close();
    }
  }

  it('one message per created item, Nats-Msg-Id = the delivery id', async () => {
    const positions = await createItems(s!, 10, 'to NATS');
    const expected = new Map([...positions].map(([id, p]) => [`default:${p}:item_nats:0`, id]));
    const { connect } = await import('@nats-io/transport-node');
    const { jetstream, jetstreamManager } = await import('@nats-io/jetstream');
    const nc = await connect({ servers: SERVICE_URLS.nats, timeout: 2000 });
    try {
      const jsm = await jetstreamManager(nc);
      // The plugin creates the stream at its first publish.
      await until('10 messages in the stream', async () => {
        const info = await jsm.streams.info(STREAM).catch(() => undefined);
        return info && info.state.messages >= 10;
      });
      const consumer = await jetstream(nc).consumers.get(STREAM);
      const got: Array<{ msgId: string | undefined; subject: string; body: Body }> = [];
      for (let i = 0; i < 10; i++) {
        const m = await consumer.next({ expires: 2000 });
        expect(m, `message ${i + 1}`).to.not.equal(null);
        got.push({ msgId: m!.headers?.get('Nats-Msg-Id'), subject: m!.subject, body: m!.json<Body>() });
      }
      expect((await jsm.streams.info(STREAM)).state.messages, 'no other message').to.equal(10);
      expect(new Set(got.map((g) => g.msgId))).to.deep.equal(new Set(expected.keys()));
      for (const g of got) {
        expect(g.subject).to.equal(SUBJECT);
        expect(g.body).to.deep.include({ id: g.msgId, workflow: 'item_nats', object: 'item', operation: 'created' });
        expect(g.body.record.id).to.equal(expected.get(g.msgId!));
        expect(g.body.position).to.equal(positions.get(g.body.record.id));
      }
    } finally {
      await nc.close();
    }
  });
});

describe('events end to end: publish to a real RabbitMQ queue', function () {
  this.timeout(30_000);
  let ns: Namespace | undefined;
  let s: TestServer | undefined;

  before(async function () {
    await needService(this, 'rabbitmq', probeRabbitmq);
    await deleteQueue();
    ns = await openNamespace('sqlite');
    s = await serverFor(ns, 'amqp', { amqp: { url: SERVICE_URLS.rabbitmq! } });
  });
  after(async () => {
    await s?.stop();
    await ns?.drop();
    if (s) await deleteQueue();
  });

  async function deleteQueue(): Promise<void> {
    const amqp = await import('amqplib');
    const conn = await amqp.connect(SERVICE_URLS.rabbitmq!);
    try {
      await (await conn.createChannel()).deleteQueue(SUBJECT);
    } finally {
      await conn.close();
    }
  }

  it('one persistent message per created item, message-id = the delivery id', async () => {
    const positions = await createItems(s!, 10, 'to RabbitMQ');
    const expected = new Map([...positions].map(([id, p]) => [`default:${p}:item_amqp:0`, id]));
    const amqp = await import('amqplib');
    const conn = await amqp.connect(SERVICE_URLS.rabbitmq!);
    try {
      const ch = await conn.createChannel();
      await until('10 messages in the queue', async () => {
        const q = await ch.checkQueue(SUBJECT).catch(() => undefined);
        return q && q.messageCount >= 10;
      });
      const got: Array<{ messageId: string; body: Body }> = [];
      for (;;) {
        const msg = await ch.get(SUBJECT, { noAck: true });
        if (msg === false) break;
        expect(msg.properties).to.deep.include({ deliveryMode: 2, contentType: 'application/json' });
        got.push({ messageId: msg.properties.messageId as string, body: JSON.parse(msg.content.toString()) as Body });
      }
      expect(got).to.have.length(10);
      expect(new Set(got.map((g) => g.messageId))).to.deep.equal(new Set(expected.keys()));
      for (const g of got) {
        expect(g.body).to.deep.include({ id: g.messageId, workflow: 'item_amqp', object: 'item', operation: 'created' });
        expect(g.body.record.id).to.equal(expected.get(g.messageId));
        expect(g.body.position).to.equal(positions.get(g.body.record.id));
      }
    } finally {
      await conn.close();
    }
  });
});
