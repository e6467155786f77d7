/**
 * The events plugin's outbox: every committed change through REST and JSON-RPC (bulk writes too)
 * becomes one event, numbered 1, 2, 3... per datasource in commit order, without gaps, also
 * under concurrent writes; a rolled-back write records nothing. On SQLite always, PostgreSQL and
 * MariaDB when reachable (a fresh schema / database per run). One server per dialect.
 */
import { expect } from 'chai';
import type { Datasource } from '../../../kernel';
import { readFeed } from '../../../plugins/events';
import type { DialectLabel, Namespace } from '../../drivers/sql/helpers';
import { openNamespace, requireDialect } from '../../drivers/sql/helpers';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';
import { MANAGER, notesApp } from './outbox-helpers';

for (const label of ['sqlite', 'postgres', 'mysql'] as DialectLabel[]) {
  describe(`events: outbox (${label})`, function () {
    this.timeout(30_000);
    let s: TestServer;
    let ns: Namespace | undefined;
    let app: ReturnType<typeof notesApp>;
    let ds: Datasource;

    before(async function () {
      await requireDialect(this, label);
      ns = await openNamespace(label);
      app = notesApp();
      s = await startServer(
        {
          metadata: [app.dir],
          datasources: { default: ns.config() },
          plugins: { rpc: true, rest: true, events: { dispatcher: { enabled: false } } },
          security: { allowBodyUser: true },
        },
        { identityFromHeader: true },
      );
      ds = s.kernel.resolve('datasources').get('default');
      // A hook that fails after the write: the write (and its event) must roll back.
      s.kernel.hooks.afterCreate.for('note').tap('test', (ctx) => {
        if ((ctx.data as { title?: string } | undefined)?.title === 'boom') throw new Error('boom after the write');
      });
    });
    after(async () => {
      await s?.stop();
      await ns?.drop();
      app?.remove();
    });

    const rest = (method: string, path: string, body?: unknown) =>
      s.request(method, `${s.kernel.http.routes.data}/note${path}`, body, identityHeader(MANAGER));
    const rpc = (op: string, args: unknown) => s.rpc({ op, object: 'note', args }, identityHeader(MANAGER));
    const all = async () => (await readFeed(ds, { after: 0, limit: 100_000 })).events;
    const lastPosition = async () => (await all()).at(-1)?.position ?? 0;

    it('numbers REST and JSON-RPC changes 1..n in commit order, bulk writes included', async () => {
      const created = await rest('POST', '', { title: 'one', owner: 'max', secret: 1 });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const id = created.body.id as string;
      expect((await rest('PATCH', `/${id}`, { title: 'one!' })).status).to.equal(200);
      const many = await rpc('createMany', [{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
      expect(many.status, JSON.stringify(many.body)).to.equal(200);
      const bulk = await s.request(
        'POST',
        `${s.kernel.http.routes.data}/note/bulk-update`,
        { filters: [['title', 'in', ['a', 'b']]], data: { status: 'done' } },
        identityHeader(MANAGER),
      );
      expect(bulk.status, JSON.stringify(bulk.body)).to.equal(200);
      expect((await rest('DELETE', `/${id}`)).status).to.equal(200);
      const removed = await rpc('deleteMany', { filters: [['title', '=', 'c']] });
      expect(removed.status, JSON.stringify(removed.body)).to.equal(200);

      const events = await all();
      expect(events.map((e) => e.position)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(events.map((e) => e.operation)).to.deep.equal([
        'created',
        'updated',
        'created',
        'created',
        'created',
        'updated',
        'updated',
        'deleted',
        'deleted',
      ]);
      const [create, update] = events;
      expect(create).to.include({ object: 'note', id, user: 'mia' });
      expect(create.fields).to.include.members(['title', 'owner', 'secret']);
      expect(create.record).to.include({ id, title: 'one', secret: 1 });
      expect(update.fields).to.deep.equal(['title']);
      expect(update.record).to.include({ title: 'one!' });
      expect(events[5].fields).to.deep.equal(['status']);
      expect(events[7]).to.include({ id, operation: 'deleted' });
      expect(events[7].fields).to.deep.equal([]);
      expect(events[7].record).to.include({ title: 'one!' });
      expect(Date.parse(create.at)).to.be.closeTo(Date.now(), 60_000);
    });

    it('records nothing for a write rolled back by a failing hook or a failing transaction', async () => {
      const before = await lastPosition();
      const failed = await rest('POST', '', { title: 'boom' });
      expect(failed.status).to.equal(500);
      let thrown: unknown;
      try {
        await s.kernel.engine.transaction({ user: MANAGER }, async (api) => {
          await api.repo('note').create({ title: 'in a transaction' });
          throw new Error('abort');
        });
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(Error);
      expect(await lastPosition()).to.equal(before);
      expect(
        await s.kernel.engine.repo('note', { system: true }).count({ filters: [['title', 'in', ['boom', 'in a transaction']]] }),
      ).to.equal(0);
      // The next committed write takes the next position: no gap.
      expect((await rest('POST', '', { title: 'after the failures' })).status).to.equal(201);
      expect(await lastPosition()).to.equal(before + 1);
    });

    it('hands out distinct, gap-free positions to 20 concurrent writes', async () => {
      const before = await lastPosition();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => rest('POST', '', { title: `parallel ${i}` })));
      for (const r of results) expect(r.status, JSON.stringify(r.body)).to.equal(201);
      const events = (await all()).filter((e) => e.position > before);
      expect(events.map((e) => e.position)).to.deep.equal(Array.from({ length: 20 }, (_, i) => before + 1 + i));
      expect(new Set(events.map((e) => e.id))).to.deep.equal(new Set(results.map((r) => r.body.id)));
    });

    it('tells listeners after commit the position of each change', async () => {
      const seen: Array<number | undefined> = [];
      s.kernel.hooks.recordChanged.tap('test-position', (change) => {
        if (change.object === 'note') seen.push(change.position);
      });
      const before = await lastPosition();
      expect((await rest('POST', '', { title: 'positioned' })).status).to.equal(201);
      expect(seen).to.deep.equal([before + 1]);
    });
  });
}
