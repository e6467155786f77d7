/**
 * Relationships as nested objects, both directions (docs/graphql.md, "Relationships"), over HTTP
 * on a real server with the sample app: `<lookup>_record` beside the spec's id field, reverse
 * lists taking the list's arguments and their counts, fragments, variables and directives, aliases
 * with other arguments, mutations' read-back, and the caller's permissions at every level.
 */
import { expect } from 'chai';
import { USERS, type TestServer } from '../../helpers/server';
import { gql, startGraphQLServer } from './helpers';

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';

function show(t: any): string {
  if (t.kind === 'NON_NULL') return `${show(t.ofType)}!`;
  if (t.kind === 'LIST') return `[${show(t.ofType)}]`;
  return t.name;
}

describe('GraphQL relationships as nested objects', () => {
  let s: TestServer;
  before(async () => {
    s = await startGraphQLServer();
  });
  after(async () => {
    await s?.stop();
  });

  const ok = async (query: string, variables?: Record<string, unknown>, user = USERS.admin) => {
    const res = await gql(s, query, variables, user);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    return res.body.data;
  };

  async function fieldsOf(type: string): Promise<Record<string, { type: string; args: string[] }>> {
    const data = await ok(`query($n: String!) { __type(name: $n) { fields { name type { ${TYPE_REF} } args { name } } } }`, { n: type });
    return Object.fromEntries(data.__type.fields.map((f: any) => [f.name, { type: show(f.type), args: f.args.map((a: any) => a.name) }]));
  }

  it('adds <lookup>_record and, per reverse relation, a list and its count; the spec fields stay as they are', async () => {
    const task = await fieldsOf('Task');
    expect(task.project.type).to.equal('String!');
    expect(task.project_record).to.deep.equal({ type: 'Project', args: [] });
    const project = await fieldsOf('Project');
    expect(project.account.type).to.equal('String');
    expect(project.account_record.type).to.equal('Account');
    for (const [name, type] of [
      ['tasks', 'Task'],
      ['milestones', 'Milestone'],
      ['expenses', 'Expense'],
    ]) {
      expect(project[name].type).to.equal(`[${type}!]!`);
      expect(project[`${name}_count`]).to.deep.equal({ type: 'Int!', args: ['filters', 'where'] });
    }
    // The reverse list takes the same arguments as the target's list query.
    const query = await fieldsOf('Query');
    expect(project.tasks.args).to.deep.equal(query.taskList.args);
    const account = await fieldsOf('Account');
    expect(account.projects.type).to.equal('[Project!]!');
    expect(account.contacts.type).to.equal('[Contact!]!');
  });

  it('answers the related record under <lookup>_record, nested, with the lookup still its id', async () => {
    const data = await ok('{ task(id: "tsk-apollo-api") { title project project_record { id name account account_record { name } } } }');
    expect(data.task).to.deep.equal({
      title: 'Build the content API',
      project: 'prj-apollo',
      project_record: {
        id: 'prj-apollo',
        name: 'Apollo Website Relaunch',
        account: 'acc-acme',
        account_record: { name: 'Acme Corporation' },
      },
    });
  });

  it('answers reverse lists with the list arguments, per parent, and their counts', async () => {
    const data = await ok(`{
      projectList(sort: "name") {
        id
        tasks(sort: "title", top: 2) { title project }
        tasks_count
        done: tasks_count(filters: "[[\\"status\\", \\"=\\", \\"done\\"]]")
        milestones { name }
      }
    }`);
    expect(data.projectList).to.deep.equal([
      {
        id: 'prj-apollo',
        tasks: [
          { title: 'Build the content API', project: 'prj-apollo' },
          { title: 'Design the new landing page', project: 'prj-apollo' },
        ],
        tasks_count: 3,
        done: 1,
        milestones: [{ name: 'Public beta' }],
      },
      {
        id: 'prj-gemini',
        tasks: [
          { title: 'Kick-off meeting with Globex', project: 'prj-gemini' },
          { title: 'Survey sensor vendors', project: 'prj-gemini' },
        ],
        tasks_count: 2,
        done: 0,
        milestones: [],
      },
      {
        id: 'prj-mercury',
        tasks: [{ title: 'Hand over the migrated ledger', project: 'prj-mercury' }],
        tasks_count: 1,
        done: 1,
        milestones: [{ name: 'Go live' }],
      },
    ]);
    const paged = await ok('{ project(id: "prj-apollo") { tasks(sort: "title", skip: 1, top: 1) { title } } }');
    expect(paged.project.tasks).to.deep.equal([{ title: 'Design the new landing page' }]);
  });

  it('takes the typed where and orderBy in nested lists and counts, as the list query does', async () => {
    const data = await ok(
      `query($w: TaskFilter) {
      project(id: "prj-apollo") {
        tasks(where: $w, orderBy: [{title: desc}]) { title }
        tasks_count(where: $w)
        all: tasks_count
        typed: tasks(where: {status: {in: ["todo", "doing"]}}, orderBy: [{title: asc}], top: 1) { title }
      }
    }`,
      { w: { status: { ne: 'done' } } },
    );
    expect(data.project).to.deep.equal({
      tasks: [{ title: 'Plan the launch' }, { title: 'Build the content API' }],
      tasks_count: 2,
      all: 3,
      typed: [{ title: 'Build the content API' }],
    });
  });

  it('follows both directions as deep as asked: account → projects → tasks → project', async () => {
    const data = await ok(
      '{ account(id: "acc-acme") { name projects { name tasks(sort: "title", top: 1) { title project_record { name } } } } }',
    );
    expect(data.account).to.deep.equal({
      name: 'Acme Corporation',
      projects: [
        {
          name: 'Apollo Website Relaunch',
          tasks: [{ title: 'Build the content API', project_record: { name: 'Apollo Website Relaunch' } }],
        },
      ],
    });
  });

  it('reads fragments, variables and @include / @skip in nested selections', async () => {
    const query = `
      query($top: Int!, $withCount: Boolean!, $status: String!) {
        project(id: "prj-apollo") { ...P }
      }
      fragment P on Project {
        name
        account_record { ... on Account { name } }
        tasks(top: $top, sort: "title", filters: $status) { ...T }
        tasks_count(filters: $status) @include(if: $withCount)
        milestones @skip(if: true) { name }
      }
      fragment T on Task { title }
    `;
    const data = await ok(query, { top: 5, withCount: true, status: '{"status": "todo"}' });
    expect(data.project).to.deep.equal({
      name: 'Apollo Website Relaunch',
      account_record: { name: 'Acme Corporation' },
      tasks: [{ title: 'Plan the launch' }],
      tasks_count: 1,
    });
    const without = await ok(query, { top: 1, withCount: false, status: '{}' });
    expect(without.project).to.not.have.property('tasks_count');
    expect(without.project.tasks).to.have.length(1);
  });

  it('answers aliases of one relation with different arguments each with their own', async () => {
    const data = await ok(`{
      projectList(sort: "name", top: 2) {
        first: tasks(sort: "title", top: 1) { title }
        last: tasks(sort: "-title", top: 1) { title }
        again: tasks(sort: "title", top: 1) { status }
        all: tasks_count
        todo: tasks_count(filters: "{\\"status\\": \\"todo\\"}")
      }
    }`);
    expect(data.projectList).to.deep.equal([
      {
        first: [{ title: 'Build the content API' }],
        last: [{ title: 'Plan the launch' }],
        again: [{ status: 'doing' }],
        all: 3,
        todo: 1,
      },
      {
        first: [{ title: 'Kick-off meeting with Globex' }],
        last: [{ title: 'Survey sensor vendors' }],
        again: [{ status: 'todo' }],
        all: 2,
        todo: 1,
      },
    ]);
  });

  it("reads nested records with the caller's permissions at every level", async () => {
    // alice (member) sees her own projects, and only the tasks assigned to her, at any level.
    const data = await ok('{ projectList(sort: "name") { id tasks(sort: "title") { id assignee } tasks_count } }', undefined, USERS.alice);
    expect(data.projectList).to.deep.equal([
      {
        id: 'prj-apollo',
        tasks: [
          { id: 'tsk-apollo-design', assignee: 'alice' },
          { id: 'tsk-apollo-launch', assignee: 'alice' },
        ],
        tasks_count: 2,
      },
      { id: 'prj-mercury', tasks: [{ id: 'tsk-mercury-handover', assignee: 'alice' }], tasks_count: 1 },
    ]);
    // bob's task is in alice's project: bob does not see that project.
    const bobs = await ok('{ task(id: "tsk-apollo-api") { project project_record { name } } }', undefined, USERS.bob);
    expect(bobs.task).to.deep.equal({ project: 'prj-apollo', project_record: null });
  });

  it('refuses an object the caller may not read (FORBIDDEN) and a hidden field (INVALID_REQUEST), nested', async () => {
    const forbidden = await gql(s, '{ projectList { id expenses { amount } } }', undefined, USERS.alice);
    expect(forbidden.status).to.equal(200);
    expect(forbidden.body.errors[0].extensions.code).to.equal('FORBIDDEN');
    expect(forbidden.body.data.projectList).to.equal(null);
    const counted = await gql(s, '{ project(id: "prj-apollo") { expenses_count } }', undefined, USERS.alice);
    expect(counted.body.errors[0].extensions.code).to.equal('FORBIDDEN');
    const hidden = await gql(s, '{ taskList { id project_record { actual_cost } } }', undefined, USERS.alice);
    expect(hidden.body.errors[0].extensions.code).to.equal('INVALID_REQUEST');
    expect(hidden.body.errors[0].message).to.contain('actual_cost');
    // The same query as a manager reads all of it.
    const carol = await ok('{ project(id: "prj-apollo") { expenses(sort: "amount") { amount } expenses_count } }', undefined, USERS.carol);
    expect(carol.project.expenses_count).to.equal(2);
  });

  it('answers nested relations in the read-back of a mutation', async () => {
    const data = await ok(
      `mutation($input: TaskInput!) {
        createTask(input: $input) { title project project_record { name tasks_count } }
      }`,
      { input: { title: 'Write the release notes', project: 'prj-mercury', assignee: 'root' } },
    );
    expect(data.createTask).to.deep.equal({
      title: 'Write the release notes',
      project: 'prj-mercury',
      project_record: { name: 'Mercury Ledger Migration', tasks_count: 2 },
    });
  });

  it('refuses bad nested arguments with INVALID_REQUEST naming them', async () => {
    const res = await gql(s, '{ projectList { tasks(filters: "not json") { id } } }', undefined, USERS.admin);
    expect(res.body.errors[0].extensions.code).to.equal('INVALID_REQUEST');
    expect(res.body.errors[0].message).to.contain("'filters'");
    const unknown = await gql(s, '{ projectList { tasks(sort: "nope") { id } } }', undefined, USERS.admin);
    expect(unknown.body.errors[0].extensions.code).to.equal('INVALID_REQUEST');
    expect(unknown.body.errors[0].message).to.contain('nope');
  });
});
