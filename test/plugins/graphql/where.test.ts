/**
 * Typed filtering and sorting (docs/graphql.md, "Typed filters" and "Typed sorting"): `where`
 * and `orderBy` compile to the AST the spec's JSON forms compile to (unit), and give the same
 * rows as `filters` and `sort` on a real server, beside them on `<object>List`, under the
 * caller's permissions.
 */
import { expect } from 'chai';
import { parseFilter, parseSort } from '../../../kernel/protocol';
import { compileOrderBy, type OrderKey, type OrderShapes } from '../../../plugins/graphql/order-by';
import { compileWhere, type WhereShapes } from '../../../plugins/graphql/where';
import type { WhereKey } from '../../../plugins/graphql/where-sdl';
import { USERS, type TestServer } from '../../helpers/server';
import { gql, startGraphQLServer } from './helpers';

const field = (name: string): [string, { kind: 'field'; field: string }] => [name, { kind: 'field', field: name }];
const SHAPES: WhereShapes = new Map<string, Map<string, WhereKey>>([
  [
    'project',
    new Map<string, WhereKey>([
      ...['id', 'name', 'status', 'budget', 'owner', 'start_date'].map(field),
      ['account_record', { kind: 'one' as const, relation: 'account', target: 'account' }],
      ['tasks', { kind: 'many' as const, relation: 'tasks', target: 'task' }],
    ]),
  ],
  ['task', new Map(['id', 'title', 'status', 'done'].map(field))],
  ['account', new Map(['id', 'name'].map(field))],
]);
const ORDER: OrderShapes = new Map<string, Map<string, OrderKey>>([
  [
    'task',
    new Map<string, OrderKey>([
      ...['id', 'title'].map(field),
      ['project_record', { kind: 'one' as const, relation: 'project', target: 'project' }],
    ]),
  ],
  [
    'project',
    new Map<string, OrderKey>([
      ...['name', 'budget'].map(field),
      ['account_record', { kind: 'one' as const, relation: 'account', target: 'account' }],
    ]),
  ],
  ['account', new Map(['name'].map(field))],
]);
const LIMITS = { maxFilterDepth: 16, maxFilterConditions: 200 };
const where = (w: unknown, limits = LIMITS) => compileWhere('project', w, SHAPES, limits);

