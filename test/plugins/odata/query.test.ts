/**
 * OData query options through HTTP, on SQLite and PostgreSQL: $filter, $select (and the context
 * URL), $orderby, $top / $skip, $count, $expand through navigation properties (nested options,
 * depth limit), $search, $count with $filter, server-driven paging, and the error bodies of
 * malformed options and unknown or hidden properties.
 */
import { expect } from 'chai';
import { USERS } from '../../helpers/server';
import { BASE, describeOnDatabases, expectODataError, key, ok, query } from './helpers';

const ids = (body: any) => body.value.map((r: any) => r.id);

describeOnDatabases('OData query options', (server) => {
  it('filters with comparisons, logic and functions', async () => {
    expect(ids(ok(await query(server(), '/project', { $filter: "status eq 'active'" })))).to.deep.equal(['prj-apollo']);
    expect(
      ids(ok(await query(server(), '/project', { $filter: "budget gt 10000 and not (status eq 'active')", $orderby: 'id' }))),
    ).to.deep.equal(['prj-gemini']);
    expect(
      ids(ok(await query(server(), '/project', { $filter: "contains(name,'Ledger') or startswith(name,'Gem')", $orderby: 'id' }))),
    ).to.deep.equal(['prj-gemini', 'prj-mercury']);
    expect(ids(ok(await query(server(), '/project', { $filter: 'length(name) lt 24', $orderby: 'id' })))).to.deep.equal([
      'prj-apollo',
      'prj-gemini',
    ]);
    expect(ids(ok(await query(server(), '/project', { $filter: 'start_date ge 2025-01-01 and end_date eq null' })))).to.deep.equal([
      'prj-gemini',
    ]);
  });

  it('selects properties: the context URL lists them, the ETag stays without leaking timestamps', async () => {
    const body = ok(await query(server(), '/project', { $select: 'name,status', $orderby: 'id' }));
    expect(body['@odata.context']).to.equal(`${BASE}/$metadata#project(name,status)`);
    expect(body.value[0]).to.have.keys('@odata.etag', 'id', 'name', 'status');
    const one = ok(await query(server(), `/project${key('prj-apollo')}`, { $select: 'name' }));
    expect(one['@odata.context']).to.equal(`${BASE}/$metadata#project(name)/$entity`);
    expect(one).to.have.keys('@odata.context', '@odata.etag', 'id', 'name');
  });

  it('orders, pages and counts', async () => {
    const body = ok(await query(server(), '/project', { $orderby: 'budget desc', $top: '2', $skip: '1', $count: 'true' }));
    expect(ids(body)).to.deep.equal(['prj-gemini', 'prj-mercury']);
    expect(body['@odata.count']).to.equal(3);
    expect(Object.keys(body)).to.deep.equal(['@odata.context', '@odata.count', 'value']);
    expect(ok(await query(server(), '/project', { $count: 'true', $top: '0' }, USERS.alice))['@odata.count']).to.equal(2);
  });

  it('counts with $count and $filter or $search', async () => {
    expect((await query(server(), '/task/$count', { $filter: "project eq 'prj-apollo'" })).body).to.equal(3);
    expect((await query(server(), '/project/$count', { $search: 'ledger OR gemini' })).body).to.equal(2);
  });

  it('searches text properties case-insensitively, combined with $filter', async () => {
    expect(ids(ok(await query(server(), '/project', { $search: 'RELAUNCH' })))).to.deep.equal(['prj-apollo']);
    expect(ids(ok(await query(server(), '/project', { $search: 'monitoring OR migration', $filter: "priority eq 'low'" })))).to.deep.equal([
      'prj-mercury',
    ]);
  });

  it('expands a navigation property into it, keeping the foreign key', async () => {
    const body = ok(
      await query(server(), '/task', {
        $filter: "id eq 'tsk-apollo-api'",
        $expand: 'project_nav($select=name;$expand=account_nav($select=name))',
      }),
    );
    const task = body.value[0];
    expect(task.project).to.equal('prj-apollo');
    expect(task.project_nav).to.deep.include({ id: 'prj-apollo', name: 'Apollo Website Relaunch' });
    expect(task.project_nav.account_nav).to.deep.include({ id: 'acc-acme', name: 'Acme Corporation' });
    // A navigation property in $select is allowed beside its $expand.
    const selected = ok(
      await query(server(), `/task${key('tsk-apollo-api')}`, { $select: 'title,project_nav', $expand: 'project_nav($select=name)' }),
    );
    expect(selected).to.have.keys('@odata.context', '@odata.etag', 'id', 'title', 'project_nav');
    expect(selected['@odata.context']).to.equal(`${BASE}/$metadata#task(title,project_nav)/$entity`);
    // Without $select an expanded entity has its timestamps, and so its ETag.
    const whole = ok(await query(server(), `/task${key('tsk-apollo-api')}`, { $expand: 'project_nav' }));
    expect(whole.project_nav['@odata.etag']).to.equal(`W/"${new Date(whole.project_nav.updated_at).toISOString()}"`);
  });

  it('keeps the foreign key of a related record the caller may not see, with a null navigation property', async () => {
    // bob sees his tasks, among them one of alice's project Apollo, which he may not read.
    const body = ok(await query(server(), '/task', { $filter: "id eq 'tsk-apollo-api'", $expand: 'project_nav' }, USERS.bob));
    expect(body.value[0]).to.include({ project: 'prj-apollo', project_nav: null });
    const one = ok(await query(server(), `/task${key('tsk-apollo-api')}`, { $expand: 'project_nav', $select: 'project' }, USERS.bob));
    expect(one).to.include({ project: 'prj-apollo', project_nav: null });
    const noKey = ok(await query(server(), `/task${key('tsk-apollo-api')}`, { $expand: 'project_nav', $select: 'title' }, USERS.bob));
    expect(noKey).not.to.have.property('project');
  });

  it('expands by relation field name too: the related record replaces the id, as in the other protocols', async () => {
    const body = ok(await query(server(), `/project${key('prj-apollo')}`, { $expand: 'account($select=name)' }));
    expect(body.account).to.deep.include({ id: 'acc-acme', name: 'Acme Corporation' });
    expect(body).not.to.have.property('account_nav');
  });

  it('answers malformed options with INVALID_REQUEST naming the option', async () => {
    for (const [option, value] of [
      ['$filter', "name eq 'x"],
      ['$filter', 'name eq'],
      ['$orderby', 'name sideways'],
      ['$top', '-1'],
      ['$skip', 'x'],
      ['$count', 'yes'],
      ['$expand', 'project_nav($top=x)'],
    ]) {
      const error = expectODataError(await query(server(), '/task', { [option]: value }), 400, 'INVALID_REQUEST', option);
      expect(error.details[0].target, `${option}=${value}`).to.be.oneOf([option, 'name']);
    }
    expectODataError(await query(server(), '/project', { $top: '1001' }), 400, 'INVALID_REQUEST', '1000');
    expectODataError(await query(server(), '/project', { $apply: 'concat(identity)' }), 400, 'INVALID_REQUEST', '$apply');
  });

  it('answers unknown properties with INVALID_REQUEST naming them, and hidden ones exactly alike', async () => {
    const cases: Array<[string, (f: string) => string]> = [
      ['$filter', (f) => `${f} gt 1`],
      ['$select', (f) => `name,${f}`],
      ['$orderby', (f) => `${f} desc`],
      ['$expand', (f) => `account_nav($select=${f})`],
    ];
    for (const [option, value] of cases) {
      const target = option === '$expand' ? 'account' : 'project';
      const hiddenField = target === 'project' ? 'actual_cost' : null;
      const unknown = await query(server(), '/project', { [option]: value('no_such_field') }, USERS.alice);
      expectODataError(unknown, 400, 'INVALID_REQUEST', 'no_such_field');
      if (!hiddenField) continue;
      const hidden = await query(server(), '/project', { [option]: value(hiddenField) }, USERS.alice);
      expect(hidden.status).to.equal(400);
      expect(JSON.stringify(hidden.body).split(hiddenField).join('no_such_field'), option).to.equal(JSON.stringify(unknown.body));
    }
    expectODataError(await query(server(), '/project', { $expand: 'owner' }), 400, 'INVALID_REQUEST', 'owner');
  });

  it('ignores custom query options', async () => {
    ok(await query(server(), '/project', { custom: 'x', $top: '1' }));
  });
});

describeOnDatabases(
  'OData server-driven paging',
  (server) => {
    it('pages a query without $top at limits.defaultTop and links to the rest', async () => {
      const first = ok(await query(server(), '/task', { $orderby: 'id', $count: 'true' }));
      expect(first.value).to.have.length(2);
      expect(first['@odata.count']).to.equal(6);
      const next: string = first['@odata.nextLink'];
      expect(next).to.equal(`${BASE}/task?%24orderby=id&%24count=true&%24skip=2`);
      const second = ok(
        await query(server(), next.slice(BASE.length).split('?')[0], Object.fromEntries(new URLSearchParams(next.split('?')[1]))),
      );
      expect(ids(second)).to.deep.equal(['tsk-apollo-launch', 'tsk-gemini-kickoff']);
      expect(second['@odata.nextLink']).to.include('%24skip=4');
      expect(ok(await query(server(), '/task', { $top: '2' }))).not.to.have.property('@odata.nextLink');
    });
  },
  {},
  { limits: { defaultTop: 2 } },
);
