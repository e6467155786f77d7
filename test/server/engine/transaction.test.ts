/**
 * engine.transaction(): one unit of work over several writes, on the memory driver, SQLite (a file
 * and ':memory:') and PostgreSQL (skipped with a reason when unreachable).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatasourceConfig, RecordChange, Repository, RequestContext } from '../../../kernel';
import { objectqlRejection, rejection } from '../../helpers/rejection';
import { startServer, type TestServer } from '../../helpers/server';
import { openNamespace, requireDialect, type Namespace } from '../../drivers/sql/helpers';

const CTX: RequestContext = { user: { id: 'u1', roles: ['member'] } };

function writeMetadata(dir: string): void {
  writeFileSync(join(dir, 'note.object.yml'), 'fields:\n  title: {type: text, required: true}\n  n: {type: number}\n');
  writeFileSync(
    join(dir, 'tag.object.yml'),
    'fields:\n  label: {type: text, required: true}\n  note: {type: lookup, reference_to: note}\n',
  );
  // On a second datasource (always the memory driver).
  writeFileSync(join(dir, 'log.object.yml'), 'datasource: side\nfields:\n  text: {type: text}\n');
}

interface Setup {
  label: string;
  /** The default datasource's config, or undefined to skip (the service is unreachable). */
  prepare(ctx: Mocha.Context, dir: string): DatasourceConfig | Promise<DatasourceConfig>;
  cleanup?(): Promise<void>;
}

let pg: Namespace | undefined;
const SETUPS: Setup[] = [
  { label: 'memory', prepare: () => ({ driver: 'memory' }) },
  {
    label: 'SQLite file',
    prepare: (_ctx, dir) => ({ driver: 'sql', client: 'better-sqlite3', connection: { filename: join(dir, 'app.sqlite') } }),
  },
  { label: "SQLite ':memory:'", prepare: () => ({ driver: 'sql', client: 'better-sqlite3', connection: { filename: ':memory:' } }) },
  {
    label: 'PostgreSQL',
    async prepare(ctx) {
      await requireDialect(ctx, 'postgres');
      pg = await openNamespace('postgres');
      return pg.config();
    },
    async cleanup() {
      await pg?.drop();
      pg = undefined;
    },
  },
];

