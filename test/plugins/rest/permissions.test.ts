/**
 * Permissions through REST, with the identity of the request (X-Test-User through the
 * authenticate hook): record scopes, hidden and read-only fields, operations a role may not do,
 * and admins. Denied writes leave the store exactly as it was.
 */
import { expect } from 'chai';
import { USERS, type TestServer } from '../../helpers/server';
import { expectError, ids, list, ok, rest, snapshot, startRestServer } from './helpers';

describe('REST permissions', () => {
  let s: TestServer;

  before(async () => {
    s = await startRestServer();
  });
  after(async () => {
    await s?.stop();
  });

  describe('alice, a member', () => {
    const alice = USERS.alice;

    it('lists only her projects, without actual_cost', async () => {
      const body = ok(await list(s, 'project', { sort: 'id' }, alice));
      expect(ids(body)).to.deep.equal(['prj-apollo', 'prj-mercury']);
      expect(body.meta.total).to.equal(2);
      for (const p of body.items) {
        expect(p.owner).to.equal('alice');
        expect(p).to.have.property('budget');
        expect(p).not.to.have.property('actual_cost');
      }
    });

    it('reads her own project without actual_cost; a project outside her scope is 404', async () => {
      const mine = ok(await rest(s, 'GET', '/project/prj-apollo', undefined, alice));
      expect(mine).to.include({ id: 'prj-apollo', '@type': 'project' });
      expect(mine).not.to.have.property('actual_cost');
      expectError(await rest(s, 'GET', '/project/prj-gemini', undefined, alice), 404, 'NOT_FOUND', 'prj-gemini');
    });

    it('cannot filter, sort, select or group by the hidden field', async () => {
      expectError(await list(s, 'project', { filter: '[["actual_cost",">",0]]' }, alice), 400, 'INVALID_REQUEST', 'actual_cost');
      expectError(await list(s, 'project', { sort: '-actual_cost' }, alice), 400, 'INVALID_REQUEST', 'sort', 'actual_cost');
      expectError(await list(s, 'project', { fields: 'name,actual_cost' }, alice), 400, 'INVALID_REQUEST', 'actual_cost');
      expectError(
        await list(s, 'project', { groupBy: 'actual_cost', aggregate: '[{"func":"count","alias":"n"}]' }, alice),
        400,
        'INVALID_REQUEST',
        'actual_cost',
      );
      expectError(await rest(s, 'GET', '/project/prj-apollo?fields=actual_cost', undefined, alice), 400, 'INVALID_REQUEST', 'actual_cost');
    });

    it('sees only her tasks, and no expenses at all', async () => {
      expect(ids(ok(await list(s, 'task', { sort: 'id' }, alice)))).to.deep.equal([
        'tsk-apollo-design',
        'tsk-apollo-launch',
        'tsk-mercury-handover',
      ]);
      expectError(await list(s, 'expense', {}, alice), 403, 'FORBIDDEN', 'expense');
    });

    it("may edit her project but not its budget, nor another member's project, nor delete", async () => {
      const before = await snapshot(s);
      const forbidden = await rest(s, 'PUT', '/project/prj-apollo', { budget: 1 }, alice);
      expectError(forbidden, 403, 'FORBIDDEN', 'budget');
      expect(forbidden.body.error.details).to.include({ field: 'budget', required_permission: 'allow_edit' });
      expectError(await rest(s, 'PUT', '/project/prj-gemini', { priority: 'low' }, alice), 404, 'NOT_FOUND', 'prj-gemini');
      expectError(await rest(s, 'DELETE', '/project/prj-apollo', undefined, alice), 403, 'FORBIDDEN', 'project');
      expectError(await rest(s, 'POST', '/project/bulk-delete', { filters: {} }, alice), 403, 'FORBIDDEN', 'project');
      expectError(await rest(s, 'POST', '/project', { name: 'For Bob', owner: 'bob' }, alice), 403, 'FORBIDDEN', 'project');
      expect(await snapshot(s)).to.deep.equal(before);

      const changed = ok(await rest(s, 'PATCH', '/project/prj-mercury', { priority: 'medium' }, alice));
      expect(changed).to.include({ id: 'prj-mercury', priority: 'medium', '@type': 'project' });
    });

    it('bulk-update reaches only the records in her scope', async () => {
      const body = ok(await rest(s, 'POST', '/task/bulk-update', { filters: {}, data: { estimate_hours: 7 } }, alice));
      expect(body).to.deep.equal({ count: 3, '@type': 'task' });
      const all = ok(await list(s, 'task', { fields: 'estimate_hours', sort: 'id' }, USERS.admin)).items;
      expect(all.filter((t: any) => t.estimate_hours === 7).map((t: any) => t.id)).to.deep.equal([
        'tsk-apollo-design',
        'tsk-apollo-launch',
        'tsk-mercury-handover',
      ]);
    });

    it('a project she creates is hers', async () => {
      const body = ok(await rest(s, 'POST', '/project', { name: 'Alice via REST' }, alice), 201);
      expect(body).to.include({ owner: 'alice', created_by: 'alice' });
      expect(body).not.to.have.property('actual_cost');
    });
  });

  describe('a viewer', () => {
    const viewer = USERS.viewer;

    it('reads everything, including actual_cost', async () => {
      expect(ok(await list(s, 'project', {}, viewer)).meta.total).to.be.at.least(3);
      expect(ok(await rest(s, 'GET', '/project/prj-gemini', undefined, viewer))).to.have.property('actual_cost', 0);
    });

    it('cannot write through any route: 403, nothing changed', async () => {
      const before = await snapshot(s);
      const attempts: Array<[string, string, unknown]> = [
        ['POST', '/project', { name: 'Viewer project' }],
        ['POST', '/project', [{ name: 'Viewer project' }]],
        ['PUT', '/project/prj-gemini', { priority: 'low' }],
        ['PATCH', '/project/prj-gemini', { priority: 'low' }],
        ['DELETE', '/project/prj-gemini', undefined],
        ['POST', '/project/bulk-update', { filters: {}, data: { priority: 'low' } }],
        ['POST', '/project/bulk-delete', { filters: {} }],
      ];
      for (const [method, path, body] of attempts) {
        const res = await rest(s, method, path, body, viewer);
        expectError(res, 403, 'FORBIDDEN', 'project');
        expect(res.body.error.details.user_roles, `${method} ${path}`).to.deep.equal(['viewer']);
      }
      expect(await snapshot(s)).to.deep.equal(before);
    });
  });

  describe('anonymous callers and admins', () => {
    it('an anonymous caller may read an object without a permission file, not one with (401: authenticate and retry)', async () => {
      expect(ok(await list(s, 'account', { sort: 'id', fields: 'name' }, null)).items[0]).to.deep.equal({
        id: 'acc-acme',
        name: 'Acme Corporation',
      });
      expectError(await list(s, 'project', {}, null), 401, 'UNAUTHORIZED', 'project');
      expectError(await rest(s, 'GET', '/project/prj-apollo', undefined, null), 401, 'UNAUTHORIZED', 'project');
    });

    it('an admin bypasses every check', async () => {
      const body = ok(await list(s, 'expense', { fields: 'amount', sort: 'id' }, USERS.admin));
      expect(body.meta.total).to.equal(3);
    });
  });
});
