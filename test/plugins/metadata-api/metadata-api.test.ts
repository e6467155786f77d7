/**
 * The metadata API end to end over real HTTP, on the sample application plus a folder with a type
 * of its own: every route of the spec's table under both `objects` and `object`, the spec's shapes,
 * what each caller may see (objects, fields, admin-only types), the admin-only update and how it
 * stays inside its kernel, the read-only POST, and bad input. Identity: the `x-test-user` header.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SAMPLE_METADATA, USERS, type TestServer } from '../../helpers/server';
import { as, expectError, ok, startMetadataServer, type Caller } from './helpers';

const M = '/api/metadata';
const { alice, carol, admin } = USERS;
const guest = { id: 'gus', roles: ['guest'] }; // a role no permission file names
const ALL = ['account', 'contact', 'expense', 'milestone', 'project', 'task'];
const OPEN = ['account', 'contact', 'milestone']; // no permission file

describe('metadata API (HTTP)', () => {
  let s: TestServer;
  let dir: string;
  const get = (user: Caller, path: string) => as(s, user, 'GET', M + path);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'objectql-metadata-api-'));
    writeFileSync(join(dir, 'ops.dashboard.yml'), 'label: Operations\nwidgets: [open_projects, overdue_tasks]\n');
    writeFileSync(join(dir, 'onboarding.checklist.yml'), '- sign contract\n- kick-off\n');
    s = await startMetadataServer({ metadata: [SAMPLE_METADATA, dir], metadataTypes: ['dashboard', 'checklist'] });
  });
  after(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('objects', () => {
    it('GET /objects lists object definitions with fields as a map', async () => {
      const { objects } = ok(await get(carol, '/objects'));
      expect(objects.map((o: any) => o.name)).to.deep.equal(ALL);
      const project = objects.find((o: any) => o.name === 'project');
      expect(project).to.include({ name: 'project', label: 'Project', icon: 'briefcase' });
      expect(project.fields).to.be.an('object').that.is.not.an('array');
      expect(project.fields.status).to.include({ name: 'status', type: 'select', required: true });
      expect(project.actions.map((a: any) => a.name)).to.deep.equal(['close', 'summary']);
      expect(project.hooks.map((h: any) => h.event)).to.deep.equal(['beforeCreate', 'beforeUpdate']);
    });

    it('GET /objects/:name and /object/:name give the definition with fields, actions and hooks arrays', async () => {
      const plural = ok(await get(carol, '/objects/project'));
      expect(ok(await get(carol, '/object/project'))).to.deep.equal(plural);
      expect(Object.keys(plural)).to.deep.equal(['name', 'label', 'icon', 'description', 'fields', 'actions', 'hooks']);
      expect(plural.description).to.be.a('string').and.not.equal('');
      const fields = Object.fromEntries(plural.fields.map((f: any) => [f.name, f]));
      expect(plural.fields.map((f: any) => f.name)).to.include.members(['id', 'name', 'status', 'actual_cost', 'created_at']);
      expect(fields.name).to.deep.equal({
        name: 'name',
        type: 'text',
        label: 'Project Name',
        required: true,
        unique: true,
        multiple: false,
      });
      expect(fields.status).to.deep.include({ options: ['planning', 'active', 'on_hold', 'done'], defaultValue: 'planning' });
      expect(fields.priority.options).to.deep.equal(['low', 'medium', 'high', 'urgent']);
      expect(fields.priority.option_labels).to.deep.equal({ low: 'Low', medium: 'Medium', high: 'High', urgent: 'Urgent' });
      expect(fields.tags).to.include({ type: 'select', multiple: true });
      expect(fields.account).to.include({ type: 'lookup', reference_to: 'account' });
      expect(fields.budget).to.include({ type: 'currency', min: 0 });
      expect(fields.code).to.include({ type: 'auto_number', readonly: true });
      expect(fields.id).to.include({ system: true, readonly: true });
      expect(fields.name).not.to.have.property('validations');
      for (const h of plural.hooks) expect(Object.keys(h)).to.deep.equal(['event', 'description']);
      expect(plural.hooks.every((h: any) => typeof h.description === 'string' && h.description)).to.equal(true);
      expect(plural.actions[0]).to.deep.equal({
        name: 'close',
        type: 'record',
        label: 'Close Project',
        description: 'Marks the project done and sets its end date to today.',
        params: { reason: { type: 'text', label: 'Reason', required: true } },
      });
      expect(plural.actions[1]).to.include({ name: 'summary', type: 'global', label: 'Status Summary' });
    });

    it('GET /objects/:name/fields/:field (both segments) adds the validations', async () => {
      const status = ok(await get(carol, '/objects/project/fields/status'));
      expect(ok(await get(carol, '/object/project/fields/status'))).to.deep.equal(status);
      expect(status).to.include({ name: 'status', type: 'select', label: 'Status', required: true, unique: false });
      expect(status.validations).to.deep.include({ type: 'required', message: 'Status is required' });
      expect(status.validations).to.deep.include({ type: 'state_machine', message: 'This status change is not allowed.' });
      const budget = ok(await get(carol, '/objects/project/fields/budget'));
      expect(budget.validations.map((v: any) => v.type)).to.deep.equal(['range', 'range']);
      for (const v of budget.validations) expect(Object.keys(v)).to.deep.equal(['type', 'message']);
    });

    it('GET /objects/:name/actions (both segments)', async () => {
      const { actions } = ok(await get(carol, '/objects/project/actions'));
      expect(ok(await get(carol, '/object/project/actions'))).to.deep.equal({ actions });
      expect(actions).to.deep.equal(ok(await get(carol, '/objects/project')).actions);
      expect(ok(await get(carol, '/objects/account/actions'))).to.deep.equal({ actions: [] });
    });

    it('never shows where a definition was loaded from', async () => {
      for (const path of ['/objects', '/objects/project', '/object', '/dashboard', '/dashboard/ops']) {
        const text = JSON.stringify(ok(await get(admin, path)));
        expect(text).not.to.include('source');
        expect(text).not.to.include(SAMPLE_METADATA);
        expect(text).not.to.include(dir);
        expect(text).not.to.match(/\.yml|\.ts"/);
      }
    });
  });

  describe('what each caller sees', () => {
    it('a member sees project without actual_cost, and the hidden field is not found', async () => {
      const { objects } = ok(await get(alice, '/objects'));
      expect(objects.map((o: any) => o.name)).to.deep.equal([...OPEN, 'project', 'task']);
      expect(objects.find((o: any) => o.name === 'project').fields).not.to.have.property('actual_cost');
      const project = ok(await get(alice, '/objects/project'));
      expect(project.fields.map((f: any) => f.name)).not.to.include('actual_cost');
      expect(project.fields.map((f: any) => f.name)).to.include('budget');
      expectError(await get(alice, '/objects/project/fields/actual_cost'), 404, 'NOT_FOUND', "'actual_cost'", "'project'");
      const unknown = await get(alice, '/objects/project/fields/no_such_field');
      expectError(unknown, 404, 'NOT_FOUND', "'no_such_field'");
      expect(ok(await get(carol, '/objects/project/fields/actual_cost'))).to.include({ name: 'actual_cost', type: 'currency' });
    });

    it('a role with no entry, and an anonymous caller, see only objects without a permission file', async () => {
      for (const user of [guest, undefined]) {
        const { objects } = ok(await get(user, '/objects'));
        expect(objects.map((o: any) => o.name)).to.deep.equal(OPEN);
        for (const path of [
          '/objects/project',
          '/object/project',
          '/objects/project/fields/name',
          '/objects/project/actions',
          '/object/project',
        ]) {
          expectError(await get(user, path), 404, 'NOT_FOUND', "'project'");
        }
        expect(ok(await get(user, '/object')).items.map((i: any) => i.id)).to.deep.equal(OPEN);
      }
    });

    it('admins see every object and field', async () => {
      expect(ok(await get(admin, '/objects')).objects.map((o: any) => o.name)).to.deep.equal(ALL);
      expect(ok(await get(admin, '/objects/project')).fields.map((f: any) => f.name)).to.include('actual_cost');
    });
  });

  describe('other metadata types', () => {
    it('GET /:type lists {type, items: [{id, content}]} and GET /:type/:id gives the content', async () => {
      const apps = ok(await get(alice, '/app'));
      expect(apps.type).to.equal('app');
      expect(apps.items.map((i: any) => i.id)).to.deep.equal(['projects']);
      const app = ok(await get(alice, '/app/projects'));
      expect(apps.items[0].content).to.deep.equal(app);
      expect(app).to.include({ name: 'projects', label: 'Project Tracker', default_object: 'project' });
      const view = ok(await get(undefined, '/view/project_list'));
      expect(view).to.deep.include({ name: 'project_list', object: 'project', filters: [['status', '!=', 'done']] });
    });

    it('serves types the service does not know, as loaded', async () => {
      expect(ok(await get(undefined, '/dashboard'))).to.deep.equal({
        type: 'dashboard',
        items: [{ id: 'ops', content: { label: 'Operations', widgets: ['open_projects', 'overdue_tasks'], name: 'ops' } }],
      });
      expect(ok(await get(undefined, '/checklist/onboarding'))).to.deep.equal(['sign contract', 'kick-off']);
    });

    it('GET /object lists the object definitions the caller may read; /objects/:name is the same entry', async () => {
      const list = ok(await get(carol, '/object'));
      expect(list.type).to.equal('object');
      expect(list.items.map((i: any) => i.id)).to.deep.equal(ALL);
      expect(list.items.find((i: any) => i.id === 'project').content).to.deep.equal(ok(await get(carol, '/objects/project')));
    });

    it('permission, validation and data entries are for admins only', async () => {
      for (const path of ['/permission', '/permission/project', '/validation/project', '/data', '/data/project']) {
        expectError(await get(undefined, path), 401, 'UNAUTHORIZED');
        for (const user of [alice, carol]) {
          const res = await get(user, path);
          expectError(res, 403, 'FORBIDDEN');
          expect(res.body.error.details).to.deep.equal({ required_permission: 'admin', user_roles: user.roles });
        }
      }
      expect(ok(await get(admin, '/permission')).items.map((i: any) => i.id)).to.deep.equal(['expense', 'project', 'task']);
      const rules = ok(await get(admin, '/permission/project'));
      expect(rules.permissions.map((p: any) => p.profile)).to.deep.equal(['manager', 'member', 'viewer']);
    });

    it('an unknown type or id is NOT_FOUND naming it', async () => {
      expectError(await get(carol, '/widgets'), 404, 'NOT_FOUND', "'widgets'");
      expectError(await get(carol, '/widgets/x'), 404, 'NOT_FOUND', "'widgets'");
      expectError(await get(carol, '/app/nope'), 404, 'NOT_FOUND', "'nope'", "'app'");
      expectError(await get(admin, '/permission/nope'), 404, 'NOT_FOUND', "'nope'");
      expectError(await get(carol, '/objects/nope'), 404, 'NOT_FOUND', "'nope'");
      expectError(await get(carol, '/object/nope/actions'), 404, 'NOT_FOUND', "'nope'");
      expectError(await get(carol, '/objects/nope/fields/name'), 404, 'NOT_FOUND', "'nope'");
    });
  });

  describe('writes', () => {
    it('POST /:type/:id: 401 anonymous, 403 non-admin, then INVALID_REQUEST: the storage is read-only', async () => {
      expectError(await as(s, undefined, 'POST', `${M}/app/projects`, { label: 'X' }), 401, 'UNAUTHORIZED');
      expectError(await as(s, carol, 'POST', `${M}/app/projects`, { label: 'X' }), 403, 'FORBIDDEN');
      const res = await as(s, admin, 'POST', `${M}/app/projects`, { label: 'X' });
      expectError(res, 400, 'INVALID_REQUEST', 'read-only', "app 'projects'");
      expect(res.body.error.details).to.deep.equal({ type: 'app', id: 'projects', writable: false });
      expectError(await as(s, admin, 'POST', `${M}/objects/project`, {}), 400, 'INVALID_REQUEST', `PUT ${M}/object/project`);
      expect(ok(await get(admin, '/app/projects')).label).to.equal('Project Tracker');
    });

    it('lists itself at the discovery route', async () => {
      const { capabilities } = ok(await s.request('GET', '/.well-known/objectql'));
      const cap = capabilities.find((c: any) => c.plugin === 'metadata-api');
      expect(cap.protocol).to.equal('metadata');
      expect(cap.routes).to.include.members([`GET ${M}/objects`, `PUT ${M}/object/:name`, `POST ${M}/:type/:id`]);
    });
  });
});
