/**
 * The events pipeline end to end, in one process (a real server on SQLite, a real HTTP receiver
 * on 127.0.0.1 allowed through webhooks.allowHosts): a write over REST or JSON-RPC → the outbox →
 * the dispatcher → the receiver.
 * - a receiver failing its first calls: every event delivered once, in order per record, retries
 *   of one delivery under one Idempotency-Key, signed;
 * - a receiver down during a burst of 50 writes, then up: nothing lost, order per record kept;
 * - a rolled-back write (a hook failing after it, a failing JSON-RPC batch): nothing delivered,
 *   nothing in the change feed;
 * - the dead-letter path through the admin API: dead after max_attempts with last_error, retried
 *   once the receiver recovers, then delivered.
 * The processes and brokers cases are e2e-processes.test.ts and e2e-brokers.test.ts.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import type { Datasource } from '../../../kernel';
import { verifySignature } from '../../../plugins/events/actions';
import { DELIVERY_TABLE, fromDeliveryRow } from '../../../plugins/events/delivery';
import { openNamespace, type Namespace } from '../../drivers/sql/helpers';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';
import { checkDeliveries, FIXTURES, hookId, Receiver, retryDelivery, SECRET, sleep, until, type Received } from './e2e-helpers';
import { ADMIN, MANAGER } from './outbox-helpers';

describe('events end to end: REST → outbox → dispatcher → webhook receiver (SQLite, one process)', function () {
  this.timeout(30_000);
  let ns: Namespace;
  let receiver: Receiver;
  let s: TestServer;
  let ds: Datasource;
  const saved = new Map<string, string | undefined>();

  const setEnv = (name: string, value: string) => {
    if (!saved.has(name)) saved.set(name, process.env[name]);
    process.env[name] = value;
  };

  before(async () => {
    ns = await openNamespace('sqlite');
    receiver = await Receiver.start();
    // The workflow files read these at start (${E2E_RECEIVER_URL}...).
    setEnv('E2E_RECEIVER_URL', receiver.url('/hook'));
    setEnv('E2E_WEBHOOK_SECRET', SECRET);
    setEnv('E2E_DEAD_URL', receiver.url('/dead'));
    s = await startServer(
      {
        metadata: [join(FIXTURES, 'objects'), join(FIXTURES, 'webhook'), join(FIXTURES, 'dead')],
        datasources: { default: ns.config() },
        plugins: {
          rest: true,
          rpc: true,
          events: {
            dispatcher: { pollMs: 50, batch: 20, leaseSeconds: 5, concurrency: 4 },
            retry: { maxAttempts: 1000, initialDelayMs: 20, maxDelayMs: 200 },
            webhooks: { allowHosts: ['127.0.0.1'], timeoutMs: 2000 },
          },
        },
      },
      { identityFromHeader: true },
    );
    ds = s.kernel.resolve('datasources').get('default');
  });
  after(async () => {
    await s?.stop();
    await receiver?.down();
    await ns?.drop();
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  afterEach(() => {
    receiver.answers.clear();
  });

  const rest = (method: string, path: string, body?: unknown) =>
    s.request(method, `${s.kernel.http.routes.data}/item${path}`, body, identityHeader(MANAGER));
  const create = async (title: string): Promise<string> => {
    const r = await rest('POST', '', { title, step: 0 });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.id as string;
  };
  const update = async (id: string, step: number) => {
    const r = await rest('PATCH', `/${id}`, { step });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
  };
  /** The change feed as the manager reads it over HTTP, after `after`. */
  const feed = async (after: number) => {
    const r = await s.request('GET', `/api/events?after=${after}&limit=1000`, undefined, identityHeader(MANAGER));
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body.events as Array<{ position: number; object: string; id: string; operation: string }>;
  };
  const lastPosition = async () => (await feed(0)).at(-1)?.position ?? 0;
  const deliveries = async () => (await ds.find(DELIVERY_TABLE, { sort: [{ field: 'sequence', dir: 'asc' }] })).map(fromDeliveryRow);
  const callsOf = (ids: Set<string>) => receiver.calls('/hook').filter((c) => ids.has(c.deliveryId));

  it('a receiver failing its first calls: every event delivered once, in order per record, one key per delivery, signed', async () => {
    const start = await lastPosition();
    let failuresLeft = 5;
    receiver.answers.set('/hook', () => (failuresLeft-- > 0 ? 500 : 200));
    // 3 records, each created then updated twice (sequentially per record, records side by side).
    await Promise.all(
      ['a', 'b', 'c'].map(async (t) => {
        const id = await create(`retry ${t}`);
        await update(id, 1);
        await update(id, 2);
      }),
    );
    const events = (await feed(start)).filter((e) => e.object === 'item');
    expect(events).to.have.length(9);
    const expected = new Set(events.map((e) => hookId(e.position)));
    await until('9 deliveries answered 2xx', () => [...expected].every((id) => receiver.delivered('/hook').has(id)));
    const calls = callsOf(expected);
    expect(
      calls.filter((c) => c.status >= 300),
      'the receiver failed 5 calls',
    ).to.have.length(5);
    checkDeliveries(calls, expected);
    for (const id of expected) {
      const tries = calls.filter((c) => c.deliveryId === id);
      // Exactly one success, and it is the last call of this delivery.
      expect(
        tries.filter((c) => c.status < 300),
        id,
      ).to.have.length(1);
      expect(tries.at(-1)!.status, id).to.be.below(300);
      for (const c of tries) {
        expect(c.idempotencyKey, id).to.equal(id);
        expect(c.body.id, id).to.equal(id);
        expect(verifySignature(SECRET, c.signature, c.timestamp, c.raw), `signature of ${id}`).to.equal(true);
        expect(verifySignature('another-secret', c.signature, c.timestamp, c.raw)).to.equal(false);
      }
      // The retries of a delivery carry the same event.
      expect(new Set(tries.map((c) => c.body.position)).size, id).to.equal(1);
    }
    // Per record: created, updated, updated, in position order.
    for (const e of events) expect(calls.find((c) => c.deliveryId === hookId(e.position))!.body).to.include({ operation: e.operation });
    await until('the 9 deliveries done in the table', async () =>
      (await deliveries()).filter((d) => expected.has(d.id)).every((d) => d.status === 'done'),
    );
    const attempts = (await deliveries()).filter((d) => expected.has(d.id)).reduce((n, d) => n + d.attempts, 0);
    expect(attempts, 'attempts recorded = calls made').to.equal(calls.length);
  });

  it('a receiver down during a burst of 50 writes, then up: nothing lost, order per record kept', async () => {
    const start = await lastPosition();
    await receiver.down();
    try {
      // 10 records × (create + 4 updates), records side by side.
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const id = await create(`burst ${i}`);
          for (let step = 1; step <= 4; step++) await update(id, step);
        }),
      );
      const events = (await feed(start)).filter((e) => e.object === 'item');
      expect(events).to.have.length(50);
      // The dispatcher has tried and failed meanwhile (connection refused).
      await until('a refused try recorded', async () =>
        (await deliveries()).some((d) => d.attempts > 0 && /ECONNREFUSED/.test(d.lastError ?? '')),
      );
    } finally {
      await receiver.up();
    }
    const events = (await feed(start)).filter((e) => e.object === 'item');
    const expected = new Set(events.map((e) => hookId(e.position)));
    await until('50 deliveries answered 2xx', () => [...expected].every((id) => receiver.delivered('/hook').has(id)), 20_000);
    checkDeliveries(callsOf(expected), expected);
    // Once each: the receiver was down, so every call it answered succeeded.
    expect(callsOf(expected)).to.have.length(50);
    await until('the 50 deliveries done', async () =>
      (await deliveries()).filter((d) => expected.has(d.id)).every((d) => d.status === 'done'),
    );
    // The fan-out has read the whole feed: the admin API shows no backlog left.
    const backlog = await s.request('GET', '/api/events/deliveries/backlog', undefined, identityHeader(ADMIN));
    expect(backlog.status, JSON.stringify(backlog.body)).to.equal(200);
    const last = await lastPosition();
    expect(backlog.body.datasources).to.deep.equal([{ datasource: 'default', feed: last, fanout: last, behind: 0 }]);
    expect((await s.request('GET', '/api/events/deliveries/backlog', undefined, identityHeader(MANAGER))).status).to.equal(403);
  });

  it('a rolled-back write delivers nothing and leaves nothing in the change feed', async () => {
    const start = await lastPosition();
    // A hook failing after the write (fixtures/e2e/objects/item.hook.js): rolled back.
    const failed = await rest('POST', '', { title: 'boom' });
    expect(failed.status, JSON.stringify(failed.body)).to.be.at.least(400);
    // A JSON-RPC batch whose second record fails after its write: bulk writes are per item (not
    // atomic), so the first commits and the second is rolled back alone.
    const batch = await s.rpc(
      { op: 'createMany', object: 'item', args: [{ title: 'batch ok' }, { title: 'boom' }] },
      identityHeader(MANAGER),
    );
    expect(batch.status, JSON.stringify(batch.body)).to.equal(200);
    expect(batch.body.errors).to.have.length(1);
    const batched = batch.body.items[0].id as string;
    // An engine transaction that throws after its write.
    let thrown: unknown;
    try {
      await s.kernel.engine.transaction({ user: MANAGER }, async (api) => {
        await api.repo('item').create({ title: 'in an aborted transaction' });
        throw new Error('abort');
      });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).to.be.instanceOf(Error);
    // A committed write afterwards: delivered; by then the failed ones would have been too.
    const ok = await create('after the rollbacks');
    const events = await feed(start);
    expect(events.map((e) => [e.id, e.operation])).to.deep.equal([
      [batched, 'created'],
      [ok, 'created'],
    ]);
    expect(
      events.map((e) => e.position),
      'no gap: the next positions',
    ).to.deep.equal([start + 1, start + 2]);
    await until('the committed writes delivered', () => [1, 2].every((i) => receiver.delivered('/hook').has(hookId(start + i))));
    // Three more polls: nothing else arrives.
    await sleep(150);
    const titles = receiver.received.filter((c) => c.path === '/hook' && c.body.position > start).map((c) => c.body.record.title);
    expect(titles).to.deep.equal(['batch ok', 'after the rollbacks']);
    expect((await deliveries()).filter((d) => d.sequence > start * 1000).map((d) => d.id)).to.deep.equal(
      [1, 2].map((i) => hookId(start + i)),
    );
    expect(
      await s.kernel.engine.repo('item', { system: true }).count({ filters: [['title', 'in', ['boom', 'in an aborted transaction']]] }),
    ).to.equal(0);
  });

  it('the dead-letter path over the admin API: dead after max_attempts with last_error, retried once the receiver recovers', async () => {
    let failing = true;
    receiver.answers.set('/dead', () => (failing ? 500 : 200));
    const r = await s.request('POST', `${s.kernel.http.routes.data}/ticket`, { title: 'doomed' }, identityHeader(MANAGER));
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    const ticket = r.body.id as string;
    const list = async (query: string) => {
      const res = await s.request('GET', `/api/events/deliveries?${query}`, undefined, identityHeader(ADMIN));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body.items as Array<{ id: string; status: string; attempts: number; last_error: string | null; event: { id: string } }>;
    };
    const dead = await until('the ticket delivery dead', async () =>
      (await list('status=dead&workflow=ticket_dead')).find((d) => d.event.id === ticket),
    );
    expect(dead).to.include({ status: 'dead', attempts: 2 });
    expect(dead.last_error).to.match(/webhook answered 500/);
    expect(receiver.calls('/dead').filter((c) => c.deliveryId === dead.id)).to.have.length(2);
    // Not retried on its own.
    await sleep(150);
    expect(receiver.calls('/dead').filter((c) => c.deliveryId === dead.id)).to.have.length(2);

    failing = false;
    const retried = await retryDelivery(s, dead.id);
    expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
    expect(retried.body).to.include({ id: dead.id, status: 'pending', attempts: 0 });
    await until('the retried delivery answered 2xx', () => receiver.delivered('/dead').has(dead.id), 5000);
    const done = await until('the retried delivery done', async () =>
      (await list('workflow=ticket_dead')).find((d) => d.id === dead.id && d.status === 'done'),
    );
    expect(done).to.include({ attempts: 1, last_error: null });
    const calls: Received[] = receiver.calls('/dead').filter((c) => c.deliveryId === dead.id);
    expect(calls.map((c) => c.status)).to.deep.equal([500, 500, 200]);
    expect(new Set(calls.map((c) => c.idempotencyKey))).to.deep.equal(new Set([dead.id]));
  });
});
