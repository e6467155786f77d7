/**
 * `dispatcher.thread`: deliveries made and run in a worker thread of the server (delivery/thread.ts),
 * end to end on SQLite, PostgreSQL and MariaDB: a real server, a real receiver, writes over REST.
 * - every write delivered by the thread, once, in order per record (the main thread runs no
 *   dispatcher: nothing would arrive otherwise);
 * - an engine action the thread runs: its change reaches the main thread's pubsub subscribers;
 * - a dead delivery retried through the admin API (main thread) is run again by the thread;
 * - a thread that ends mid-delivery (fixtures/e2e/thread/probe.hook.js) is started again, and the
 *   delivery it held runs there once its lease expires;
 * - in-memory datasources (the memory driver, SQLite's :memory:) refused at start, naming the datasource.
 * The write lock SQLite's two threads share is test/drivers/sql/write-lock.test.ts.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RECORD_CHANGED_CHANNEL, type RecordChange } from '../../../kernel';
import { openNamespace, requireDialect, type DialectLabel, type Namespace } from '../../drivers/sql/helpers';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';
import { checkDeliveries, FIXTURES, hookId, Receiver, retryDelivery, SECRET, until } from './e2e-helpers';
import { ADMIN, MANAGER } from './outbox-helpers';

const EVENTS = {
  dispatcher: { thread: true, pollMs: 50, batch: 20, leaseSeconds: 2, concurrency: 4 },
  retry: { maxAttempts: 1000, initialDelayMs: 20, maxDelayMs: 200 },
  webhooks: { allowHosts: ['127.0.0.1'], timeoutMs: 2000 },
};

/** Sets environment variables for the workflow files (the thread inherits them) and puts them back. */
function withEnv(values: Record<string, string>): () => void {
  const saved = Object.keys(values).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, values);
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

for (const label of ['sqlite', 'postgres', 'mysql'] as DialectLabel[]) {
  describe(`events: the dispatch thread (${label})`, function () {
    this.timeout(60_000);
    let ns: Namespace;
    let receiver: Receiver;
    let s: TestServer;
    let restoreEnv: () => void;
    const logs: Array<{ msg?: string }> = [];
    const scratch = mkdtempSync(join(tmpdir(), 'objectql-thread-'));
    const marker = join(scratch, 'crashed');

    before(async function () {
      await requireDialect(this, label);
      ns = await openNamespace(label);
      receiver = await Receiver.start();
      restoreEnv = withEnv({
        E2E_RECEIVER_URL: receiver.url('/hook'),
        E2E_WEBHOOK_SECRET: SECRET,
        E2E_DEAD_URL: receiver.url('/dead'),
        E2E_CRASH_MARKER: marker,
      });
      s = await startServer(
        {
          metadata: [join(FIXTURES, 'objects'), join(FIXTURES, 'webhook'), join(FIXTURES, 'dead'), join(FIXTURES, 'thread')],
          datasources: { default: ns.config() },
          plugins: { rest: true, events: EVENTS },
          logLevel: 'error',
        },
        { identityFromHeader: true, logDestination: { write: (line: string) => logs.push(JSON.parse(line) as { msg?: string }) } },
      );
    });
    after(async () => {
      await s?.stop();
      await receiver?.down();
      await ns?.drop();
      restoreEnv?.();
      rmSync(scratch, { recursive: true, force: true });
    });

    const rest = (method: string, path: string, body?: unknown, who = MANAGER) =>
      s.request(method, `${s.kernel.http.routes.data}${path}`, body, identityHeader(who));

    it('delivers every write from the thread, once, in order per record', async () => {
      const ids = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const r = await rest('POST', '/item', { title: `thread ${i}`, step: 0 });
          expect(r.status, JSON.stringify(r.body)).to.equal(201);
          const id = r.body.id as string;
          expect((await rest('PATCH', `/item/${id}`, { step: 1 })).status).to.equal(200);
          return id;
        }),
      );
      const feed = await s.request('GET', '/api/events?after=0&limit=1000', undefined, identityHeader(MANAGER));
      const events = (feed.body.events as Array<{ position: number; object: string; id: string }>).filter(
        (e) => e.object === 'item' && ids.includes(e.id),
      );
      expect(events).to.have.length(20);
      const expected = new Set(events.map((e) => hookId(e.position)));
      await until('20 deliveries answered', () => [...expected].every((id) => receiver.delivered('/hook').has(id)));
      checkDeliveries(
        receiver.calls('/hook').filter((c) => expected.has(c.deliveryId)),
        expected,
      );
    });

    it("an engine action run by the thread: its change reaches the main thread's subscribers", async () => {
      const heard: RecordChange[] = [];
      const unsubscribe = await s.kernel.resolve('pubsub').subscribe(RECORD_CHANGED_CHANNEL, (m) => heard.push(m as RecordChange));
      try {
        const r = await rest('POST', '/ticket', { title: 'printer' });
        expect(r.status, JSON.stringify(r.body)).to.equal(201);
        const id = r.body.id as string;
        const stamped = await until('the stamp announced on the main thread', () =>
          heard.find((c) => c.object === 'ticket' && c.type === 'updated' && c.id === id),
        );
        expect(stamped.record).to.include({ title: 'printer (stamped)' });
        expect((await rest('GET', `/ticket/${id}`)).body).to.include({ title: 'printer (stamped)' });
      } finally {
        await unsubscribe();
      }
    });

    it("the admin API's retry, on the main thread, reaches the thread's dispatcher", async () => {
      receiver.answers.set('/dead', () => 503);
      const r = await rest('POST', '/ticket', { title: 'dead letter' });
      expect(r.status).to.equal(201);
      const list = async () =>
        (await s.request('GET', '/api/events/deliveries?status=dead&workflow=ticket_dead', undefined, identityHeader(ADMIN))).body
          .items as Array<{ id: string; event: { id: string } }>;
      const dead = await until('the delivery dead after two tries', async () => (await list()).find((d) => d.event.id === r.body.id));
      receiver.answers.set('/dead', () => 200);
      const retried = await retryDelivery(s, dead.id);
      expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
      await until('the retried delivery answered', () => receiver.delivered('/dead').has(dead.id));
    });

    it('a thread that ends mid-delivery is started again, and runs the delivery it held once its lease expires', async () => {
      const r = await rest('POST', '/probe', { title: 'probe' });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      await until(
        'the probe stamped by the restarted thread',
        async () => (await rest('GET', `/probe/${r.body.id as string}`)).body.stamped === true,
        30_000,
      );
      expect(existsSync(marker), 'the first thread ended in the hook').to.equal(true);
      expect(logs.map((l) => l.msg)).to.include('events: the dispatch thread ended; starting it again');
    });
  });
}

describe('events: the dispatch thread refused on datasources in memory', () => {
  const refused = async (datasource: { driver: string; [option: string]: unknown }) =>
    startServer({ datasources: { default: datasource }, plugins: { rest: true, events: EVENTS } }).then(
      (server) => server.stop().then(() => expect.fail('started')),
      (e: Error) => e.message,
    );

  it("SQLite's :memory:, naming the datasource", async () => {
    expect(await refused({ driver: 'sql', client: 'better-sqlite3', connection: { filename: ':memory:' } })).to.include(
      "dispatcher.thread needs datasources that another connection can open; 'default' is in memory (SQLite's :memory:)",
    );
  });

  it('the memory driver, naming the datasource', async () => {
    expect(await refused({ driver: 'memory' })).to.include("'default' is in memory (the memory driver)");
  });
});
