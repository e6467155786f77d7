/**
 * Every route of the spec's REST table against a real server over HTTP, with exact response
 * shapes on the sample application. List parameters are in list.test.ts, permissions in
 * permissions.test.ts, malformed requests in bad-input.test.ts.
 */
import { expect } from 'chai';
import { startServer, USERS, type TestServer } from '../../helpers/server';
import { expectError, ids, list, ok, rest, startRestServer } from './helpers';

describe('REST routes end to end', () => {
  let s: TestServer;
  let seq = 0;

  before(async () => {
    s = await startRestServer();
  });
  after(async () => {
    await s?.stop();
  });

  /** A fresh project through REST; name unique per call. */
  async function newProject(extra: Record<string, unknown> = {}): Promise<any> {
    seq += 1;
    return ok(await rest(s, 'POST', '/project', { name: `REST project ${seq}`, ...extra }), 201);
  }

  describe('GET /:object', () => {
    it('returns {items, meta} with the paging math of top and skip', async () => {
      const params = { filter: '[["id","startswith","tsk-"]]', sort: 'title', top: '4' };
      const first = ok(await list(s, 'task', params));
      expect(Object.keys(first)).to.deep.equal(['items', 'meta']);
      expect(first.meta).to.deep.equal({ total: 6, page: 1, size: 4, pages: 2, has_next: true });
      const second = ok(await list(s, 'task', { ...params, skip: '4' }));
      expect(second.meta).to.deep.equal({ total: 6, page: 2, size: 4, pages: 2, has_next: false });
      expect([...first.items, ...second.items].map((t: any) => t.title)).to.deep.equal([
        'Build the content API',
        'Design the new landing page',
        'Hand over the migrated ledger',
        'Kick-off meeting with Globex',
        'Plan the launch',
        'Survey sensor vendors',
      ]);
    });

    it('answers exactly what JSON-RPC find answers', async () => {
      const viaRest = ok(await list(s, 'project', { filter: '[["id","startswith","prj-"]]', sort: 'id' }));
      const viaRpc = ok(
        await s.rpc({ op: 'find', object: 'project', args: { filters: [['id', 'startswith', 'prj-']], sort: 'id' }, user: USERS.carol }),
      );
      expect(viaRest).to.deep.equal(viaRpc);
      expect(ids(viaRest)).to.deep.equal(['prj-apollo', 'prj-gemini', 'prj-mercury']);
      expect(viaRest.meta).to.deep.equal({ total: 3, page: 1, size: 100, pages: 1, has_next: false });
    });

    it('list items carry no @type', async () => {
      const body = ok(await list(s, 'account', { top: '1' }));
      expect(body.items[0]).not.to.have.property('@type');
    });
  });

  describe('GET /:object/:id', () => {
    it('returns the record with @type, as JSON-RPC findOne does', async () => {
      const body = ok(await rest(s, 'GET', '/project/prj-apollo'));
      const viaRpc = ok(await s.rpc({ op: 'findOne', object: 'project', args: 'prj-apollo', user: USERS.carol }));
      expect(body).to.deep.equal(viaRpc);
      expect(body).to.include({
        id: 'prj-apollo',
        name: 'Apollo Website Relaunch',
        owner: 'alice',
        budget: 120000,
        actual_cost: 4699.5,
        '@type': 'project',
      });
      expect(Object.keys(body)).to.include.members(['created_at', 'created_by', 'updated_at', 'updated_by', 'code']);
    });

    it('takes fields and expand', async () => {
      const body = ok(await rest(s, 'GET', '/project/prj-apollo?fields=name,account&expand={"account":{"fields":["name"]}}'));
      expect(body).to.deep.equal({
        id: 'prj-apollo',
        name: 'Apollo Website Relaunch',
        account: { id: 'acc-acme', name: 'Acme Corporation' },
        '@type': 'project',
      });
    });

    it('a missing record is 404 NOT_FOUND naming the record and the object', async () => {
      const res = await rest(s, 'GET', '/project/prj-nothing');
      expectError(res, 404, 'NOT_FOUND', 'prj-nothing', 'project');
      expect(res.body.error.details).to.deep.equal({ object: 'project', id: 'prj-nothing' });
    });

    it('an id with reserved characters round-trips through the path', async () => {
      const created = ok(await rest(s, 'POST', '/account', { id: 'acc/with space?', name: 'Odd Id Ltd' }), 201);
      expect(created.id).to.equal('acc/with space?');
      const body = ok(await rest(s, 'GET', `/account/${encodeURIComponent('acc/with space?')}?fields=name`));
      expect(body).to.deep.equal({ id: 'acc/with space?', name: 'Odd Id Ltd', '@type': 'account' });
    });
  });

  describe('POST /:object', () => {
    it('creates a record: 201, Location, the stored record with @type', async () => {
      const res = await rest(s, 'POST', '/project', { name: 'Created over REST', budget: 5000 });
      const body = ok(res, 201);
      expect(body).to.include({
        name: 'Created over REST',
        budget: 5000,
        owner: 'carol',
        status: 'planning',
        priority: 'medium',
        created_by: 'carol',
        '@type': 'project',
      });
      expect(body.id).to.be.a('string').and.not.equal('');
      expect(body.created_at).to.match(/^\d{4}-\d{2}-\d{2}T/);
      expect(res.headers.get('location')).to.equal(`/api/data/project/${body.id}`);
      const { '@type': _t, ...stored } = body;
      expect(ok(await rest(s, 'GET', `/project/${body.id}`))).to.deep.equal({ ...stored, '@type': 'project' });
    });

    it('an @type naming the object is accepted, so a record read can be sent back', async () => {
      const body = ok(await rest(s, 'POST', '/account', { name: 'Typed Ltd', '@type': 'account' }), 201);
      expect(body).to.include({ name: 'Typed Ltd', '@type': 'account' });
    });

    it('an array body creates many: {items, count, @type}', async () => {
      const body = ok(await rest(s, 'POST', '/account', [{ name: 'Many One' }, { name: 'Many Two', industry: 'retail' }]), 201);
      expect(Object.keys(body).sort()).to.deep.equal(['@type', 'count', 'items']);
      expect(body.count).to.equal(2);
      expect(body['@type']).to.equal('account');
      expect(body.items.map((a: any) => [a.name, a.active])).to.deep.equal([
        ['Many One', true],
        ['Many Two', true],
      ]);
      expect(body.items[0]).not.to.have.property('@type');
    });

    it('lists the items that failed in errors, and creates the others', async () => {
      const body = ok(await rest(s, 'POST', '/account', [{ name: 'Batch Ok' }, { name: 'Acme Corporation' }, { industry: 'nope' }]), 201);
      expect(body.count).to.equal(1);
      expect(body.items.map((a: any) => a.name)).to.deep.equal(['Batch Ok']);
      expect(body.errors.map((e: any) => [e.index, e.error.code])).to.deep.equal([
        [1, 'CONFLICT'],
        [2, 'VALIDATION_ERROR'],
      ]);
      expect(body.errors[1].error.details.fields).to.have.keys('name', 'industry');
    });

    it('answers 200 when no item of an array could be created', async () => {
      const body = ok(await rest(s, 'POST', '/account', [{ name: 'Acme Corporation' }]), 200);
      expect(body).to.deep.include({ items: [], count: 0, '@type': 'account' });
      expect(body.errors).to.have.length(1);
    });
  });

  describe('PUT and PATCH /:object/:id', () => {
    it('PUT returns the changed fields with id, updated_at and @type', async () => {
      const p = await newProject({ budget: 100 });
      const body = ok(await rest(s, 'PUT', `/project/${p.id}`, { budget: 250, priority: 'high' }));
      expect(Object.keys(body).sort()).to.deep.equal(['@type', 'budget', 'id', 'priority', 'updated_at']);
      expect(body).to.include({ id: p.id, budget: 250, priority: 'high', '@type': 'project' });
      expect(ok(await rest(s, 'GET', `/project/${p.id}?fields=budget,priority`))).to.deep.equal({
        id: p.id,
        budget: 250,
        priority: 'high',
        '@type': 'project',
      });
    });

    it('PATCH does the same', async () => {
      const p = await newProject();
      const body = ok(await rest(s, 'PATCH', `/project/${p.id}`, { status: 'active' }));
      expect(Object.keys(body).sort()).to.deep.equal(['@type', 'id', 'status', 'updated_at']);
      expect(body.status).to.equal('active');
    });

    it('a body id equal to the path id is accepted', async () => {
      const p = await newProject();
      expect(ok(await rest(s, 'PUT', `/project/${p.id}`, { id: p.id, '@type': 'project', priority: 'low' }))).to.include({
        priority: 'low',
      });
    });

    it('validation failures are VALIDATION_ERROR naming the field', async () => {
      const p = await newProject();
      const res = await rest(s, 'PUT', `/project/${p.id}`, { budget: -1 });
      expectError(res, 400, 'VALIDATION_ERROR', 'budget');
      expect(res.body.error.details.fields).to.have.property('budget');
    });

    it('an unknown record is 404', async () => {
      expectError(await rest(s, 'PUT', '/project/prj-nothing', { priority: 'low' }), 404, 'NOT_FOUND', 'prj-nothing');
    });
  });

  describe('DELETE /:object/:id', () => {
    it('returns {id, deleted: true, @type}; the record is gone', async () => {
      const p = await newProject();
      expect(ok(await rest(s, 'DELETE', `/project/${p.id}`))).to.deep.equal({ id: p.id, deleted: true, '@type': 'project' });
      expectError(await rest(s, 'GET', `/project/${p.id}`), 404, 'NOT_FOUND', p.id);
      expectError(await rest(s, 'DELETE', `/project/${p.id}`), 404, 'NOT_FOUND', p.id);
    });
  });

  describe('bulk routes', () => {
    it('bulk-update {filters, data} → {count, @type}', async () => {
      const made = [await newProject({ tags: ['research'] }), await newProject({ tags: ['research'] })];
      const filters = { id: ['in', made.map((p) => p.id)] };
      expect(ok(await rest(s, 'POST', '/project/bulk-update', { filters, data: { priority: 'urgent' } }))).to.deep.equal({
        count: 2,
        '@type': 'project',
      });
      const after = ok(await list(s, 'project', { filter: JSON.stringify(filters), fields: 'priority' }));
      expect(after.items.map((p: any) => p.priority)).to.deep.equal(['urgent', 'urgent']);
    });

    it('bulk-update lists the records that failed and changes the others', async () => {
      const planning = await newProject();
      const done = await newProject({ status: 'done', start_date: '2024-01-01', end_date: '2024-02-01' });
      const body = ok(
        await rest(s, 'POST', '/project/bulk-update', { filters: [['id', 'in', [planning.id, done.id]]], data: { status: 'active' } }),
      );
      expect(body.count).to.equal(1);
      expect(body['@type']).to.equal('project');
      expect(body.errors.map((e: any) => [e.id, e.error.code])).to.deep.equal([[done.id, 'VALIDATION_ERROR']]);
      expect(ok(await rest(s, 'GET', `/project/${planning.id}?fields=status`)).status).to.equal('active');
    });

    it('bulk-delete {filters} → {count, @type}', async () => {
      const made = [await newProject(), await newProject(), await newProject()];
      const filters = [['id', 'in', made.map((p) => p.id)]];
      expect(ok(await rest(s, 'POST', '/project/bulk-delete', { filters }))).to.deep.equal({ count: 3, '@type': 'project' });
      expect(ok(await list(s, 'project', { filter: JSON.stringify(filters) })).meta.total).to.equal(0);
    });

    it('a filter matching nothing counts 0', async () => {
      expect(ok(await rest(s, 'POST', '/project/bulk-delete', { filters: { name: 'no such project' } }))).to.deep.equal({
        count: 0,
        '@type': 'project',
      });
    });
  });

  it('lists its routes at the discovery route', async () => {
    const body = ok(await s.request('GET', '/.well-known/objectql'));
    const entry = body.capabilities.find((c: any) => c.plugin === 'rest');
    expect(entry).to.deep.equal({
      plugin: 'rest',
      protocol: 'rest',
      routes: [
        'GET /api/data/:object',
        'POST /api/data/:object',
        'POST /api/data/:object/bulk-update',
        'POST /api/data/:object/bulk-delete',
        'GET /api/data/:object/:id',
        'PUT /api/data/:object/:id',
        'PATCH /api/data/:object/:id',
        'DELETE /api/data/:object/:id',
      ],
      listParameters: ['filter', 'sort', 'top', 'skip', 'limit', 'fields', 'expand', 'groupBy', 'aggregate'],
    });
  });
});

describe('REST under a configured prefix', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ plugins: { rest: true }, routes: { data: '/v2/data' } }, { identityFromHeader: true });
  });
  after(async () => {
    await s?.stop();
  });

  it('serves every route under routes.data and nothing under the default', async () => {
    expect(s.kernel.config.routes.data).to.equal('/v2/data');
    const body = ok(await rest(s, 'GET', '/project/prj-apollo?fields=name', undefined, USERS.carol));
    expect(body).to.deep.equal({ id: 'prj-apollo', name: 'Apollo Website Relaunch', '@type': 'project' });
    const created = await rest(s, 'POST', '/account', { name: 'Prefixed' }, USERS.carol);
    expect(created.headers.get('location')).to.equal(`/v2/data/account/${created.body.id}`);
    expectError(await s.request('GET', '/api/data/project', undefined, { 'x-test-user': JSON.stringify(USERS.carol) }), 404, 'NOT_FOUND');
  });
});
