/**
 * The action runner against real receivers: a local HTTP server (127.0.0.1, allow-listed), the
 * data engine of a started kernel, NATS JetStream and RabbitMQ (skipped with the reason printed
 * when down, unless REQUIRE_SERVICES names them).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createActionRunner, MAX_RECEIVERS, verifySignature, type ActionSettings } from '../../../plugins/events/actions';
import type {
  ActionRunner,
  Delivery,
  PublishAction,
  StoredEvent,
  WebhookAction,
  Workflow,
  WorkflowAction,
} from '../../../plugins/events/types';
import { startServer, type TestServer } from '../../helpers/server';
import { needService, probeNats, probeRabbitmq, SERVICE_URLS } from '../../helpers/services';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const event: StoredEvent = {
  position: 7,
  datasource: 'default',
  object: 'project',
  recordId: 'p1',
  operation: 'updated',
  fields: ['status'],
  record: { id: 'p1', name: 'Apollo', status: 'done', budget: 1200 },
  previous: { id: 'p1', name: 'Apollo', status: 'active', budget: 1200 },
  userId: 'carol',
  at: '2024-05-01T10:00:00.000Z',
};

function workflowWith(actions: WorkflowAction[], over: Partial<Workflow> = {}): Workflow {
  return {
    name: 'project_done',
    label: 'Project done',
    trigger: { kind: 'record', object: 'project', events: ['updated'] },
    actions,
    retry: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 100 },
    enabled: true,
    ...over,
  };
}

function deliveryFor(id = `default:7:project_done:0:${Math.random().toString(36).slice(2)}`): Delivery {
  const now = new Date().toISOString();
  return {
    id,
    workflow: 'project_done',
    action: 0,
    orderingKey: 'project_done:project:p1',
    sequence: 7000,
    status: 'claimed',
    attempts: 1,
    nextAt: now,
    payload: { event },
    createdAt: now,
    updatedAt: now,
  };
}

describe('events: actions', function () {
  this.timeout(30_000);
  let server: TestServer;
  let receiver: http.Server;
  let base: string;
  const received: Received[] = [];
  /** `stallBody`: the status and the start of the body at once, the rest never. */
  let answer: { status: number; body: string; delayMs?: number; stallBody?: boolean } = { status: 200, body: 'ok' };
  let runner: ActionRunner;
  const settings: ActionSettings = {
    webhooks: { timeoutMs: 2000, allowHosts: ['127.0.0.1'], maxBodyBytes: 4096 },
    brokers: {
      nats: { servers: SERVICE_URLS.nats!, stream: `OQL_TEST_${process.pid}` },
      amqp: { url: SERVICE_URLS.rabbitmq! },
    },
  };

  before(async () => {
    server = await startServer();
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const send = () => res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
        if (answer.stallBody) res.writeHead(answer.status, { 'content-type': 'text/plain' }).write(answer.body);
        else if (answer.delayMs) setTimeout(send, answer.delayMs);
        else send();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    runner = createActionRunner(server.kernel, settings);
  });
  after(async () => {
    await runner?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
    await server?.stop();
  });
  beforeEach(() => {
    received.length = 0;
    answer = { status: 200, body: 'ok' };
  });

  const run = (
    action: WorkflowAction,
    delivery = deliveryFor(),
    workflow = workflowWith([action]),
    signal = new AbortController().signal,
    by = runner,
  ) => by.run(action, { kernel: server.kernel, workflow, delivery, event: delivery.payload.event, signal });

  describe('webhook', () => {
    const hook = (over: Partial<WebhookAction> = {}): WebhookAction => ({
      type: 'webhook',
      url: `${base}/hooks/done?x=1`,
      method: 'POST',
      headers: { Authorization: 'Bearer abc' },
      secret: 'shh',
      timeoutMs: 2000,
      ...over,
    });

    it('sends the standard body with the standard headers and a signature the receiver verifies', async () => {
      const delivery = deliveryFor('default:7:project_done:0');
      await run(hook(), delivery);
      expect(received).to.have.length(1);
      const [req] = received;
      expect(req.method).to.equal('POST');
      expect(req.url).to.equal('/hooks/done?x=1');
      expect(req.headers).to.include({
        authorization: 'Bearer abc',
        'content-type': 'application/json',
        'idempotency-key': 'default:7:project_done:0',
        'x-objectql-delivery': 'default:7:project_done:0',
      });
      const ts = Number(req.headers['x-objectql-timestamp']);
      expect(Math.abs(ts - Date.now() / 1000)).to.be.below(10);
      expect(verifySignature('shh', req.headers['x-objectql-signature'] as string, String(ts), req.body)).to.equal(true);
      expect(verifySignature('wrong', req.headers['x-objectql-signature'] as string, String(ts), req.body)).to.equal(false);
      expect(JSON.parse(req.body)).to.deep.equal({
        id: 'default:7:project_done:0',
        workflow: 'project_done',
        object: 'project',
        operation: 'updated',
        position: 7,
        record: event.record,
        previous: event.previous,
        fields: ['status'],
        at: event.at,
      });
    });

    it('renders a body template; no signature without a secret', async () => {
      await run(
        hook({
          secret: undefined,
          method: 'PUT',
          body: { text: 'Project {{event.record.name}} is done', budget: '{{event.record.budget}}', d: '{{delivery.id}}' },
        }),
      );
      const [req] = received;
      expect(req.method).to.equal('PUT');
      expect(req.headers['x-objectql-signature']).to.equal(undefined);
      expect(JSON.parse(req.body)).to.deep.include({ text: 'Project Apollo is done', budget: 1200 });
    });

    it('a non-2xx answer throws naming the status and the start of the body', async () => {
      answer = { status: 503, body: 'down for maintenance ' + 'x'.repeat(1000) };
      await expectRejected(run(hook()), /^webhook answered 503: down for maintenance x+\.\.\.$/);
      answer = { status: 302, body: '' };
      await expectRejected(run(hook()), /^webhook answered 302$/);
    });

    it('reads a bounded part of a large answer', async () => {
      answer = { status: 500, body: 'y'.repeat(5_000_000) };
      const err = await expectRejected(run(hook()), /^webhook answered 500: y+\.\.\.$/);
      expect(err.message.length).to.be.below(300);
    });

    it('times out', async () => {
      answer = { status: 200, body: 'late', delayMs: 1500 };
      await expectRejected(run(hook({ timeoutMs: 200 })), /^webhook timed out after 200 ms/);
    });

    it('times out on an answer whose body never ends, though its status was 2xx', async () => {
      answer = { status: 200, body: 'the start', stallBody: true };
      await expectRejected(run(hook({ timeoutMs: 200 })), /^webhook timed out after 200 ms/);
    });

    it('stops when the dispatcher aborts', async () => {
      answer = { status: 200, body: 'late', delayMs: 1500 };
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await expectRejected(run(hook(), deliveryFor(), undefined, controller.signal), /cancelled/);
    });

    it('refuses a loopback receiver that is not allow-listed, before connecting', async () => {
      const strict = createActionRunner(server.kernel, { ...settings, webhooks: { ...settings.webhooks, allowHosts: [] } });
      const action = hook();
      const delivery = deliveryFor();
      await expectRejected(
        strict.run(action, {
          kernel: server.kernel,
          workflow: workflowWith([action]),
          delivery,
          event,
          signal: new AbortController().signal,
        }),
        /refused: host '127\.0\.0\.1' resolves to 127\.0\.0\.1/,
      );
      const local = hook({ url: base.replace('127.0.0.1', 'localhost') });
      await expectRejected(
        strict.run(local, {
          kernel: server.kernel,
          workflow: workflowWith([local]),
          delivery,
          event,
          signal: new AbortController().signal,
        }),
        /refused: host 'localhost' resolves to/,
      );
      expect(received).to.have.length(0);
      await strict.close();
    });

    it('a body above the limit is refused', async () => {
      await expectRejected(run(hook({ body: 'z'.repeat(5000) })), /above the limit of 4096/);
    });

    it('keeps its connection to a receiver between deliveries', async () => {
      let connections = 0;
      const count = () => connections++;
      receiver.on('connection', count);
      try {
        for (let i = 0; i < 3; i++) await run(hook());
      } finally {
        receiver.off('connection', count);
      }
      expect(received).to.have.length(3);
      expect(connections).to.be.at.most(1);
    });

    it("connects to the address the guard checked, with the URL's host name as Host", async () => {
      const port = (receiver.address() as AddressInfo).port;
      const named = createActionRunner(
        server.kernel,
        { ...settings, webhooks: { ...settings.webhooks, allowHosts: ['hooks.test'] } },
        { lookup: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]) },
      );
      const action = hook({ url: `http://hooks.test:${port}/named` });
      const delivery = deliveryFor();
      try {
        await named.run(action, {
          kernel: server.kernel,
          workflow: workflowWith([action]),
          delivery,
          event,
          signal: new AbortController().signal,
        });
      } finally {
        await named.close();
      }
      expect(received.map((r) => [r.url, r.headers.host])).to.deep.equal([['/named', `hooks.test:${port}`]]);
    });

    it(`keeps the connections of ${MAX_RECEIVERS} receivers at most: the least recently used is closed`, async () => {
      const closed: number[] = [];
      const receivers = await Promise.all(
        Array.from({ length: MAX_RECEIVERS + 1 }, async (_, i) => {
          const r = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
          r.on('connection', (socket) => socket.on('close', () => closed.push(i)));
          await new Promise<void>((resolve) => r.listen(0, '127.0.0.1', resolve));
          return r;
        }),
      );
      const own = createActionRunner(server.kernel, settings);
      try {
        for (const r of receivers)
          await run(hook({ url: `http://127.0.0.1:${(r.address() as AddressInfo).port}/` }), deliveryFor(), undefined, undefined, own);
        for (let i = 0; i < 50 && !closed.includes(0); i++) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(closed).to.deep.equal([0]);
      } finally {
        await own.close();
        for (const r of receivers) r.closeAllConnections();
        await Promise.all(receivers.map((r) => new Promise((resolve) => r.close(resolve))));
      }
    });

    it('a receiver that is not listening: the error names the host', async () => {
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      await expectRejected(
        run(hook({ url: `http://127.0.0.1:${port}/` })),
        new RegExp(`^webhook to 127\\.0\\.0\\.1:${port} failed: ECONNREFUSED`),
      );
    });
  });

  describe('update and create, through the engine as run_as', () => {
    it('create makes a record with rendered data; update changes the triggering record', async () => {
      const admin = { id: 'root', roles: ['admin'] };
      const repo = server.kernel.engine.repo('project', { user: admin });
      const created = await repo.create({ name: `Events ${Date.now()}`, status: 'planning', budget: 10 });
      const ev: StoredEvent = { ...event, recordId: String(created.id), record: { ...created } };
      const delivery = { ...deliveryFor(), payload: { event: ev } };
      const workflow = workflowWith([], { runAs: admin });

      await runner.run(
        { type: 'update', data: { budget: 20, owner: 'was {{event.record.budget}}' } },
        { kernel: server.kernel, workflow, delivery, event: ev, signal: new AbortController().signal },
      );
      const after = await repo.findOne(String(created.id));
      expect(after).to.deep.include({ budget: 20, owner: 'was 10' });

      await runner.run(
        { type: 'create', object: 'task', data: { title: 'Follow up {{event.record.name}}', project: '{{event.recordId}}' } },
        { kernel: server.kernel, workflow, delivery, event: ev, signal: new AbortController().signal },
      );
      const tasks = await server.kernel.engine.repo('task', { user: admin }).find({ filters: [['project', '=', String(created.id)]] });
      expect(tasks.items.map((t) => t.title)).to.deep.equal([`Follow up ${String(created.name)}`]);
    });

    it('validation and permissions apply: the write is refused with the engine error', async () => {
      const alice = { id: 'alice', roles: ['member'] };
      const workflow = workflowWith([], { runAs: alice });
      const ctx = { kernel: server.kernel, workflow, delivery: deliveryFor(), event, signal: new AbortController().signal };
      await expectRejected(
        runner.run({ type: 'update', id: 'no-such-project', data: { budget: 1 } }, ctx),
        /^Not allowed to edit field 'budget'/,
      );
      const admin = workflowWith([], { runAs: { id: 'root', roles: ['admin'] } });
      await expectRejected(
        runner.run({ type: 'create', object: 'project', data: { name: 'x', budget: -5 } }, { ...ctx, workflow: admin }),
        /budget|valid/i,
      );
    });
  });

  describe('publish', () => {
    it('NATS JetStream: the message reaches a consumer, with the delivery id as Nats-Msg-Id', async function () {
      await needService(this, 'nats', probeNats);
      const { connect } = await import('@nats-io/transport-node');
      const { jetstream, jetstreamManager } = await import('@nats-io/jetstream');
      const stream = settings.brokers.nats!.stream!;
      const subject = `objectql.test.${process.pid}.done`;
      const nc = await connect({ servers: SERVICE_URLS.nats });
      const jsm = await jetstreamManager(nc);
      try {
        await jsm.streams.delete(stream).catch(() => false);
        const action: PublishAction = { type: 'publish', broker: 'nats', subject };
        const delivery = deliveryFor('default:7:project_done:1');
        await run(action, delivery);
        await run(action, delivery); // a retry: de-duplicated by the stream
        await run({ ...action, body: { name: '{{event.record.name}}' } }, deliveryFor('default:8:project_done:1'));
        const info = await jsm.streams.info(stream);
        expect(info.config.subjects).to.include(subject);
        expect(info.state.messages).to.equal(2);

        const consumer = await jetstream(nc).consumers.get(stream);
        const first = await consumer.next({ expires: 5000 });
        expect(first).to.not.equal(null);
        expect(first!.subject).to.equal(subject);
        expect(first!.headers?.get('Nats-Msg-Id')).to.equal('default:7:project_done:1');
        expect(first!.json()).to.deep.include({ id: 'default:7:project_done:1', object: 'project', operation: 'updated', position: 7 });
        const second = await consumer.next({ expires: 5000 });
        expect(second!.json()).to.deep.equal({ name: 'Apollo' });
      } finally {
        await jsm.streams.delete(stream).catch(() => false);
        await nc.close();
      }
    });

    it('NATS down: the action throws', async () => {
      const down = createActionRunner(server.kernel, { ...settings, brokers: { nats: { servers: 'nats://127.0.0.1:1' } } });
      const action: PublishAction = { type: 'publish', broker: 'nats', subject: 'x.y' };
      await expectRejected(
        down.run(action, {
          kernel: server.kernel,
          workflow: workflowWith([action]),
          delivery: deliveryFor(),
          event,
          signal: new AbortController().signal,
        }),
        /^NATS unreachable at nats:\/\/127\.0\.0\.1:1/,
      );
      await down.close();
    });

    it('RabbitMQ: a persistent message in the queue, with the delivery id as message id', async function () {
      await needService(this, 'rabbitmq', probeRabbitmq);
      const amqp = await import('amqplib');
      const queue = `objectql-test-${process.pid}`;
      const conn = await amqp.connect(SERVICE_URLS.rabbitmq!);
      const ch = await conn.createChannel();
      try {
        await ch.deleteQueue(queue);
        await run({ type: 'publish', broker: 'amqp', exchange: '', subject: queue }, deliveryFor('default:7:project_done:2'));
        const msg = await ch.get(queue, { noAck: true });
        expect(msg).to.not.equal(false);
        if (msg === false) return;
        expect(msg.properties).to.deep.include({ messageId: 'default:7:project_done:2', deliveryMode: 2, contentType: 'application/json' });
        expect(JSON.parse(msg.content.toString())).to.deep.include({
          id: 'default:7:project_done:2',
          workflow: 'project_done',
          position: 7,
        });
        // A missing exchange fails the action; the next publish opens a new channel.
        await expectRejected(
          run({ type: 'publish', broker: 'amqp', exchange: `no-such-exchange-${process.pid}`, subject: 'k' }),
          /RabbitMQ publish to exchange/,
        );
        await run({ type: 'publish', broker: 'amqp', exchange: '', subject: queue, body: '{{event.record.name}}' });
        const again = await ch.get(queue, { noAck: true });
        expect(again && JSON.parse(again.content.toString())).to.equal('Apollo');
      } finally {
        await ch.deleteQueue(queue).catch(() => {});
        await conn.close();
      }
    });

    it('RabbitMQ down: the action throws', async () => {
      const down = createActionRunner(server.kernel, { ...settings, brokers: { amqp: { url: 'amqp://guest:secret@127.0.0.1:1' } } });
      const action: PublishAction = { type: 'publish', broker: 'amqp', subject: 'q' };
      const err = await expectRejected(
        down.run(action, {
          kernel: server.kernel,
          workflow: workflowWith([action]),
          delivery: deliveryFor(),
          event,
          signal: new AbortController().signal,
        }),
        /^RabbitMQ unreachable at amqp:\/\/guest:\*\*\*@127\.0\.0\.1:1/,
      );
      expect(err.message).not.to.include('secret');
      await down.close();
    });
  });
});

async function expectRejected(promise: Promise<unknown>, pattern: RegExp): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    expect((err as Error).message).to.match(pattern);
    return err as Error;
  }
  return expect.fail(`expected a rejection matching ${String(pattern)}`);
}
