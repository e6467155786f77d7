/**
 * $apply (OData Data Aggregation) end to end, on SQLite and PostgreSQL: groupby, aggregate with
 * each method and $count, filter before and after the grouping, topcount / bottomcount, chaining,
 * the system options after $apply, permissions and record scope, and the errors. Every grouped
 * answer is compared with JSON-RPC's aggregate of the same data as the same user; the last part
 * goes through @odata/client's own $apply builder (Transformation).
 */
import { OData } from '@odata/client';
import { expect } from 'chai';
import { identityHeader, USERS, type TestServer } from '../../helpers/server';
import { BASE, describeOnDatabases, expectODataError, ok, query, type Caller } from './helpers';

/** JSON-RPC's aggregate rows for the same question. */
async function rpcRows(s: TestServer, object: string, args: Record<string, unknown>, user: Caller = USERS.carol): Promise<any[]> {
  const res = await s.rpc({ op: 'find', object, args }, identityHeader(user));
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.items;
}

const apply = (
  s: TestServer,
  set: string,
  text: string,
  extra: Record<string, string> = {},
  user: Caller = USERS.carol,
  headers: Record<string, string> = {},
) => query(s, `/${set}`, { $apply: text, ...extra }, user, headers);

describeOnDatabases('OData $apply', (server) => {
  it('groups and aggregates with every method and $count, as JSON-RPC aggregates', async () => {
    const body = ok(
      await apply(
        server(),
        'task',
        'groupby((status),aggregate(estimate_hours with sum as total,estimate_hours with average as mean,estimate_hours with min as least,estimate_hours with max as most,project with countdistinct as projects,$count as n))',
      ),
    );
    expect(body['@odata.context']).to.equal(`${BASE}/$metadata#task(status,total,mean,least,most,projects,n)`);
    const rpc = await rpcRows(server(), 'task', {
      groupBy: ['status'],
      aggregate: [
        { func: 'sum', field: 'estimate_hours', alias: 'total' },
        { func: 'avg', field: 'estimate_hours', alias: 'mean' },
        { func: 'min', field: 'estimate_hours', alias: 'least' },
        { func: 'max', field: 'estimate_hours', alias: 'most' },
        { func: 'countdistinct', field: 'project', alias: 'projects' },
        { func: 'count', alias: 'n' },
      ],
      sort: [['status', 'asc']],
    });
    expect(body.value).to.deep.equal(rpc);
    expect(body.value).to.deep.equal([
      { status: 'doing', total: 40, mean: 20, least: 16, most: 24, projects: 2, n: 2 },
      { status: 'done', total: 16, mean: 8, least: 4, most: 12, projects: 2, n: 2 },
      { status: 'todo', total: 8, mean: 4, least: 2, most: 6, projects: 2, n: 2 },
    ]);
    for (const row of body.value) expect(row).not.to.have.property('id');
  });

  it('aggregates the whole set without groupby, and groups without aggregates (distinct values)', async () => {
    const all = ok(await apply(server(), 'task', 'aggregate(estimate_hours with sum as total,$count as n)'));
    expect(all['@odata.context']).to.equal(`${BASE}/$metadata#task(total,n)`);
    expect(all.value).to.deep.equal([{ total: 64, n: 6 }]);
    const distinct = ok(await apply(server(), 'task', 'groupby((project,status))', { $count: 'true' }));
    expect(distinct['@odata.count']).to.equal(6);
    expect(distinct.value[0]).to.deep.equal({ project: 'prj-apollo', status: 'doing' });
  });

  it('filters before grouping (the engine filter) and after it on the aliases, chained with /', async () => {
    const before = ok(
      await apply(server(), 'task', "filter(status ne 'done')/groupby((project),aggregate(estimate_hours with sum as total))"),
    );
    const rpc = await rpcRows(server(), 'task', {
      filters: [['status', '!=', 'done']],
      groupBy: ['project'],
      aggregate: [{ func: 'sum', field: 'estimate_hours', alias: 'total' }],
      sort: 'project',
    });
    expect(before.value).to.deep.equal(rpc);
    expect(before.value).to.deep.equal([
      { project: 'prj-apollo', total: 30 },
      { project: 'prj-gemini', total: 18 },
    ]);
    const after = ok(
      await apply(
        server(),
        'task',
        'groupby((project),aggregate(estimate_hours with sum as total,$count as n))/filter(total gt 10 and n ge 2)',
        {
          $count: 'true',
        },
      ),
    );
    expect(after['@odata.count']).to.equal(2);
    expect(after.value).to.deep.equal([
      { project: 'prj-apollo', total: 42, n: 3 },
      { project: 'prj-gemini', total: 18, n: 2 },
    ]);
    // filter() alone narrows the entity set: the answer is entities, with every other option.
    const entities = ok(await apply(server(), 'task', 'filter(estimate_hours ge 16)', { $select: 'title', $orderby: 'title' }));
    expect(entities.value.map((t: any) => t.title)).to.deep.equal(['Build the content API', 'Survey sensor vendors']);
  });

  it('keeps the top and bottom groups with topcount and bottomcount', async () => {
    const top = ok(await apply(server(), 'task', 'groupby((assignee),aggregate(estimate_hours with sum as hours))/topcount(1,hours)'));
    expect(top.value).to.deep.equal([{ assignee: 'bob', hours: 42 }]);
    const bottom = ok(
      await apply(
        server(),
        'task',
        'groupby((project),aggregate(estimate_hours with sum as hours))/bottomcount(2,hours)/filter(hours gt 5)',
      ),
    );
    expect(bottom.value).to.deep.equal([{ project: 'prj-gemini', hours: 18 }]);
  });

  it('orders, pages and counts the groups with $orderby (aliases too), $top, $skip, $count and $filter after $apply', async () => {
    const text = 'groupby((project),aggregate(estimate_hours with sum as hours))';
    const page = ok(await apply(server(), 'task', text, { $orderby: 'hours desc', $top: '2', $skip: '1', $count: 'true' }));
    expect(page['@odata.count']).to.equal(3);
    expect(page.value).to.deep.equal([
      { project: 'prj-gemini', hours: 18 },
      { project: 'prj-mercury', hours: 4 },
    ]);
    expect(page).not.to.have.property('@odata.nextLink');
    const filtered = ok(await apply(server(), 'task', text, { $filter: 'hours lt 20', $orderby: 'project desc', $select: 'project' }));
    expect(filtered['@odata.context']).to.equal(`${BASE}/$metadata#task(project)`);
    expect(filtered.value).to.deep.equal([{ project: 'prj-mercury' }, { project: 'prj-gemini' }]);
  });

  it('pages the groups with Prefer: odata.maxpagesize and a nextLink that gives the rest', async () => {
    const text = 'groupby((project),aggregate($count as n))';
    const first = await apply(server(), 'task', text, { $count: 'true' }, USERS.carol, { prefer: 'odata.maxpagesize=2' });
    const body = ok(first);
    expect(first.headers.get('preference-applied')).to.equal('odata.maxpagesize=2');
    expect(body.value.map((r: any) => r.project)).to.deep.equal(['prj-apollo', 'prj-gemini']);
    const next: string = body['@odata.nextLink'];
    expect(next.startsWith(`${BASE}/task?`)).to.equal(true);
    const second = ok(await server().request('GET', next, undefined, identityHeader(USERS.carol)));
    expect(second.value).to.deep.equal([{ project: 'prj-mercury', n: 1 }]);
    expect(second['@odata.count']).to.equal(3);
    expect(second).not.to.have.property('@odata.nextLink');
  });

  it('applies permissions: a field the caller may not read is refused by name, record scope narrows the groups', async () => {
    expectODataError(await apply(server(), 'project', 'groupby((actual_cost))', {}, USERS.alice), 400, 'INVALID_REQUEST', 'actual_cost');
    expectODataError(
      await apply(server(), 'project', 'aggregate(actual_cost with sum as spent)', {}, USERS.alice),
      400,
      'INVALID_REQUEST',
      'actual_cost',
    );
    expectODataError(
      await apply(server(), 'project', 'groupby((status))/filter(actual_cost gt 0)', {}, USERS.alice),
      400,
      'INVALID_REQUEST',
      'actual_cost',
    );
    // alice sees her own tasks only: the groups are over those.
    const mine = ok(await apply(server(), 'task', 'groupby((assignee),aggregate($count as n))', {}, USERS.alice));
    expect(mine.value).to.deep.equal(
      await rpcRows(server(), 'task', { groupBy: ['assignee'], aggregate: [{ func: 'count', alias: 'n' }] }, USERS.alice),
    );
    expect(mine.value).to.deep.equal([{ assignee: 'alice', n: 3 }]);
    expectODataError(await apply(server(), 'task', 'aggregate($count as n)', {}, null), 401, 'UNAUTHORIZED');
  });

  it('refuses what it does not serve, naming it', async () => {
    const cases: Array<[string, string[], Record<string, string>?]> = [
      ['groupby((project_nav/name))', ['project_nav/name', 'navigation']],
      ['groupby((status),aggregate(estimate_hours with sum as s))/groupby((s))', ['one grouping']],
      ['concat(identity,identity)', ["'concat'", 'not supported']],
      ['aggregate(estimate_hours as s)', ["'with'"]],
      ['aggregate(estimate_hours with median as s)', ['median']],
      ['aggregate(title with sum as s)', ['numeric', 'title']],
      ['aggregate(estimate_hours with sum)', ["'as'"]],
      ['groupby((status),aggregate($count as status))', ["'status'", 'twice']],
      ['groupby((nope))', ['nope']],
      ['topcount(2,estimate_hours)', ['topcount', '$orderby']],
      ['groupby((status))/filter(nope eq 1)', ['nope']],
      ['groupby((status))', ['$expand'], { $expand: 'project_nav' }],
      [`filter(${'title eq 1 or '.repeat(400)}title eq 1)`, ['4096']],
    ];
    for (const [text, named, extra] of cases) {
      const error = expectODataError(await apply(server(), 'task', text, extra), 400, 'INVALID_REQUEST', ...named);
      expect(error.details[0].target, text).to.be.a('string');
    }
    expectODataError(await query(server(), '/task/$count', { $apply: 'aggregate($count as n)' }), 400, 'INVALID_REQUEST', '$apply');
  });
});

describeOnDatabases('OData $apply through @odata/client', (server) => {
  it("builds $apply with the client's Transformation and reads the groups", async () => {
    const client = OData.New4({ serviceEndpoint: `${server().url}${BASE}/`, commonHeaders: identityHeader(USERS.carol) });
    const t = client.newTransformation();
    const params = client
      .newOptions()
      .apply([
        client.newTransformation().filter(client.newFilter().property('done').eq(false)),
        t.groupBy(['project'], client.newTransformation().aggregate('estimate_hours with sum as hours,$count as n')),
      ])
      .count(true);
    const page: any = await client.newRequest({ collection: 'task', params });
    expect(page['@odata.count']).to.equal(2);
    const rpc = await rpcRows(server(), 'task', {
      filters: [['done', '=', false]],
      groupBy: ['project'],
      aggregate: [
        { func: 'sum', field: 'estimate_hours', alias: 'hours' },
        { func: 'count', alias: 'n' },
      ],
      sort: 'project',
    });
    expect(page.value).to.deep.equal(rpc);
    expect(rpc).to.have.length(2);
  });
});