describe('GraphQL typed where and orderBy: the compiler', () => {
  it('gives the AST of the equivalent JSON filter, operator by operator', () => {
    const pairs: Array<[unknown, unknown]> = [
      [{ name: { eq: 'x' } }, [['name', '=', 'x']]],
      [{ name: { ne: 'x' } }, [['name', '!=', 'x']]],
      [
        { budget: { gt: 1, ge: 2, lt: 3, le: 4 } },
        [
          ['budget', '>', 1],
          ['budget', '>=', 2],
          ['budget', '<', 3],
          ['budget', '<=', 4],
        ],
      ],
      [{ status: { in: ['a', 'b'] } }, [['status', 'in', ['a', 'b']]]],
      [{ status: { nin: ['a'] } }, [['status', 'not in', ['a']]]],
      [{ name: { like: '%a%' } }, [['name', 'like', '%a%']]],
      [{ name: { startswith: 'a' } }, [['name', 'startswith', 'a']]],
      [{ name: { endswith: 'a' } }, [['name', 'endswith', 'a']]],
      [{ name: { contains: 'a' } }, [['name', 'contains', 'a']]],
      [{ budget: { between: [1, 2] } }, [['budget', 'between', [1, 2]]]],
      [{ owner: { eq: null } }, [['owner', '=', null]]],
      [{ owner: { ne: null } }, [['owner', '!=', null]]],
      [{ owner: { eq: '$current_user' } }, [['owner', '=', '$current_user']]],
      [{ status: { eq: 'a' }, budget: { gt: 1 } }, [['status', '=', 'a'], 'and', ['budget', '>', 1]]],
      [{ _or: [{ status: { eq: 'a' } }, { budget: { gt: 1 } }] }, [['status', '=', 'a'], 'or', ['budget', '>', 1]]],
      [
        { _and: [{ status: { eq: 'a' } }, { budget: { gt: 1 } }] },
        [
          ['status', '=', 'a'],
          ['budget', '>', 1],
        ],
      ],
      [{ _not: { status: { eq: 'a' } } }, ['not', [['status', '=', 'a']]]],
      [
        { _or: [{ _and: [{ name: { eq: 'a' } }, { budget: { gt: 1 } }] }, { _not: { owner: { eq: null } } }] },
        [
          [
            ['name', '=', 'a'],
            ['budget', '>', 1],
          ],
          'or',
          ['not', [['owner', '=', null]]],
        ],
      ],
    ];
    for (const [typed, json] of pairs) expect(where(typed), JSON.stringify(typed)).to.deep.equal(parseFilter(json));
  });

  it('tests for null with isnull, and asks nothing of {} (an empty _or matches nothing)', () => {
    expect(where({ owner: { isnull: true } })).to.deep.equal({ field: 'owner', op: 'isnull', value: true });
    expect(where({ owner: { isnull: false } })).to.deep.equal({ field: 'owner', op: 'isnull', value: false });
    expect(where({})).to.equal(undefined);
    expect(where({ name: {}, _and: [] })).to.equal(undefined);
    expect(where({ _or: [] })).to.deep.equal({ field: 'id', op: 'in', value: [] });
    expect(where({ _or: [{}, { name: { eq: 'a' } }] })).to.equal(undefined);
  });

  it('compiles relations to the kernel RelationCondition: _record → any; some/every/none → any/all/not any', () => {
    expect(where({ account_record: { name: { eq: 'Acme' } } })).to.deep.equal({
      relation: 'account',
      quantifier: 'any',
      filter: { field: 'name', op: 'eq', value: 'Acme' },
    });
    expect(where({ account_record: {} })).to.deep.equal({ relation: 'account', quantifier: 'any' });
    const done = { field: 'status', op: 'eq', value: 'done' };
    expect(where({ tasks: { some: { status: { eq: 'done' } } } })).to.deep.equal({ relation: 'tasks', quantifier: 'any', filter: done });
    expect(where({ tasks: { every: { status: { eq: 'done' } } } })).to.deep.equal({ relation: 'tasks', quantifier: 'all', filter: done });
    expect(where({ tasks: { none: { status: { eq: 'done' } } } })).to.deep.equal({
      not: { relation: 'tasks', quantifier: 'any', filter: done },
    });
    expect(where({ tasks: { none: {} } })).to.deep.equal({ not: { relation: 'tasks', quantifier: 'any' } });
    expect(where({ tasks: { some: { done: { eq: true } }, none: { status: { eq: 'todo' } } } })).to.deep.equal({
      and: [
        { relation: 'tasks', quantifier: 'any', filter: { field: 'done', op: 'eq', value: true } },
        { not: { relation: 'tasks', quantifier: 'any', filter: { field: 'status', op: 'eq', value: 'todo' } } },
      ],
    });
  });

  it('is bounded like the JSON form: limits.maxFilterConditions and limits.maxFilterDepth', () => {
    const many = { _and: Array.from({ length: 4 }, (_, i) => ({ budget: { gt: i } })) };
    expect(() => where(many, { maxFilterDepth: 16, maxFilterConditions: 3 }))
      .to.throw("'where' has more than 3 conditions")
      .with.property('details')
      .that.deep.equals({ parameter: 'where', limit: 'maxFilterConditions', max: 3 });
    let deep: Record<string, unknown> = { name: { eq: 'a' } };
    for (let i = 0; i < 5; i++) deep = { _not: deep };
    expect(() => where(deep, { maxFilterDepth: 4, maxFilterConditions: 200 })).to.throw("'where' is nested deeper than 4 levels");
    expect(() => where({ budget: { between: [1] } })).to.throw("where: operator 'between' on 'budget' needs two values [low, high]");
    expect(() => where({ budget: { gt: null } })).to.throw("where: operator 'gt' on 'budget' needs a value, not null");
  });

  it('compiles orderBy to the sort keys of the JSON sort, through to-one relations as relation.field', () => {
    expect(compileOrderBy('task', [{ title: 'desc' }, { id: 'asc' }], ORDER)).to.deep.equal(
      parseSort([
        ['title', 'desc'],
        ['id', 'asc'],
      ]),
    );
    expect(compileOrderBy('task', [{ project_record: { name: 'desc' } }], ORDER)).to.deep.equal(parseSort('-project.name'));
    expect(compileOrderBy('task', [{ project_record: { account_record: { name: 'asc' } } }], ORDER)).to.deep.equal([
      { field: 'project.account.name', dir: 'asc' },
    ]);
    expect(() => compileOrderBy('task', [{ title: 'asc', id: 'desc' }], ORDER)).to.throw('orderBy[0] must name exactly one field, got 2');
    expect(() => compileOrderBy('task', [{}], ORDER)).to.throw('orderBy[0] must name exactly one field, got 0');
  });
});