for (const setup of SETUPS) {
  describe(`engine.transaction (${setup.label})`, function () {
    let dir: string;
    let s: TestServer;
    let changes: RecordChange[] = [];
    /** Set by a test while its transaction's function runs: no change may be announced then. */
    let inside = false;
    let announcedInside = 0;

    before(async function () {
      dir = mkdtempSync(join(tmpdir(), 'objectql-tx-'));
      writeMetadata(dir);
      const main = await setup.prepare(this, dir);
      s = await startServer({ metadata: [dir], datasources: { default: main, side: { driver: 'memory' } } });
      s.kernel.hooks.recordChanged.tapPromise('test', (change) => {
        if (inside) announcedInside += 1;
        changes.push(change);
        return Promise.resolve();
      });
      // A note titled 'hooked …' gets a tag (same datasource) and a log line (the other one).
      s.kernel.hooks.afterCreate.for('note').tapPromise('test', async (ctx) => {
        const title = String(ctx.data?.title);
        if (!title.startsWith('hooked')) return;
        await ctx.api.repo('tag').create({ label: `for ${title}`, note: ctx.id });
        await ctx.api.repo('log').create({ text: `created ${title}` });
      });
      // A tag labelled 'nested …' opens a transaction of its own from its hook: it joins.
      s.kernel.hooks.beforeCreate.for('tag').tapPromise('test', async (ctx) => {
        const label = String(ctx.data?.label);
        if (!label.startsWith('nested')) return;
        await s.kernel.engine.transaction(ctx.request, (api) => api.repo('log').create({ text: `nested ${label}` }));
      });
    });
    after(async () => {
      await s?.stop();
      await setup.cleanup?.();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(async () => {
      for (const object of ['tag', 'note', 'log']) await s.kernel.engine.repo(object, { system: true }).deleteMany({});
      changes = [];
      inside = false;
      announcedInside = 0;
    });

    const engine = () => s.kernel.engine;
    const titles = async (object = 'note', field = 'title') =>
      (
        await engine()
          .repo(object, CTX)
          .find({ fields: [field], sort: field })
      ).items.map((r) => r[field]);
    /** What is committed, read behind the engine's back (no transaction). */
    const committedCount = (object: string) =>
      s.kernel
        .resolve('datasources')
        .get(object === 'log' ? 'side' : 'default')
        .count(object, undefined);

    it('commits every write together and announces them only after the commit', async () => {
      const result = await engine().transaction(CTX, async (api) => {
        inside = true;
        const a = await api.repo('note').create({ title: 'a', n: 1 });
        await api.repo('note').create({ title: 'b', n: 2 });
        await api.repo('tag').create({ label: 't', note: a.id });
        await api.repo('note').update(a.id as string, { n: 10 });
        expect(changes).to.deep.equal([]);
        inside = false;
        return a.id;
      });
      expect(result).to.be.a('string');
      expect(await titles()).to.deep.equal(['a', 'b']);
      expect(
        (
          await engine()
            .repo('note', CTX)
            .findOne(result as string)
        )?.n,
      ).to.equal(10);
      expect(await titles('tag', 'label')).to.deep.equal(['t']);
      expect(announcedInside).to.equal(0);
      expect(changes.map((c) => [c.object, c.type])).to.deep.equal([
        ['note', 'created'],
        ['note', 'created'],
        ['tag', 'created'],
        ['note', 'updated'],
      ]);
      expect(changes[0].user?.id).to.equal('u1');
    });

    it('rolls everything back when the function throws: nothing stored, nothing announced, the error rethrown', async () => {
      const [kept] = (
        await engine()
          .repo('note', CTX)
          .createMany([{ title: 'kept' }])
      ).items;
      changes = [];
      const boom = new Error('boom');
      const err = await rejection(
        engine().transaction(CTX, async (api) => {
          await api.repo('note').create({ title: 'gone' });
          await api.repo('note').update(kept.id as string, { title: 'changed' });
          await api.repo('log').create({ text: 'gone too' });
          throw boom;
        }),
      );
      expect(err).to.equal(boom);
      expect(await titles()).to.deep.equal(['kept']);
      expect(await committedCount('log')).to.equal(0);
      expect(changes).to.deep.equal([]);
    });

    it("puts the hooks' writes (on both datasources) in the same unit", async () => {
      await rejection(
        engine().transaction(CTX, async (api) => {
          await api.repo('note').create({ title: 'hooked 1' });
          expect(await api.repo('tag').count()).to.equal(1);
          expect(await api.repo('log').count()).to.equal(1);
          throw new Error('undo');
        }),
      );
      expect(await committedCount('note')).to.equal(0);
      expect(await committedCount('tag')).to.equal(0);
      expect(await committedCount('log')).to.equal(0);

      await engine().transaction(CTX, (api) => api.repo('note').create({ title: 'hooked 2' }));
      expect(await titles('tag', 'label')).to.deep.equal(['for hooked 2']);
      expect(await titles('log', 'text')).to.deep.equal(['created hooked 2']);
      expect(changes.map((c) => c.object).sort()).to.deep.equal(['log', 'note', 'tag']);
    });

    it('a validation failure inside rolls back the writes made before it', async () => {
      const err = await objectqlRejection(
        engine().transaction(CTX, async (api) => {
          await api.repo('note').create({ title: 'first' });
          await api.repo('note').create({ n: 2 });
        }),
      );
      expect(err.code).to.equal('VALIDATION_ERROR');
      expect((err.details as { fields: Record<string, string> }).fields).to.have.property('title');
      expect(await committedCount('note')).to.equal(0);
      expect(changes).to.deep.equal([]);
    });

    it('a failed write makes the unit rollback-only, even when the function catches its error', async () => {
      const err = await objectqlRejection(
        engine().transaction(CTX, async (api) => {
          await api.repo('note').create({ title: 'first' });
          await api
            .repo('tag')
            .create({ label: 'orphan', note: 'no-such-note' })
            .catch(() => undefined);
          await api.repo('note').create({ title: 'after' });
          return 'done';
        }),
      );
      expect(err.code).to.equal('VALIDATION_ERROR');
      expect(err.message).to.match(/note/);
      expect(await committedCount('note')).to.equal(0);
      expect(changes).to.deep.equal([]);
    });

    it('a request refused before it touches anything (malformed input) does not doom the unit', async () => {
      await engine().transaction(CTX, async (api) => {
        await api.repo('note').create({ title: 'first' });
        const bad = await objectqlRejection(api.repo('note').create(null as never));
        expect(bad.code).to.equal('INVALID_REQUEST');
      });
      expect(await titles()).to.deep.equal(['first']);
    });

    it('reads inside see the uncommitted writes; reads outside see them only after the commit', async () => {
      await engine().transaction(CTX, async (api) => {
        const a = await api.repo('note').create({ title: 'a', n: 1 });
        await api.repo('note').update(a.id as string, { n: 5 });
        expect((await api.repo('note').findOne(a.id as string))?.n).to.equal(5);
        expect(await api.repo('note').count()).to.equal(1);
        expect((await api.repo('note').find({ filters: [['n', '=', 5]] })).items.map((r) => r.title)).to.deep.equal(['a']);
        expect(await api.repo('note').aggregate({ aggregate: [{ func: 'sum', field: 'n', alias: 'total' }] })).to.deep.equal([
          { total: 5 },
        ]);
        // A reference check reads the uncommitted note too.
        await api.repo('tag').create({ label: 'x', note: a.id });
        // Behind the engine's back (another connection on SQL): nothing yet.
        expect(await committedCount('note')).to.equal(0);
      });
      expect(await committedCount('note')).to.equal(1);
      expect(await committedCount('tag')).to.equal(1);
    });

    it('engine.repo() and engine.transaction() called inside join the unit (no deadlock on one SQLite file)', async () => {
      await rejection(
        engine().transaction(CTX, async (api) => {
          await api.repo('note').create({ title: 'outer' });
          // Through the engine itself, as another caller: same unit, sees the outer write.
          const direct = engine().repo('note', { system: true });
          expect(await direct.count()).to.equal(1);
          await direct.create({ title: 'direct' });
          await engine().transaction(CTX, async (inner) => {
            await inner.repo('note').create({ title: 'inner' });
            expect(await inner.repo('note').count()).to.equal(3);
          });
          // A hook that opens a transaction of its own joins as well.
          await api.repo('tag').create({ label: 'nested 1' });
          expect(await api.repo('log').count()).to.equal(1);
          throw new Error('undo all');
        }),
      );
      expect(await committedCount('note')).to.equal(0);
      expect(await committedCount('tag')).to.equal(0);
      expect(await committedCount('log')).to.equal(0);
      expect(changes).to.deep.equal([]);
    });

    it('a nested transaction that fails dooms the outer one, even when its error is caught', async () => {
      const boom = new Error('inner failure');
      const err = await rejection(
        engine().transaction(CTX, async (api) => {
          await api.repo('note').create({ title: 'outer' });
          await engine()
            .transaction(CTX, () => Promise.reject(boom))
            .catch(() => undefined);
        }),
      );
      expect(err).to.equal(boom);
      expect(await committedCount('note')).to.equal(0);
    });

    it('deletes and cascades inside, undone on rollback', async () => {
      const { items } = await engine()
        .repo('note', CTX)
        .createMany([{ title: 'x' }, { title: 'y' }]);
      await rejection(
        engine().transaction(CTX, async (api) => {
          await api.repo('note').delete(items[0].id as string);
          expect(await api.repo('note').count()).to.equal(1);
          expect(await api.repo('note').deleteMany({})).to.deep.equal({ count: 1 });
          throw new Error('undo');
        }),
      );
      expect(await titles()).to.deep.equal(['x', 'y']);
    });

    it('runs concurrent first uses of one datasource on one transaction, and concurrent transactions one after the other', async () => {
      // Not on PostgreSQL: its client deprecates concurrent queries on one connection (one transaction).
      const parallel = setup.label !== 'PostgreSQL';
      await engine().transaction(CTX, async (api) => {
        if (parallel)
          await Promise.all([
            api.repo('note').create({ title: 'p1' }),
            api.repo('note').create({ title: 'p2' }),
            api.repo('tag').create({ label: 'p3' }),
          ]);
        else for (const title of ['p1', 'p2']) await api.repo('note').create({ title });
      });
      const both = await Promise.all([
        engine().transaction(CTX, async (api) => (await api.repo('note').create({ title: 'c1' })).title),
        engine().transaction(CTX, async (api) => (await api.repo('note').create({ title: 'c2' })).title),
        engine()
          .repo('note', CTX)
          .create({ title: 'c3' })
          .then((r) => r.title),
      ]);
      expect(both).to.deep.equal(['c1', 'c2', 'c3']);
      expect(await titles()).to.deep.equal(['c1', 'c2', 'c3', 'p1', 'p2']);
    });

    it('a transaction with reads only commits nothing and announces nothing', async () => {
      expect(await engine().transaction(CTX, async (api) => api.repo('note').count())).to.equal(0);
      expect(changes).to.deep.equal([]);
    });

    it('a repository kept past the end cannot write into the finished transaction', async () => {
      let kept: Repository | undefined;
      await engine().transaction(CTX, async (api) => {
        kept = api.repo('note');
        await kept.create({ title: 'in' });
      });
      expect(await kept!.count()).to.equal(1);
      const err = await objectqlRejection(kept!.create({ title: 'late' }));
      expect(err.code).to.equal('DATABASE_ERROR');
      expect(await titles()).to.deep.equal(['in']);
    });

    describe('across two datasources (best-effort atomicity)', () => {
      /** Makes the side (memory) transaction fail at commit: a record it changed is changed outside it. */
      async function sideConflict(
        api: { repo(o: string): { update(id: string, d: Record<string, unknown>): Promise<unknown> } },
        id: string,
      ) {
        await api.repo('log').update(id, { text: 'inside' });
        await s.kernel.resolve('datasources').get('side').update('log', id, { text: 'outside' });
      }

      it('the last opened commits first: its failure rolls back the others', async () => {
        const log = await engine().repo('log', CTX).create({ text: 'start' });
        changes = [];
        const err = await objectqlRejection(
          engine().transaction(CTX, async (api) => {
            await api.repo('note').create({ title: 'main' });
            await sideConflict(api, log.id as string);
          }),
        );
        expect(err.code).to.equal('CONFLICT');
        expect(await committedCount('note')).to.equal(0);
        expect(changes).to.deep.equal([]);
      });

      it('when a later commit fails, the earlier one stays committed and is announced', async () => {
        const log = await engine().repo('log', CTX).create({ text: 'start' });
        changes = [];
        const err = await objectqlRejection(
          engine().transaction(CTX, async (api) => {
            await sideConflict(api, log.id as string);
            await api.repo('note').create({ title: 'main' });
          }),
        );
        expect(err.code).to.equal('CONFLICT');
        expect(await titles()).to.deep.equal(['main']);
        expect(changes.map((c) => [c.object, c.type])).to.deep.equal([['note', 'created']]);
      });
    });
  });
}
