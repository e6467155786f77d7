/**
 * Permissions end to end, through JSON-RPC over real HTTP, on the sample application
 * (metadata/projects/*.permission.yml): object and operation level, field level, record level,
 * admin bypass, deny by default, and the body user being ignored unless allowBodyUser is on.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, USERS, type TestServer } from '../helpers/server';

type User = { id: string; roles: string[]; anonymous?: boolean };

describe('permissions (sample app, JSON-RPC)', () => {
  let server: TestServer;
  const call = (user: User | undefined, op: string, object: string, args?: unknown) =>
    server.rpc({ op, object, args, ...(user ? { user } : {}) });
  const { alice, bob, carol, viewer, admin, nobody } = USERS;

  function expectForbidden(res: { status: number; body: any }, permission: string, roles: string[]) {
    expect(res.status, JSON.stringify(res.body)).to.equal(403);
    expect(res.body.error.code).to.equal('FORBIDDEN');
    expect(res.body.error.details.required_permission).to.equal(permission);
    expect(res.body.error.details.user_roles).to.deep.equal(roles);
  }
  function expectUnknownField(res: { status: number; body: any }, field = 'actual_cost') {
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error.code).to.equal('INVALID_REQUEST');
    expect(res.body.error.message).to.include(`unknown field '${field}'`);
    expect(res.body.error.details.field).to.equal(field);
  }
  /** What alice owns, as the admin sees it (the truth the record scope must match). */
  async function aliceProjectIds(): Promise<string[]> {
    const res = await call(admin, 'find', 'project', { fields: ['id'], filters: [['owner', '=', 'alice']], top: 1000 });
    expect(res.status).to.equal(200);
    return res.body.items.map((p: any) => p.id).sort();
  }

  before(async () => {
    server = await startServer({ security: { allowBodyUser: true } });
  });
  after(async () => {
    await server?.stop();
  });

  describe('object and operation level', () => {
    it('lets a viewer read but not create, update or delete', async () => {
      const before = (await call(admin, 'findOne', 'project', 'prj-apollo')).body;
      const read = await call(viewer, 'find', 'project', { fields: ['name'] });
      expect(read.status).to.equal(200);
      expect(read.body.items.map((p: any) => p.id)).to.include.members(['prj-apollo', 'prj-gemini', 'prj-mercury']);

      expectForbidden(await call(viewer, 'create', 'project', { name: 'Viewer project' }), 'allow_create', ['viewer']);
      expectForbidden(await call(viewer, 'update', 'project', { id: 'prj-apollo', data: { priority: 'low' } }), 'allow_edit', ['viewer']);
      expectForbidden(await call(viewer, 'delete', 'project', { id: 'prj-apollo' }), 'allow_delete', ['viewer']);
      expect((await call(admin, 'findOne', 'project', 'prj-apollo')).body).to.deep.equal(before);
      expect((await call(admin, 'count', 'project', { filters: [['name', '=', 'Viewer project']] })).body.count).to.equal(0);
    });

    it('does not let a member delete projects, even their own', async () => {
      expectForbidden(await call(alice, 'delete', 'project', { id: 'prj-mercury' }), 'allow_delete', ['member']);
      expect((await call(admin, 'findOne', 'project', 'prj-mercury')).status).to.equal(200);
    });

    it('denies an object with a permission file to a user with no matching role, but not an open object', async () => {
      const someone = { id: 'zed', roles: ['nobody'] };
      expectForbidden(await call(someone, 'find', 'project', {}), 'allow_read', ['nobody']);
      expectForbidden(await call(someone, 'count', 'project', {}), 'allow_read', ['nobody']);
      expectForbidden(await call(someone, 'create', 'project', { name: 'Nobody project' }), 'allow_create', ['nobody']);
      expectForbidden(await call(nobody, 'findOne', 'task', 'tsk-apollo-design'), 'allow_read', []);

      // account has no permission file: open to any caller.
      const accounts = await call(someone, 'find', 'account', { fields: ['name'], sort: 'name' });
      expect(accounts.status).to.equal(200);
      expect(accounts.body.items.map((a: any) => a.id)).to.deep.equal(['acc-acme', 'acc-globex', 'acc-initech']);
      // ... but the permission file of the expanded object still applies.
      expectForbidden(await call(nobody, 'find', 'milestone', { expand: { project: {} } }), 'allow_read', []);
    });
  });

  describe('field level: actual_cost is hidden from members, budget read-only', () => {
    it('never returns actual_cost to alice in find, findOne, create, update or expand', async () => {
      expect((await call(admin, 'findOne', 'project', 'prj-apollo')).body.actual_cost).to.equal(4699.5);

      const found = await call(alice, 'find', 'project', {});
      expect(found.status).to.equal(200);
      expect(found.body.items.length).to.be.greaterThan(0);
      for (const p of found.body.items) {
        expect(p).to.not.have.property('actual_cost');
        expect(p).to.have.property('budget');
      }
      const one = await call(alice, 'findOne', 'project', 'prj-apollo');
      expect(one.body.budget).to.equal(120000);
      expect(one.body).to.not.have.property('actual_cost');

      const created = await call(alice, 'create', 'project', { name: 'Alice field test' });
      expect(created.status).to.equal(200);
      expect(created.body.owner).to.equal('alice');
      expect(created.body).to.not.have.property('actual_cost');

      const updated = await call(alice, 'update', 'project', { id: 'prj-apollo', data: { priority: 'urgent' } });
      expect(updated.status).to.equal(200);
      expect(updated.body.priority).to.equal('urgent');
      expect(updated.body).to.not.have.property('actual_cost');

      const tasks = await call(alice, 'find', 'task', { filters: [['project', '=', 'prj-apollo']], expand: { project: {} } });
      expect(tasks.body.items.length).to.be.greaterThan(0);
      for (const t of tasks.body.items) {
        expect(t.project.id).to.equal('prj-apollo');
        expect(t.project.budget).to.equal(120000);
        expect(t.project).to.not.have.property('actual_cost');
      }
    });

    it('treats actual_cost as unknown when alice filters, sorts, groups, aggregates or selects it', async () => {
      expectUnknownField(await call(alice, 'find', 'project', { filters: [['actual_cost', '>', 0]] }));
      expectUnknownField(await call(alice, 'find', 'project', { filters: { actual_cost: 0 } }));
      // As a bare field name, a hidden field reads exactly like a name that does not exist.
      const hidden = await call(alice, 'find', 'project', { filters: [['budget', '<', 'actual_cost']] });
      const missing = await call(alice, 'find', 'project', { filters: [['budget', '<', 'no_such_field']] });
      expect(hidden.status).to.equal(400);
      expect(hidden.body.error.code).to.equal('INVALID_REQUEST');
      expect(hidden.body.error.message.replace('actual_cost', 'no_such_field')).to.equal(missing.body.error.message);
      expectUnknownField(await call(alice, 'find', 'project', { filters: [['budget', '<', { $field: 'actual_cost' }]] }));
      expectUnknownField(await call(alice, 'count', 'project', { filters: [['actual_cost', '>', 0]] }));
      expectUnknownField(await call(alice, 'findOne', 'project', { filters: [['actual_cost', '>', 0]] }));
      expectUnknownField(await call(alice, 'find', 'project', { sort: [['actual_cost', 'desc']] }));
      expectUnknownField(await call(alice, 'find', 'project', { groupBy: ['actual_cost'], aggregate: [{ func: 'count', alias: 'n' }] }));
      expectUnknownField(await call(alice, 'find', 'project', { aggregate: [{ func: 'sum', field: 'actual_cost', alias: 'total' }] }));
      expectUnknownField(await call(alice, 'find', 'project', { fields: ['name', 'actual_cost'] }));
      expectUnknownField(await call(alice, 'find', 'task', { expand: { project: { fields: ['actual_cost'] } } }));
      // The same queries are fine for a manager.
      const carolSorted = await call(carol, 'find', 'project', { fields: ['actual_cost'], sort: [['actual_cost', 'desc']], top: 1 });
      expect(carolSorted.body.items[0].actual_cost).to.be.a('number');
    });

    it('cannot be read off the expenses it sums, which members may not read', async () => {
      const perProject = { groupBy: ['project'], aggregate: [{ func: 'sum', field: 'amount', alias: 'total' }] };
      for (const args of [perProject, { fields: ['project', 'amount'] }, { filters: [['project', '=', 'prj-apollo']] }]) {
        expectForbidden(await call(alice, 'find', 'expense', args), 'allow_read', ['member']);
      }
      expectForbidden(await call(alice, 'count', 'expense', {}), 'allow_read', ['member']);
      expectForbidden(await call(bob, 'findOne', 'expense', 'exp-apollo-travel'), 'allow_read', ['member']);
      // Those who may see actual_cost still read expenses.
      expect((await call(viewer, 'find', 'expense', perProject)).body.items).to.deep.include({ project: 'prj-apollo', total: 4699.5 });
      expect((await call(carol, 'count', 'expense', {})).body.count).to.be.greaterThan(0);
    });

    it('refuses writes of budget (403 naming it) and of actual_cost (400 unknown field) by a member', async () => {
      for (const [op, args] of [
        ['create', { name: 'Alice budget', budget: 10 }],
        ['update', { id: 'prj-apollo', data: { budget: 10 } }],
      ] as const) {
        const res = await call(alice, op, 'project', args);
        expectForbidden(res, 'allow_edit', ['member']);
        expect(res.body.error.message).to.include("'budget'");
        expect(res.body.error.details.field).to.equal('budget');
      }
      for (const [op, args] of [
        ['create', { name: 'Alice cost', actual_cost: 10 }],
        ['update', { id: 'prj-apollo', data: { actual_cost: 10 } }],
      ] as const) {
        const res = await call(alice, op, 'project', args);
        expect(res.status).to.equal(400);
        expect(res.body.error.details.fields).to.deep.equal({ actual_cost: 'unknown field' });
      }
      const apollo = await call(admin, 'findOne', 'project', 'prj-apollo');
      expect(apollo.body.budget).to.equal(120000);
      expect(apollo.body.actual_cost).to.equal(4699.5);
      expect((await call(admin, 'count', 'project', { filters: [['name', 'startswith', 'Alice budget']] })).body.count).to.equal(0);
    });
  });

  describe('record level: alice only reaches her own projects', () => {
    it('limits find, count and aggregate to her projects', async () => {
      const mine = await aliceProjectIds();
      expect(mine).to.include.members(['prj-apollo', 'prj-mercury']);
      expect(mine).to.not.include('prj-gemini');

      const found = await call(alice, 'find', 'project', { fields: ['name', 'owner'], top: 1000 });
      expect(found.body.items.map((p: any) => p.id).sort()).to.deep.equal(mine);
      expect(found.body.meta.total).to.equal(mine.length);
      expect(found.body.items.every((p: any) => p.owner === 'alice')).to.equal(true);

      const paged = await call(alice, 'find', 'project', { fields: ['name'], top: 1 });
      expect(paged.body.items).to.have.length(1);
      expect(paged.body.meta.total).to.equal(mine.length);
      expect((await call(alice, 'count', 'project', {})).body.count).to.equal(mine.length);

      const grouped = await call(alice, 'find', 'project', { groupBy: ['owner'], aggregate: [{ func: 'count', alias: 'n' }] });
      expect(grouped.body.items).to.deep.equal([{ owner: 'alice', n: mine.length }]);
      const total = await call(alice, 'find', 'project', { aggregate: [{ func: 'count', alias: 'n' }] });
      expect(total.body.items[0].n).to.equal(mine.length);

      // bob sees only Gemini (and whatever he created).
      const bobs = await call(bob, 'find', 'project', { fields: ['owner'] });
      expect(bobs.body.items.map((p: any) => p.id)).to.include('prj-gemini');
      expect(bobs.body.items.every((p: any) => p.owner === 'bob')).to.equal(true);
    });

    it("answers 404 for findOne, update and action on bob's project, and 403 for delete (operation level first)", async () => {
      for (const [op, args] of [
        ['findOne', 'prj-gemini'],
        ['update', { id: 'prj-gemini', data: { name: 'Hijacked' } }],
        ['action', { action: 'close', id: 'prj-gemini', input: { reason: 'mine now' } }],
      ] as const) {
        const res = await call(alice, op, 'project', args);
        expect(res.status, `${op}: ${JSON.stringify(res.body)}`).to.equal(404);
        expect(res.body.error.code).to.equal('NOT_FOUND');
        expect(res.body.error.message).to.include('prj-gemini');
      }
      expectForbidden(await call(alice, 'delete', 'project', { id: 'prj-gemini' }), 'allow_delete', ['member']);
      const gemini = await call(admin, 'findOne', 'project', 'prj-gemini');
      expect(gemini.body.name).to.equal('Gemini Plant Monitoring');
      expect(gemini.body.status).to.equal('planning');
    });

    it("finds nothing of bob's through filters", async () => {
      for (const filters of [
        [['id', '=', 'prj-gemini']],
        [['owner', '=', 'bob']],
        [['id', '=', 'prj-gemini'], 'or', ['owner', '=', 'bob']],
        ['not', [['owner', '=', 'alice']]],
        { owner: 'bob' },
      ]) {
        const found = await call(alice, 'find', 'project', { fields: ['name'], filters });
        expect(found.status, JSON.stringify(filters)).to.equal(200);
        expect(found.body.items, JSON.stringify(filters)).to.deep.equal([]);
        expect(found.body.meta.total).to.equal(0);
        expect((await call(alice, 'count', 'project', { filters })).body.count, JSON.stringify(filters)).to.equal(0);
      }
      const one = await call(alice, 'findOne', 'project', { filters: [['owner', '=', 'bob']] });
      expect(one.status).to.equal(404);
      const bulk = await call(alice, 'updateMany', 'project', { filters: { owner: 'bob' }, data: { priority: 'low' } });
      expect(bulk.body.count).to.equal(0);
      expect((await call(admin, 'findOne', 'project', 'prj-gemini')).body.priority).to.equal('medium');
    });

    it("expands a lookup to bob's project as null", async () => {
      const created = await call(admin, 'create', 'task', {
        id: 'tsk-alice-on-gemini',
        title: 'Help bob',
        project: 'prj-gemini',
        assignee: 'alice',
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(200);

      const tasks = await call(alice, 'find', 'task', {
        fields: ['title', 'project'],
        expand: { project: { fields: ['name'] } },
        top: 1000,
      });
      const byId = new Map(tasks.body.items.map((t: any) => [t.id, t]));
      expect((byId.get('tsk-alice-on-gemini') as any).project).to.equal(null);
      expect((byId.get('tsk-apollo-design') as any).project).to.deep.equal({ id: 'prj-apollo', name: 'Apollo Website Relaunch' });
      const one = await call(alice, 'findOne', 'task', { filters: [['id', '=', 'tsk-alice-on-gemini']], expand: { project: {} } });
      expect(one.body.title).to.equal('Help bob');
      expect(one.body.project).to.equal(null);
      // The manager sees the project behind it.
      const asCarol = await call(carol, 'findOne', 'task', {
        filters: [['id', '=', 'tsk-alice-on-gemini']],
        expand: { project: { fields: ['owner'] } },
      });
      expect(asCarol.body.project).to.deep.equal({ id: 'prj-gemini', owner: 'bob' });
    });

    it('refuses to create or move a project outside her scope', async () => {
      const create = await call(alice, 'create', 'project', { name: 'Gift for bob', owner: 'bob' });
      expectForbidden(create, 'record_filters', ['member']);
      expect((await call(admin, 'count', 'project', { filters: [['name', '=', 'Gift for bob']] })).body.count).to.equal(0);

      const move = await call(alice, 'update', 'project', { id: 'prj-mercury', data: { owner: 'bob' } });
      expectForbidden(move, 'record_filters', ['member']);
      expect((await call(admin, 'findOne', 'project', 'prj-mercury')).body.owner).to.equal('alice');
    });
  });

  describe('several matching roles', () => {
    it('adds up what each allows, without widening the records a write may touch', async () => {
      const both = { id: 'alice', roles: ['member', 'viewer'] };
      // viewer reads every project and sees actual_cost ...
      const all = await call(both, 'find', 'project', { fields: ['owner', 'actual_cost'], filters: [['id', '=', 'prj-gemini']] });
      expect(all.body.items).to.deep.equal([{ id: 'prj-gemini', owner: 'bob', actual_cost: 0 }]);
      // ... but only member may write, and only alice's own projects.
      const edit = await call(both, 'update', 'project', { id: 'prj-gemini', data: { priority: 'urgent' } });
      expectForbidden(edit, 'record_filters', ['member', 'viewer']);
      expectForbidden(await call(both, 'create', 'project', { name: 'Also for bob', owner: 'bob' }), 'record_filters', [
        'member',
        'viewer',
      ]);
      expectForbidden(await call(both, 'update', 'project', { id: 'prj-apollo', data: { owner: 'bob' } }), 'record_filters', [
        'member',
        'viewer',
      ]);
      const bulk = await call(both, 'updateMany', 'project', { filters: { owner: 'bob' }, data: { priority: 'urgent' } });
      expect(bulk.body.count).to.equal(0);
      expect(bulk.body.errors.map((e: any) => e.error.code)).to.include('FORBIDDEN');
      expect((await call(admin, 'findOne', 'project', 'prj-gemini')).body.priority).to.equal('medium');
      expectForbidden(await call(both, 'update', 'project', { id: 'prj-apollo', data: { actual_cost: 1 } }), 'allow_edit', [
        'member',
        'viewer',
      ]);

      const own = await call(both, 'update', 'project', { id: 'prj-mercury', data: { priority: 'medium' } });
      expect(own.status).to.equal(200);
      expect(own.body.priority).to.equal('medium');
    });
  });

  describe('admin', () => {
    it('bypasses object, field and record permissions', async () => {
      const all = await call(admin, 'find', 'project', {
        fields: ['owner', 'actual_cost'],
        filters: [['actual_cost', '>=', 0]],
        sort: [['actual_cost', 'desc']],
      });
      expect(all.status).to.equal(200);
      expect(all.body.items.map((p: any) => p.id)).to.include.members(['prj-apollo', 'prj-gemini', 'prj-mercury']);
      expect(all.body.items[0]).to.deep.include({ id: 'prj-apollo', actual_cost: 4699.5 });

      const created = await call(admin, 'create', 'project', { name: 'Admin project', owner: 'bob', budget: 5, actual_cost: 1 });
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
      expect(created.body).to.include({ owner: 'bob', budget: 5, actual_cost: 1 });
      const deleted = await call(admin, 'delete', 'project', { id: created.body.id });
      expect(deleted.body).to.deep.equal({ id: created.body.id, deleted: true, '@type': 'project' });
      expect((await call(admin, 'findOne', 'project', created.body.id)).status).to.equal(404);
    });
  });

  describe('a caller an authentication plugin marks anonymous', () => {
    // The auth plugin's `anonymous: {roles}` option lets callers without credentials in as
    // {id: 'anonymous', roles, anonymous: true}: they get those roles' rights, but stay anonymous.
    it('gets the rights of its roles, and 401 (not 403) where those end', async () => {
      const guest = { id: 'anonymous', roles: ['viewer'], anonymous: true };
      const read = await call(guest, 'count', 'project', {});
      expect(read.body.count).to.be.at.least(3);
      const edit = await call(guest, 'update', 'project', { id: 'prj-apollo', data: { priority: 'low' } });
      expect(edit.status, JSON.stringify(edit.body)).to.equal(401);
      expect(edit.body.error).to.deep.include({ code: 'UNAUTHORIZED' });
      expect(edit.body.error.details).to.deep.equal({ required_permission: 'allow_edit', object: 'project', user_roles: ['viewer'] });
      const noRole = await call({ id: 'anonymous', roles: [], anonymous: true }, 'find', 'task', {});
      expect(noRole.status).to.equal(401);
    });

    it('has no $current_user, whatever id it carries', async () => {
      const fake = { id: 'alice', roles: ['member'], anonymous: true };
      const found = await call(fake, 'find', 'project', { fields: ['owner'] });
      expect(found.status).to.equal(200);
      expect(found.body.items).to.deep.equal([]);
      const created = await call(fake, 'create', 'project', { name: 'Anonymous project', owner: 'alice' });
      expect(created.status, JSON.stringify(created.body)).to.equal(401);
      expect(created.body.error.details.required_permission).to.equal('record_filters');
      expect((await call(admin, 'count', 'project', { filters: [['name', '=', 'Anonymous project']] })).body.count).to.equal(0);
    });
  });

  describe('with allowBodyUser off (the default)', () => {
    let strict: TestServer;
    before(async () => {
      strict = await startServer({});
    });
    after(async () => {
      await strict?.stop();
    });

    it('ignores the body user: the request is anonymous (401, authenticate and retry)', async () => {
      for (const user of [admin, carol]) {
        const res = await strict.rpc({ op: 'find', object: 'project', args: {}, user });
        expect(res.status, JSON.stringify(res.body)).to.equal(401);
        expect(res.body.error.code).to.equal('UNAUTHORIZED');
        expect(res.body.error.details).to.deep.include({ required_permission: 'allow_read', user_roles: [] });
      }
      const open = await strict.rpc({ op: 'count', object: 'account', args: {}, user: admin });
      expect(open.body.count).to.equal(3);
    });
  });

  describe('record scope on delete', () => {
    // The sample app lets no scoped role delete; a tiny app checks that delete honours record_filters.
    let dir: string;
    let notes: TestServer;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'objectql-perm-'));
      writeFileSync(join(dir, 'note.object.yml'), 'fields:\n  text: {type: text}\n  owner: {type: text}\n');
      writeFileSync(
        join(dir, 'note.permission.yml'),
        [
          'permissions:',
          '  - {profile: member, allow_read: true, allow_create: true, allow_edit: true, allow_delete: true,',
          '     record_filters: [[owner, "=", $current_user]]}',
        ].join('\n'),
      );
      writeFileSync(join(dir, 'note.data.yml'), '- {id: n-alice, text: a, owner: alice}\n- {id: n-bob, text: b, owner: bob}\n');
      notes = await startServer({ metadata: [dir], security: { allowBodyUser: true } });
    });
    after(async () => {
      await notes?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("answers 404 for another user's record and deletes one's own", async () => {
      const other = await notes.rpc({ op: 'delete', object: 'note', args: { id: 'n-bob' }, user: alice });
      expect(other.status).to.equal(404);
      expect(other.body.error.code).to.equal('NOT_FOUND');
      const own = await notes.rpc({ op: 'delete', object: 'note', args: { id: 'n-alice' }, user: alice });
      expect(own.body).to.deep.equal({ id: 'n-alice', deleted: true, '@type': 'note' });
      const left = await notes.rpc({ op: 'find', object: 'note', args: { fields: ['owner'] }, user: admin });
      expect(left.body.items).to.deep.equal([{ id: 'n-bob', owner: 'bob' }]);
    });
  });
});