describe('GraphQL typed where and orderBy over HTTP', () => {
  let s: TestServer;
  before(async () => {
    s = await startGraphQLServer();
  });
  after(async () => {
    await s?.stop();
  });

  const ids = async (query: string, variables?: Record<string, unknown>, user: object = USERS.admin): Promise<string[]> => {
    const res = await gql(s, query, variables, user as never);
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    const [rows] = Object.values(res.body.data as Record<string, Array<{ id: string }>>);
    return rows.map((r) => r.id);
  };

  it('where gives the rows filters gives, for every operator and combination', async () => {
    const cases: Array<[string, string, unknown, unknown]> = [
      [
        'project',
        'ProjectFilter',
        { status: { in: ['active', 'planning'] }, budget: { gt: 20000 } },
        [
          ['status', 'in', ['active', 'planning']],
          ['budget', '>', 20000],
        ],
      ],
      ['project', 'ProjectFilter', { budget: { between: [5000, 50000] } }, [['budget', 'between', [5000, 50000]]]],
      [
        'project',
        'ProjectFilter',
        { name: { like: '%i%' }, status: { ne: 'done' } },
        [
          ['name', 'like', '%i%'],
          ['status', '!=', 'done'],
        ],
      ],
      ['project', 'ProjectFilter', { name: { startswith: 'Ge' } }, [['name', 'startswith', 'Ge']]],
      ['project', 'ProjectFilter', { name: { endswith: 'Migration' } }, [['name', 'endswith', 'Migration']]],
      ['project', 'ProjectFilter', { name: { contains: 'Plant' } }, [['name', 'contains', 'Plant']]],
      [
        'project',
        'ProjectFilter',
        { start_date: { ge: '2025-01-01', lt: '2025-06-01' } },
        [
          ['start_date', '>=', '2025-01-01'],
          ['start_date', '<', '2025-06-01'],
        ],
      ],
      ['project', 'ProjectFilter', { end_date: { eq: null } }, [['end_date', '=', null]]],
      [
        'project',
        'ProjectFilter',
        { status: { nin: ['done'] }, budget: { le: 45000 } },
        [
          ['status', 'not in', ['done']],
          ['budget', '<=', 45000],
        ],
      ],
      [
        'project',
        'ProjectFilter',
        { _or: [{ budget: { lt: 10000 } }, { status: { eq: 'active' } }] },
        [['budget', '<', 10000], 'or', ['status', '=', 'active']],
      ],
      ['project', 'ProjectFilter', { _not: { status: { eq: 'active' } } }, ['not', [['status', '=', 'active']]]],
      ['task', 'TaskFilter', { done: { eq: true } }, [['done', '=', true]]],
      [
        'task',
        'TaskFilter',
        { estimate_hours: { ge: 6 }, due_at: { lt: '2025-06-30T00:00:00Z' } },
        [
          ['estimate_hours', '>=', 6],
          ['due_at', '<', '2025-06-30T00:00:00Z'],
        ],
      ],
      [
        'task',
        'TaskFilter',
        { start_time: { isnull: false }, assignee: { in: ['bob'] } },
        [
          ['start_time', '!=', null],
          ['assignee', 'in', ['bob']],
        ],
      ],
    ];
    for (const [object, type, typed, json] of cases) {
      const byWhere = await ids(`query($w: ${type}) { ${object}List(where: $w, sort: "id") { id } }`, { w: typed });
      const byFilters = await ids(`query($f: String) { ${object}List(filters: $f, sort: "id") { id } }`, { f: JSON.stringify(json) });
      expect(byWhere, JSON.stringify(typed)).to.deep.equal(byFilters);
      expect(byWhere.length, `${JSON.stringify(typed)} selects some but not all`).to.be.greaterThan(0);
    }
  });

  it('where in the query text, with filters beside it (and-ed)', async () => {
    expect(await ids('{ projectList(where: {owner: {eq: "alice"}}, sort: "id") { id } }')).to.deep.equal(['prj-apollo', 'prj-mercury']);
    expect(
      await ids('{ projectList(where: {owner: {eq: "alice"}}, filters: "[[\\"status\\", \\"=\\", \\"done\\"]]") { id } }'),
    ).to.deep.equal(['prj-mercury']);
  });

  it('orderBy sorts as sort does; both given is INVALID_REQUEST', async () => {
    expect(await ids('{ projectList(orderBy: [{budget: desc}]) { id } }')).to.deep.equal(
      await ids('{ projectList(sort: "-budget") { id } }'),
    );
    expect(await ids('{ taskList(orderBy: [{status: asc}, {estimate_hours: desc}]) { id } }')).to.deep.equal(
      await ids('{ taskList(sort: "[[\\"status\\", \\"asc\\"], [\\"estimate_hours\\", \\"desc\\"]]") { id } }'),
    );
    const both = await gql(s, '{ projectList(sort: "name", orderBy: [{budget: desc}]) { id } }', undefined, USERS.admin);
    expect(both.body.errors[0].message).to.equal("Give 'sort' or 'orderBy', not both");
    expect(both.body.errors[0].extensions).to.deep.equal({ code: 'INVALID_REQUEST', details: { parameter: 'orderBy' } });
  });

  it('runs as the caller: record scope applies, $current_user resolves, a field the caller may not read is refused in where and orderBy', async () => {
    expect(await ids('{ projectList(where: {budget: {gt: 0}}, sort: "id") { id } }', undefined, USERS.alice)).to.deep.equal([
      'prj-apollo',
      'prj-mercury',
    ]);
    expect(await ids('{ projectList(where: {owner: {eq: "$current_user"}}) { id } }', undefined, USERS.bob)).to.deep.equal(['prj-gemini']);
    const hidden = await gql(s, '{ projectList(where: {actual_cost: {gt: 0}}) { id } }', undefined, USERS.alice);
    expect(hidden.body.errors[0].message).to.equal("Filter: unknown field 'actual_cost' on object 'project'");
    expect(hidden.body.errors[0].extensions).to.deep.equal({
      code: 'INVALID_REQUEST',
      details: { field: 'actual_cost', object: 'project' },
    });
    const sorted = await gql(s, '{ projectList(orderBy: [{actual_cost: desc}]) { id } }', undefined, USERS.alice);
    expect(sorted.body.errors[0].message).to.equal("sort: unknown field 'actual_cost' on object 'project'");
    expect((await gql(s, '{ projectList(where: {actual_cost: {gt: 0}}) { id } }', undefined, USERS.carol)).body.errors).to.equal(undefined);
  });

  it('conditions through relations give the rows of the JSON dotted path and the kernel quantifiers', async () => {
    const viaRecord = await ids('{ taskList(where: {project_record: {name: {startswith: "Apollo"}}}, sort: "id") { id } }');
    expect(viaRecord).to.deep.equal(
      await ids('{ taskList(filters: "[[\\"project.name\\", \\"startswith\\", \\"Apollo\\"]]", sort: "id") { id } }'),
    );
    expect(viaRecord).to.deep.equal(['tsk-apollo-api', 'tsk-apollo-design', 'tsk-apollo-launch']);
    const tasks = (q: string) => ids(`{ projectList(where: {tasks: ${q}}, sort: "id") { id } }`);
    expect(await tasks('{some: {status: {eq: "done"}}}')).to.deep.equal(['prj-apollo', 'prj-mercury']);
    expect(await tasks('{every: {status: {eq: "done"}}}')).to.deep.equal(['prj-mercury']);
    expect(await tasks('{none: {status: {eq: "done"}}}')).to.deep.equal(['prj-gemini']);
    expect(await tasks('{some: {estimate_hours: {gt: 10}}, none: {status: {eq: "todo"}}}')).to.deep.equal([]);
    // Two levels: accounts with a project that has a task still to do.
    expect(
      await ids('{ accountList(where: {projects: {some: {tasks: {some: {status: {eq: "todo"}}}}}}, sort: "id") { id } }'),
    ).to.deep.equal(['acc-acme', 'acc-globex']);
  });

  it('orderBy through a to-one relation sorts as the JSON sort key relation.field', async () => {
    const typed = await ids('{ taskList(orderBy: [{project_record: {name: desc}}, {id: asc}]) { id } }');
    expect(typed).to.deep.equal(await ids('{ taskList(sort: "[[\\"project.name\\", \\"desc\\"], [\\"id\\", \\"asc\\"]]") { id } }'));
    expect(typed[0]).to.equal('tsk-mercury-handover');
    const deeper = await gql(s, '{ taskList(orderBy: [{project_record: {account_record: {name: asc}}}]) { id } }', undefined, USERS.admin);
    expect(deeper.body.errors[0].message).to.contain("sort: 'project.account.name' must name one field through one relation");
  });

  it('reads the related records as the caller sees them', async () => {
    // alice sees her own projects only: bob's project matches nothing, and its tasks are not hers to see anyway.
    expect(await ids('{ taskList(where: {project_record: {owner: {eq: "bob"}}}) { id } }', undefined, USERS.alice)).to.deep.equal([]);
    expect(await ids('{ taskList(where: {project_record: {owner: {eq: "bob"}}}) { id } }', undefined, USERS.carol)).to.have.length(2);
    const hidden = await gql(s, '{ taskList(where: {project_record: {actual_cost: {gt: 0}}}) { id } }', undefined, USERS.alice);
    expect(hidden.body.errors[0].extensions).to.deep.equal({
      code: 'INVALID_REQUEST',
      details: { field: 'actual_cost', object: 'project' },
    });
    const sortHidden = await gql(s, '{ taskList(orderBy: [{project_record: {actual_cost: asc}}]) { id } }', undefined, USERS.alice);
    expect(sortHidden.body.errors[0].extensions.code).to.equal('INVALID_REQUEST');
  });

  it('a value of the wrong type or an unknown field is a GraphQL validation error', async () => {
    const wrong = await gql(s, '{ projectList(where: {budget: {gt: "many"}}) { id } }', undefined, USERS.admin);
    expect(wrong.status).to.equal(400);
    expect(wrong.body.errors[0].extensions.code).to.equal('GRAPHQL_VALIDATION_FAILED');
    const unknown = await gql(s, '{ projectList(where: {nope: {eq: 1}}) { id } }', undefined, USERS.admin);
    expect(unknown.body.errors[0].extensions.code).to.equal('GRAPHQL_VALIDATION_FAILED');
    const text = await gql(s, '{ projectList(where: {budget: {like: "1%"}}) { id } }', undefined, USERS.admin);
    expect(text.body.errors[0].message).to.match(/Field "like" is not defined by type "FloatFilter"/);
  });
});
