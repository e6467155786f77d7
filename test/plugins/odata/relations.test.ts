/**
 * Relationships over OData, end to end on SQLite and PostgreSQL with the sample application:
 * navigation paths in $filter and $orderby, lambdas over one-to-many navigation properties and
 * multiple-valued properties, $expand of one-to-many navigation properties with nested options
 * and counts (one query per relation and level), `Set('id')/<collection>`, and what each caller
 * may reach: a path, lambda or expand through an object or field they may not read is refused,
 * never answered with an empty result.
 */
import { expect } from 'chai';
import { driverCalls } from '../../helpers/driver-calls';
import { USERS } from '../../helpers/server';
import { describeOnDatabases, expectODataError, key, ok, parseEdmx, plain, query, od } from './helpers';

const ids = (body: any): string[] => body.value.map((r: any) => r.id);

describeOnDatabases('OData relationships', (server) => {
  describe('navigation paths in $filter and $orderby', () => {
    it('filters through to-one navigation properties, to any depth the limit allows', async () => {
      const gemini = ok(await query(server(), '/task', { $filter: "project_nav/name eq 'Gemini Plant Monitoring'", $orderby: 'id' }));
      expect(ids(gemini)).to.deep.equal(['tsk-gemini-kickoff', 'tsk-gemini-research']);
      const acme = ok(await query(server(), '/task', { $filter: "project_nav/account_nav/name eq 'Acme Corporation'", $orderby: 'id' }));
      expect(ids(acme)).to.deep.equal(['tsk-apollo-api', 'tsk-apollo-design', 'tsk-apollo-launch']);
      const mixed = await query(server(), '/task', {
        $filter: "contains(project_nav/name, 'ledger') or (project_nav/budget gt 100000 and estimate_hours ge 12)",
        $orderby: 'id',
      });
      expect(ids(ok(mixed))).to.deep.equal(['tsk-apollo-api', 'tsk-apollo-design', 'tsk-mercury-handover']);
      expect((await query(server(), '/task/$count', { $filter: "project_nav/status eq 'planning'" })).body).to.equal(2);
      const deep = await query(server(), '/task', { $filter: "project_nav/account_nav/name eq 'x'" }, USERS.carol);
      expect(ok(deep).value).to.deep.equal([]);
    });

    it('orders by a property of the related record', async () => {
      const body = ok(await query(server(), '/task', { $orderby: 'project_nav/name desc,id', $select: 'id' }));
      expect(ids(body)).to.deep.equal([
        'tsk-mercury-handover',
        'tsk-gemini-kickoff',
        'tsk-gemini-research',
        'tsk-apollo-api',
        'tsk-apollo-design',
        'tsk-apollo-launch',
      ]);
    });
  });

  describe('lambdas', () => {
    it('any / all over a one-to-many navigation property', async () => {
      const done = ok(await query(server(), '/project', { $filter: "tasks/any(t: t/status eq 'done')", $orderby: 'id' }));
      expect(ids(done)).to.deep.equal(['prj-apollo', 'prj-mercury']);
      const small = ok(await query(server(), '/project', { $filter: 'tasks/all(t: t/estimate_hours lt 20)', $orderby: 'id' }));
      expect(ids(small)).to.deep.equal(['prj-gemini', 'prj-mercury']);
      expect(ids(ok(await query(server(), '/project', { $filter: 'tasks/any()', $orderby: 'id' })))).to.have.length(3);
      expect(ids(ok(await query(server(), '/project', { $filter: 'not expenses/any()' })))).to.deep.equal(['prj-gemini']);
      const nested = await query(server(), '/account', { $filter: "projects/any(p: p/tasks/any(t: t/assignee eq 'bob'))", $orderby: 'id' });
      expect(ids(ok(nested))).to.deep.equal(['acc-acme', 'acc-globex']);
    });

    it('any / all over a multiple-valued property test membership', async () => {
      const infra = ok(await query(server(), '/project', { $filter: "tags/any(t: t eq 'infrastructure')", $orderby: 'id' }));
      expect(ids(infra)).to.deep.equal(['prj-gemini', 'prj-mercury']);
      const either = ok(await query(server(), '/project', { $filter: "tags/any(t: t eq 'customer' or t eq 'research')", $orderby: 'id' }));
      expect(ids(either)).to.deep.equal(['prj-apollo', 'prj-gemini']);
      expect(ids(ok(await query(server(), '/project', { $filter: "tags/all(t: t ne 'infrastructure')" })))).to.deep.equal(['prj-apollo']);
      const refused = expectODataError(
        await query(server(), '/project', { $filter: "tags/any(t: t ne 'x')" }),
        400,
        'INVALID_REQUEST',
        'tags/any',
      );
      expect(refused.details[0].target).to.equal('tags');
    });
  });

  describe('$expand of one-to-many navigation properties', () => {
    it('expands with nested $filter, $orderby, $top, $skip, $count and $select', async () => {
      const body = ok(
        await query(server(), '/project', {
          $select: 'name',
          $orderby: 'id',
          $expand: "tasks($filter=status ne 'done';$orderby=estimate_hours desc;$top=1;$count=true;$select=title)",
        }),
      );
      expect(body.value.map((p: any) => [p.id, p['tasks@odata.count'], plain(p.tasks)])).to.deep.equal([
        ['prj-apollo', 2, [{ id: 'tsk-apollo-api', title: 'Build the content API' }]],
        ['prj-gemini', 2, [{ id: 'tsk-gemini-research', title: 'Survey sensor vendors' }]],
        ['prj-mercury', 0, []],
      ]);
      // The count goes just before the collection, and entities keep their control information.
      const apollo = body.value[0];
      expect(Object.keys(apollo).slice(-2)).to.deep.equal(['tasks@odata.count', 'tasks']);
      const whole = ok(await query(server(), `/project${key('prj-apollo')}`, { $expand: 'tasks' }));
      expect(whole.tasks).to.have.length(3);
      expect(whole.tasks[0]).to.have.property('@odata.etag');
      expect(whole.tasks[0].project).to.equal('prj-apollo');
      expect(apollo).not.to.have.property('tasks@count');
      const skipped = ok(await query(server(), `/project${key('prj-apollo')}`, { $expand: 'tasks($orderby=title;$skip=1;$select=title)' }));
      expect(skipped.tasks.map((t: any) => t.title)).to.deep.equal(['Design the new landing page', 'Plan the launch']);
    });

    it('nests expands both ways, JSON-valued properties as JSON text', async () => {
      const body = ok(
        await query(server(), `/account${key('acc-acme')}`, {
          $expand: 'projects($select=name,settings;$expand=tasks($select=title;$top=1;$orderby=title))',
        }),
      );
      const [apollo] = body.projects;
      expect(Object.keys(plain(apollo)).sort()).to.deep.equal(['id', 'name', 'settings', 'tasks']);
      expect(apollo.settings).to.be.a('string');
      expect(plain(apollo.tasks)).to.deep.equal([{ id: 'tsk-apollo-api', title: 'Build the content API' }]);
      // The lookup back to the parent, expanded inside the one-to-many expand.
      const back = ok(
        await query(server(), `/account${key('acc-acme')}`, { $expand: 'projects($select=name;$expand=account_nav($select=name))' }),
      );
      expect(plain(back.projects)).to.deep.equal([
        { id: 'prj-apollo', name: 'Apollo Website Relaunch', account_nav: { id: 'acc-acme', name: 'Acme Corporation' } },
      ]);
      const up = ok(
        await query(server(), `/task${key('tsk-apollo-api')}`, { $expand: 'project_nav($select=name;$expand=milestones($select=id))' }),
      );
      expect(plain(up.project_nav)).to.deep.equal({
        id: 'prj-apollo',
        name: 'Apollo Website Relaunch',
        milestones: [{ id: 'ms-apollo-beta' }],
      });
    });

    it('reads one query per relation and level, whatever the number of parents', async () => {
      const s = server();
      const calls = await driverCalls(s, () => query(s, '/account', { $expand: 'projects($expand=tasks)' }));
      expect(calls.find).to.equal(3);
      // With counts: one more query for the related counts (beside the list's own total).
      const counted = await driverCalls(s, () => query(s, '/project', { $expand: 'tasks($count=true)' }));
      expect(counted.find).to.equal(2);
      expect((counted.count ?? 0) + (counted.aggregate ?? 0)).to.be.at.most(2);
    });

    it("serves Set('id')/<collection> with the query options", async () => {
      const body = ok(
        await query(server(), `/project${key('prj-apollo')}/tasks`, { $orderby: 'title desc', $count: 'true', $select: 'title' }),
      );
      expect(body['@odata.count']).to.equal(3);
      expect(body.value.map((t: any) => t.title)).to.deep.equal([
        'Plan the launch',
        'Design the new landing page',
        'Build the content API',
      ]);
      expectODataError(await od(server(), 'GET', `/project${key('prj-nope')}/tasks`), 404, 'NOT_FOUND', 'prj-nope');
    });
  });

  describe('what each caller may reach', () => {
    it('applies the record scope of the related object: a member sees through only what they may see', async () => {
      // alice sees her own projects and the tasks assigned to her: bob's tasks are not there to match.
      expect(ids(ok(await query(server(), '/project', { $filter: "tasks/any(t: t/assignee eq 'bob')" }, USERS.alice)))).to.deep.equal([]);
      const body = ok(
        await query(server(), `/project${key('prj-apollo')}`, { $expand: 'tasks($select=assignee;$count=true)' }, USERS.alice),
      );
      expect(body['tasks@odata.count']).to.equal(2);
      expect(body.tasks.map((t: any) => t.assignee)).to.deep.equal(['alice', 'alice']);
    });

    it('refuses a path, lambda or expand through an object the caller may not read: FORBIDDEN', async () => {
      // Members may not read expenses; callers without a role may not read projects.
      const cases: Array<[string, Record<string, string>, any]> = [
        ['/project', { $filter: 'expenses/any()' }, USERS.alice],
        ['/project', { $expand: 'expenses' }, USERS.alice],
        ['/milestone', { $filter: "project_nav/id eq 'prj-apollo'" }, USERS.nobody],
        ['/account', { $expand: 'projects' }, USERS.nobody],
        ['/account', { $filter: 'projects/any()' }, USERS.nobody],
      ];
      for (const [path, params, user] of cases) {
        const res = await query(server(), path, params, user);
        expect(res.status, `${path} ${JSON.stringify(params)}: ${JSON.stringify(res.body)}`).to.equal(403);
        expectODataError(res, 403, 'FORBIDDEN');
      }
      // Whatever is named inside, the answer is the one reading the object itself gets: nothing of its fields is told.
      const direct = expectODataError(await query(server(), '/expense', {}, USERS.alice), 403, 'FORBIDDEN', "'expense'");
      for (const inner of ['e/amount gt 1', 'e/nosuch gt 1']) {
        const res = await query(server(), '/project', { $filter: `expenses/all(e: ${inner})` }, USERS.alice);
        expect(expectODataError(res, 403, 'FORBIDDEN')).to.deep.equal(direct);
      }
      const anonymous = await query(server(), '/milestone', { $filter: "project_nav/name eq 'x'" }, null);
      expectODataError(anonymous, 401, 'UNAUTHORIZED', "'project'");
    });

    it('refuses a path, lambda or sort through a field the caller may not read: 400 naming it', async () => {
      const cases: Array<[string, Record<string, string>]> = [
        ['/task', { $filter: 'project_nav/actual_cost gt 0' }],
        ['/task', { $orderby: 'project_nav/actual_cost' }],
        ['/account', { $filter: 'projects/any(p: p/actual_cost gt 0)' }],
        ['/account', { $expand: 'projects($filter=actual_cost gt 0)' }],
        ['/account', { $expand: 'projects($orderby=actual_cost)' }],
      ];
      for (const [path, params] of cases) {
        const error = expectODataError(await query(server(), path, params, USERS.alice), 400, 'INVALID_REQUEST', 'actual_cost');
        expect(error.details[0].target, JSON.stringify(params)).to.equal('actual_cost');
      }
      // The same queries work for a caller who may read the field.
      ok(await query(server(), '/task', { $filter: 'project_nav/actual_cost gt 0' }, USERS.carol));
    });

    it('describes in $metadata only the navigation properties the caller may follow', async () => {
      const member = parseEdmx((await od(server(), 'GET', '/$metadata', undefined, USERS.alice)).body);
      expect(Object.keys(member.types.project.navigations).sort()).to.deep.equal(['account_nav', 'milestones', 'tasks']);
      const none = parseEdmx((await od(server(), 'GET', '/$metadata', undefined, USERS.nobody)).body);
      expect(Object.keys(none.types.account.navigations)).to.deep.equal(['contacts']);
      expect(none.types.contact.navigations.account_nav.partner).to.equal('contacts');
    });
  });
});
