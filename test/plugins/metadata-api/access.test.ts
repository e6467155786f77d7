/**
 * GET {metadata}/objects/:name/access (beside the spec): what this caller may do with an object
 * and with each field it may read, from the engine's permissions — over real HTTP on the sample
 * application (project.permission.yml: members may not delete, may not edit `budget`, never see
 * `actual_cost`; expense.permission.yml: members may not read expenses at all).
 */
import { expect } from 'chai';
import { USERS, type TestServer } from '../../helpers/server';
import { as, expectError, ok, startMetadataServer, type Caller } from './helpers';

const M = '/api/metadata';
const { alice, carol, admin, viewer } = USERS;
const guest = { id: 'gus', roles: ['guest'] }; // a role no permission file names

describe('metadata API: GET /objects/:name/access', () => {
  let s: TestServer;
  const get = (user: Caller, path: string) => as(s, user, 'GET', M + path);

  before(async () => {
    s = await startMetadataServer();
  });
  after(async () => {
    await s?.stop();
  });

  /** The fields of GET /objects/:name as `user` sees them. */
  async function describedFields(user: Caller, object: string): Promise<any[]> {
    return ok(await get(user, `/objects/${object}`)).fields;
  }

  it('an admin may do everything: every field readable, editable unless maintained by the engine', async () => {
    const access = ok(await get(admin, '/objects/project/access'));
    expect(Object.keys(access)).to.deep.equal(['object', 'read', 'create', 'edit', 'delete', 'fields']);
    expect(access).to.include({ object: 'project', read: true, create: true, edit: true, delete: true });
    const fields = await describedFields(admin, 'project');
    expect(Object.keys(access.fields)).to.deep.equal(fields.map((f) => f.name));
    expect(access.fields.actual_cost).to.deep.equal({ read: true, edit: true });
    expect(access.fields.budget).to.deep.equal({ read: true, edit: true });
    for (const system of ['id', 'created_at', 'created_by', 'updated_at', 'updated_by'])
      expect(access.fields[system], system).to.deep.equal({ read: true, edit: false });
    for (const f of fields) {
      const computed = f.system || f.readonly || f.type === 'auto_number' || f.type === 'formula';
      expect(access.fields[f.name], f.name).to.deep.equal({ read: true, edit: !computed });
    }
  });

  it('a member: no delete, budget read-only, actual_cost absent; the same under /object', async () => {
    const access = ok(await get(alice, '/objects/project/access'));
    expect(access).to.include({ object: 'project', read: true, create: true, edit: true, delete: false });
    expect(access.fields).not.to.have.property('actual_cost');
    expect(access.fields.budget).to.deep.equal({ read: true, edit: false });
    expect(access.fields.name).to.deep.equal({ read: true, edit: true });
    expect(access.fields.id).to.deep.equal({ read: true, edit: false });
    expect(Object.keys(access.fields)).to.deep.equal((await describedFields(alice, 'project')).map((f) => f.name));
    expect(ok(await get(alice, '/object/project/access'))).to.deep.equal(access);
  });

  it("matches the engine's repo.permissions() for the caller, field by field", async () => {
    const repo = s.kernel.engine.repo('project', { user: alice });
    const permissions = repo.permissions();
    const access = ok(await get(alice, '/objects/project/access'));
    expect(access.edit).to.equal(permissions.canEdit);
    for (const [name, field] of Object.entries<any>(access.fields)) {
      expect(permissions.readable.has(name), name).to.equal(true);
      expect(field.edit, name).to.equal(permissions.editable.has(name));
    }
  });

  it('a viewer reads only; a manager may do everything with the fields they see', async () => {
    const read = ok(await get(viewer, '/objects/project/access'));
    expect(read).to.include({ read: true, create: false, edit: false, delete: false });
    expect(Object.keys(read.fields).length).to.be.greaterThan(0);
    const managed = ok(await get(carol, '/objects/project/access'));
    expect(managed).to.include({ read: true, create: true, edit: true, delete: true });
    expect(managed.fields.budget).to.deep.equal({ read: true, edit: true });
  });

  it('an object the caller may not read is the same 404 as GET /objects/:name; so is an unknown one', async () => {
    const hidden = await get(alice, '/objects/expense/access');
    expectError(hidden, 404, 'NOT_FOUND', 'expense');
    expect(hidden.body).to.deep.equal((await get(alice, '/objects/expense')).body);
    expectError(await get(alice, '/object/expense/access'), 404, 'NOT_FOUND', 'expense');
    expectError(await get(guest, '/objects/project/access'), 404, 'NOT_FOUND', 'project');
    expectError(await get(admin, '/objects/nothing/access'), 404, 'NOT_FOUND', 'nothing');
    expect(ok(await get(carol, '/objects/expense/access'))).to.include({ object: 'expense', read: true, delete: true });
  });

  it('an anonymous caller: objects without a permission file only', async () => {
    expect(ok(await get(undefined, '/objects/account/access'))).to.include({ object: 'account', read: true, create: true });
    expectError(await get(undefined, '/objects/project/access'), 404, 'NOT_FOUND', 'project');
  });

  it('is listed among the capabilities of the metadata API', () => {
    const caps = s.kernel.hooks.capabilities.call([]);
    const metadata = caps.find((c: any) => c.plugin === 'metadata-api');
    expect(metadata?.routes).to.include(`GET ${M}/objects/:name/access`);
  });
});
