/**
 * Every op of the JSON-RPC table against a real server over HTTP: exact response shapes, paging
 * math, defaults, auto numbers, hooks (owner defaulting, task `done`, expense totals) and cascades.
 * Validation and failing hooks are in ops-validation.test.ts; malformed requests in bad-input.test.ts.
 */
import { expect } from 'chai';
import { startServer, USERS, type TestServer } from '../../helpers/server';
import { call, countOf, expectError, expectFieldError, ok, utcToday } from './ops-helpers';

const SEED_TASK_TITLES = [
  'Build the content API',
  'Design the new landing page',
  'Hand over the migrated ledger',
  'Kick-off meeting with Globex',
  'Plan the launch',
  'Survey sensor vendors',
];

describe('JSON-RPC ops end to end', () => {
  let s: TestServer;
  let seq = 0;

  before(async () => {
    s = await startServer({ security: { allowBodyUser: true } });
  });
  after(async () => {
    await s?.stop();
  });

  /** A fresh project owned by carol (unless `owner` is given); name unique per call. */
  async function newProject(extra: Record<string, unknown> = {}): Promise<any> {
    seq += 1;
    return ok(await call(s, 'create', 'project', { name: `Ops project ${seq}`, ...extra }));
  }
  async function newTask(project: string, extra: Record<string, unknown> = {}): Promise<any> {
    seq += 1;
    return ok(await call(s, 'create', 'task', { title: `Ops task ${seq}`, project, ...extra }));
  }

  describe('find', () => {
    const seedTasks = { filters: [['id', 'startswith', 'tsk-']], sort: [['title', 'asc']] };

    it('returns {items, meta} with the paging math of top and skip', async () => {
      const first = ok(await call(s, 'find', 'task', { ...seedTasks, top: 4 }));
      expect(Object.keys(first).sort()).to.deep.equal(['items', 'meta']);
      expect(first.meta).to.deep.equal({ total: 6, page: 1, size: 4, pages: 2, has_next: true });
      const second = ok(await call(s, 'find', 'task', { ...seedTasks, top: 4, skip: 4 }));
      expect(second.meta).to.deep.equal({ total: 6, page: 2, size: 4, pages: 2, has_next: false });
      expect([...first.items, ...second.items].map((t: any) => t.title)).to.deep.equal(SEED_TASK_TITLES);

      const middle = ok(await call(s, 'find', 'task', { ...seedTasks, top: 2, skip: 2 }));
      expect(middle.meta).to.deep.equal({ total: 6, page: 2, size: 2, pages: 3, has_next: true });
      expect(middle.items.map((t: any) => t.title)).to.deep.equal(SEED_TASK_TITLES.slice(2, 4));
    });

    it('defaults top to 100 and accepts limit as an alias of top', async () => {
      const all = ok(await call(s, 'find', 'task', seedTasks));
      expect(all.meta).to.deep.equal({ total: 6, page: 1, size: 100, pages: 1, has_next: false });
      const limited = ok(await call(s, 'find', 'task', { ...seedTasks, limit: 5 }));
      expect(limited.items).to.have.length(5);
      expect(limited.meta).to.include({ size: 5, pages: 2, has_next: true });
    });

    it('returns only the id and the fields asked for, with filters and sort applied', async () => {
      const res = ok(
        await call(s, 'find', 'project', {
          fields: ['name', 'budget'],
          filters: [['budget', '>=', 45000], 'and', ['id', 'startswith', 'prj-']],
          sort: '-budget',
        }),
      );
      expect(res.items).to.deep.equal([
        { id: 'prj-apollo', name: 'Apollo Website Relaunch', budget: 120000 },
        { id: 'prj-gemini', name: 'Gemini Plant Monitoring', budget: 45000 },
      ]);
    });

    it('scopes a member to own projects and hides actual_cost', async () => {
      const res = ok(await call(s, 'find', 'project', { filters: [['id', 'startswith', 'prj-']], sort: 'id' }, USERS.alice));
      expect(res.items.map((p: any) => p.id)).to.deep.equal(['prj-apollo', 'prj-mercury']);
      for (const p of res.items) {
        expect(p.owner).to.equal('alice');
        expect(p).to.have.property('budget');
        expect(p).not.to.have.property('actual_cost');
      }
    });

    it('inlines an expanded relation under the field name', async () => {
      const res = ok(
        await call(s, 'find', 'expense', {
          filters: [['id', '=', 'exp-mercury-licence']],
          fields: ['amount', 'project'],
          expand: { project: { fields: ['name'], expand: { account: { fields: ['name'] } } } },
        }),
      );
      expect(res.items).to.deep.equal([
        {
          id: 'exp-mercury-licence',
          amount: 750.25,
          project: { id: 'prj-mercury', name: 'Mercury Ledger Migration', account: { id: 'acc-initech', name: 'Initech' } },
        },
      ]);
    });
  });

  describe('findOne', () => {
    it('returns the record with @type by id', async () => {
      const res = ok(await call(s, 'findOne', 'account', 'acc-globex'));
      expect(res).to.include({
        id: 'acc-globex',
        name: 'Globex Industries',
        industry: 'manufacturing',
        annual_revenue: 48000000,
        '@type': 'account',
      });
    });

    it('returns the first match of {filters, fields}', async () => {
      const res = ok(await call(s, 'findOne', 'project', { filters: [['name', '=', 'Gemini Plant Monitoring']], fields: ['owner'] }));
      expect(res).to.deep.equal({ id: 'prj-gemini', owner: 'bob', '@type': 'project' });
    });

    it('is NOT_FOUND naming the record and the object when the id is missing or invisible', async () => {
      const missing = await call(s, 'findOne', 'project', 'prj-nowhere');
      expectError(missing, 404, 'NOT_FOUND', 'prj-nowhere', 'project');
      expect(missing.body.error.details).to.deep.equal({ object: 'project', id: 'prj-nowhere' });
      // bob's project exists but is outside alice's record scope
      expectError(await call(s, 'findOne', 'project', 'prj-gemini', USERS.alice), 404, 'NOT_FOUND', 'prj-gemini');
      expectError(await call(s, 'findOne', 'task', { filters: { title: 'No such task' } }), 404, 'NOT_FOUND', 'task');
    });
  });

  describe('create', () => {
    it('returns the stored record with @type, created_at, defaults and created_by = caller', async () => {
      const res = await newProject({ budget: 1000 });
      expect(res.id).to.be.a('string').and.not.equal('');
      expect(res).to.include({
        status: 'planning',
        priority: 'medium',
        owner: 'carol',
        created_by: 'carol',
        budget: 1000,
        '@type': 'project',
      });
      expect(new Date(res.created_at).toISOString()).to.equal(res.created_at);
      const stored = ok(await call(s, 'findOne', 'project', res.id));
      const { '@type': _t, ...record } = res;
      expect(stored).to.deep.equal({ ...record, '@type': 'project' });
    });

    it('numbers auto_number fields one after the other', async () => {
      const a = await newProject();
      const b = await newProject();
      expect(a.code).to.be.a('number').greaterThan(3); // the three seed projects hold 1..3
      expect(b.code).to.equal(a.code + 1);
    });

    it('keeps a given id; project.hook.ts makes a member the owner', async () => {
      expect(ok(await call(s, 'create', 'project', { id: 'prj-carol-own', name: 'Carol own' }, USERS.carol)).id).to.equal('prj-carol-own');
      const res = ok(await call(s, 'create', 'project', { name: 'Alice own' }, USERS.alice));
      expect(res).to.include({ owner: 'alice', created_by: 'alice', updated_by: 'alice' });
      expect(res).not.to.have.property('actual_cost');
      expect(ok(await call(s, 'findOne', 'project', res.id, USERS.alice)).owner).to.equal('alice');
    });

    it('refuses an id chosen by a member, who sees only its own projects: taken or free, the same answer', async () => {
      for (const id of ['prj-gemini', 'prj-nobody-has-this']) {
        const res = await call(s, 'create', 'project', { id, name: `Mine ${id}` }, USERS.alice);
        expect(expectFieldError(res, 'id')).to.include('may not read every record');
      }
    });
  });

  describe('update', () => {
    it('returns only the changed fields with id, updated_at and @type', async () => {
      const p = await newProject({ budget: 10 });
      const res = ok(await call(s, 'update', 'project', { id: p.id, data: { budget: 2500, priority: 'urgent' } }));
      expect(Object.keys(res).sort()).to.deep.equal(['@type', 'budget', 'id', 'priority', 'updated_at']);
      expect(res).to.include({ id: p.id, budget: 2500, priority: 'urgent', '@type': 'project' });
      expect(Date.parse(res.updated_at)).to.be.at.least(Date.parse(p.created_at));
      const stored = ok(await call(s, 'findOne', 'project', p.id));
      expect(stored).to.include({ budget: 2500, priority: 'urgent', name: p.name, updated_at: res.updated_at, updated_by: 'carol' });
    });

    it("includes fields a before hook changed (task.hook.js sets done with status 'done')", async () => {
      const p = await newProject();
      const t = await newTask(p.id);
      expect(t).to.include({ status: 'todo', done: false, assignee: 'carol' });
      const res = ok(await call(s, 'update', 'task', { id: t.id, data: { status: 'done' } }));
      expect(res).to.include({ id: t.id, status: 'done', done: true, '@type': 'task' });
      expect(ok(await call(s, 'findOne', 'task', t.id)).done).to.equal(true);
    });

    it('is NOT_FOUND naming a missing record', async () => {
      expectError(await call(s, 'update', 'project', { id: 'prj-ghost', data: { priority: 'low' } }), 404, 'NOT_FOUND', 'prj-ghost');
    });

    it('is FORBIDDEN when a member edits the read-only budget', async () => {
      const res = await call(s, 'update', 'project', { id: 'prj-apollo', data: { budget: 1 } }, USERS.alice);
      expectError(res, 403, 'FORBIDDEN', 'budget');
      expect(ok(await call(s, 'findOne', 'project', 'prj-apollo')).budget).to.equal(120000);
    });
  });

  describe('delete', () => {
    it('returns {id, deleted: true, @type} and the record is gone', async () => {
      const a = ok(await call(s, 'create', 'account', { name: 'Short-lived Ltd' }));
      const res = ok(await call(s, 'delete', 'account', { id: a.id }));
      expect(res).to.deep.equal({ id: a.id, deleted: true, '@type': 'account' });
      expectError(await call(s, 'findOne', 'account', a.id), 404, 'NOT_FOUND', a.id);
      expectError(await call(s, 'delete', 'account', { id: a.id }), 404, 'NOT_FOUND', a.id);
    });

    it('cascades to master_detail children: tasks and expenses of a deleted project', async () => {
      const p = await newProject();
      const other = await newProject();
      const t1 = await newTask(p.id);
      await newTask(p.id);
      const keep = await newTask(other.id);
      ok(await call(s, 'create', 'expense', { project: p.id, amount: 10 }));
      const milestone = ok(await call(s, 'create', 'milestone', { name: 'Kept', project: p.id }));
      expect(await countOf(s, 'task', { project: p.id })).to.equal(2);

      ok(await call(s, 'delete', 'project', { id: p.id }));
      expect(await countOf(s, 'task', { project: p.id })).to.equal(0);
      expect(await countOf(s, 'expense', { project: p.id })).to.equal(0);
      expectError(await call(s, 'findOne', 'task', t1.id), 404, 'NOT_FOUND', t1.id);
      expect(ok(await call(s, 'findOne', 'task', keep.id)).project).to.equal(other.id);
      // a plain lookup is not a master: the milestone stays
      expect(ok(await call(s, 'findOne', 'milestone', milestone.id)).name).to.equal('Kept');
    });
  });

  describe('count', () => {
    it('returns {count, @type} for array and map filters, scoped by permissions', async () => {
      expect(ok(await call(s, 'count', 'account', { filters: { industry: 'technology' } }))).to.deep.equal({
        count: 1,
        '@type': 'account',
      });
      expect(ok(await call(s, 'count', 'contact', { filters: [['account', '=', 'acc-acme']] }))).to.deep.equal({
        count: 2,
        '@type': 'contact',
      });
      const seed = { filters: [['id', 'startswith', 'tsk-']] };
      expect(ok(await call(s, 'count', 'task', seed)).count).to.equal(6);
      expect(ok(await call(s, 'count', 'task', seed, USERS.alice)).count).to.equal(3);
      expect(ok(await call(s, 'count', 'task', seed, USERS.bob)).count).to.equal(3);
    });
  });

  describe('action', () => {
    it('runs the record action close with its input and returns success and the record', async () => {
      const p = await newProject({ status: 'active', start_date: '2020-01-01' });
      const before = utcToday();
      const res = ok(await call(s, 'action', 'project', { action: 'close', id: p.id, input: { reason: 'Delivered early' } }));
      expect(res).to.include({ success: true, '@type': 'project' });
      expect(res.message).to.include('Delivered early').and.include(p.name);
      expect(res.record).to.include({ id: p.id, status: 'done' });
      expect([before, utcToday()]).to.include(res.record.end_date);
      expect(ok(await call(s, 'findOne', 'project', p.id)).status).to.equal('done');
    });

    it('refuses a missing required param with VALIDATION_ERROR naming it, before the handler runs', async () => {
      const p = await newProject({ status: 'active' });
      const res = await call(s, 'action', 'project', { action: 'close', id: p.id, input: {} });
      expect(expectFieldError(res, 'reason')).to.equal('is required');
      for (const extra of ['priority', 'toString']) {
        const unknown = await call(s, 'action', 'project', { action: 'close', id: p.id, input: { reason: 'x', [extra]: 'y' } });
        expect(expectFieldError(unknown, extra)).to.equal('unknown parameter');
      }
      expect(ok(await call(s, 'findOne', 'project', p.id)).status).to.equal('active');
    });

    it('passes the state machine: closing a planning project is refused', async () => {
      const p = await newProject();
      expectFieldError(await call(s, 'action', 'project', { action: 'close', id: p.id, input: { reason: 'x' } }), 'status');
      expect(ok(await call(s, 'findOne', 'project', p.id))).to.include({ status: 'planning', end_date: null });
    });

    it('is NOT_FOUND for an unknown action or record, INVALID_REQUEST for a record action without id', async () => {
      expectError(await call(s, 'action', 'project', { action: 'archive' }), 404, 'NOT_FOUND', 'archive', 'project');
      expectError(
        await call(s, 'action', 'project', { action: 'close', id: 'prj-ghost', input: { reason: 'x' } }),
        404,
        'NOT_FOUND',
        'prj-ghost',
      );
      expectError(await call(s, 'action', 'project', { action: 'close', input: { reason: 'x' } }), 400, 'INVALID_REQUEST', 'close', 'id');
    });

    it('runs the global action summary over the projects the caller may see', async () => {
      for (const user of [USERS.carol, USERS.alice]) {
        const { items } = ok(await call(s, 'find', 'project', { fields: ['status', 'budget'], top: 1000 }, user));
        const expected = new Map<string, { count: number; total_budget: number | null }>();
        for (const p of items) {
          const g = expected.get(p.status) ?? { count: 0, total_budget: null };
          g.count += 1;
          if (typeof p.budget === 'number') g.total_budget = (g.total_budget ?? 0) + p.budget;
          expected.set(p.status, g);
        }
        const res = ok(await call(s, 'action', 'project', { action: 'summary' }, user));
        expect(res).to.include({ success: true, '@type': 'project' });
        expect(res.groups).to.deep.equal([...expected.keys()].sort().map((status) => ({ status, ...expected.get(status) })));
      }
    });
  });

  describe('createMany', () => {
    it('creates each good item and lists a bad one in errors with its index', async () => {
      const before = await countOf(s, 'account');
      const res = ok(
        await call(s, 'createMany', 'account', [
          { name: 'Bulk One' },
          { name: 'Bulk Two', email: 'not-an-email' },
          { name: 'Bulk Three', industry: 'retail' },
        ]),
      );
      expect(res).to.include({ count: 2, '@type': 'account' });
      expect(res.items.map((a: any) => a.name)).to.deep.equal(['Bulk One', 'Bulk Three']);
      expect(res.items[1]).to.include({ industry: 'retail', active: true, created_by: 'carol' });
      expect(res.errors).to.have.length(1);
      expect(res.errors[0].index).to.equal(1);
      expect(res.errors[0].error).to.include({ code: 'VALIDATION_ERROR' });
      expect(res.errors[0].error.details.fields).to.have.property('email');
      expect(await countOf(s, 'account')).to.equal(before + 2);
      expect(await countOf(s, 'account', { name: 'Bulk Two' })).to.equal(0);
    });

    it('has no errors key when every item succeeds, and runs hooks per item', async () => {
      const p = await newProject();
      const res = ok(
        await call(s, 'createMany', 'task', [
          { title: 'Bulk A', project: p.id },
          { title: 'Bulk B', project: p.id, assignee: 'bob' },
        ]),
      );
      expect(Object.keys(res).sort()).to.deep.equal(['@type', 'count', 'items']);
      expect(res.items.map((t: any) => t.assignee)).to.deep.equal(['carol', 'bob']);
    });
  });

  describe('updateMany and deleteMany', () => {
    it('updateMany with map-form filters returns {count, @type} and runs hooks per record', async () => {
      const p = await newProject();
      const todo = [
        await newTask(p.id, { estimate_hours: 2 }),
        await newTask(p.id, { estimate_hours: 8 }),
        await newTask(p.id, { estimate_hours: 9 }),
      ];
      const doing = await newTask(p.id, { status: 'doing', estimate_hours: 20 });
      const res = ok(
        await call(s, 'updateMany', 'task', {
          filters: { project: p.id, status: 'todo', estimate_hours: ['>', 5] },
          data: { status: 'done' },
        }),
      );
      expect(res).to.deep.equal({ count: 2, '@type': 'task' });
      const { items } = ok(await call(s, 'find', 'task', { filters: { project: p.id }, fields: ['status', 'done'] }));
      const byId = new Map(items.map((t: any) => [t.id, t]));
      expect(byId.get(todo[0].id)).to.include({ status: 'todo', done: false });
      expect(byId.get(todo[1].id)).to.include({ status: 'done', done: true });
      expect(byId.get(todo[2].id)).to.include({ status: 'done', done: true });
      expect(byId.get(doing.id)).to.include({ status: 'doing', done: false });
    });

    it('deleteMany with map-form filters returns {count, @type} and removes just those', async () => {
      const p = await newProject();
      await newTask(p.id, { status: 'done' });
      await newTask(p.id, { status: 'done' });
      const left = await newTask(p.id);
      expect(ok(await call(s, 'deleteMany', 'task', { filters: { project: p.id, status: 'done' } }))).to.deep.equal({
        count: 2,
        '@type': 'task',
      });
      const { items } = ok(await call(s, 'find', 'task', { filters: { project: p.id }, fields: ['id'] }));
      expect(items).to.deep.equal([{ id: left.id }]);
      expect(ok(await call(s, 'deleteMany', 'task', { filters: { project: p.id, status: 'done' } }))).to.deep.equal({
        count: 0,
        '@type': 'task',
      });
    });
  });

  describe('expense.hook.ts keeps project.actual_cost', () => {
    const cost = async (id: string) => ok(await call(s, 'findOne', 'project', { filters: { id }, fields: ['actual_cost'] })).actual_cost;

    it('after create, update, move, deleteMany and delete of expenses', async () => {
      const p = await newProject();
      const q = await newProject();
      const e1 = ok(await call(s, 'create', 'expense', { project: p.id, amount: 100.1 }));
      expect(e1).to.include({ category: 'other', amount: 100.1 });
      expect(await cost(p.id)).to.equal(100.1);
      const e2 = ok(await call(s, 'create', 'expense', { project: p.id, amount: 0.2, category: 'travel' }));
      expect(await cost(p.id)).to.equal(100.3); // rounded to cents by the hook
      ok(await call(s, 'update', 'expense', { id: e1.id, data: { amount: 250 } }));
      expect(await cost(p.id)).to.equal(250.2);
      ok(await call(s, 'update', 'expense', { id: e2.id, data: { project: q.id } }));
      expect([await cost(p.id), await cost(q.id)]).to.deep.equal([250, 0.2]);
      ok(await call(s, 'create', 'expense', { project: q.id, amount: 5 }));
      expect(ok(await call(s, 'deleteMany', 'expense', { filters: { project: q.id, amount: ['<', 1] } }))).to.deep.equal({
        count: 1,
        '@type': 'expense',
      });
      expect(await cost(q.id)).to.equal(5);
      ok(await call(s, 'delete', 'expense', { id: e1.id }));
      expect(await cost(p.id)).to.equal(0);
    });
  });
});
