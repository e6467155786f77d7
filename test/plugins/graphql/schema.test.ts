/**
 * The generated schema against the spec's table, read back by introspection from a real server:
 * types, non-null required fields, inputs, queries and their arguments, mutations, DeleteResult;
 * and the queries and mutations themselves.
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

describe('GraphQL schema (spec: GraphQL API table)', () => {
  let s: TestServer;
  before(async () => {
    s = await startGraphQLServer();
  });
  after(async () => {
    await s?.stop();
  });

  async function typeOf(name: string): Promise<any> {
    const res = await gql(
      s,
      `query($n: String!) { __type(name: $n) { name kind description fields { name type { ${TYPE_REF} } args { name type { ${TYPE_REF} } } } inputFields { name type { ${TYPE_REF} } } } }`,
      { n: name },
    );
    expect(res.status).to.equal(200);
    return res.body.data.__type;
  }
  const fieldsOf = (t: any, key = 'fields') => Object.fromEntries(t[key].map((f: any) => [f.name, show(f.type)]));

  it('has an output type per object: id String!, required fields non-null, types by the mapping', async () => {
    const project = fieldsOf(await typeOf('Project'));
    expect(project).to.include({
      id: 'String!',
      name: 'String!',
      status: 'String!',
      account: 'String',
      owner: 'String',
      priority: 'String',
      budget: 'Float',
      actual_cost: 'Float',
      code: 'Int',
      start_date: 'String',
      settings: 'String',
      tags: '[String]',
      created_at: 'String',
      updated_at: 'String',
    });
    const milestone = fieldsOf(await typeOf('Milestone'));
    expect(milestone).to.include({ id: 'String!', name: 'String!', project: 'String', due_on: 'String', reached: 'Boolean' });
    for (const name of ['Task', 'Account', 'Contact', 'Expense']) expect(await typeOf(name)).to.have.property('kind', 'OBJECT');
  });

  it('carries the object description as the type description', async () => {
    expect((await typeOf('Milestone')).description).to.equal('A dated checkpoint of a project.');
  });

  it('has an input type with every writable field optional (no id, system or auto_number fields)', async () => {
    const input = fieldsOf(await typeOf('ProjectInput'), 'inputFields');
    expect(input).to.include({ name: 'String', status: 'String', budget: 'Float', settings: 'String', tags: '[String]' });
    expect(Object.values(input).every((t) => !String(t).endsWith('!'))).to.equal(true);
    expect(input).to.not.have.any.keys('id', 'created_at', 'updated_at', 'code');
  });

  it('has the queries x(id: String!) and xList(top, skip, filters, fields, sort, limit)', async () => {
    const query = await typeOf('Query');
    const byName = Object.fromEntries(query.fields.map((f: any) => [f.name, f]));
    expect(show(byName.project.type)).to.equal('Project');
    expect(Object.fromEntries(byName.project.args.map((a: any) => [a.name, show(a.type)]))).to.deep.equal({ id: 'String!' });
    expect(show(byName.projectList.type)).to.equal('[Project]');
    expect(Object.fromEntries(byName.projectList.args.map((a: any) => [a.name, show(a.type)]))).to.deep.equal({
      top: 'Int',
      skip: 'Int',
      filters: 'String',
      fields: '[String]',
      sort: 'String',
      // Beside the spec's arguments: the typed filter and sort (docs/graphql.md, "Typed filters").
      where: 'ProjectFilter',
      orderBy: '[ProjectOrderBy!]',
    });
    // limit is there, as a deprecated alias (introspection hides deprecated arguments unless asked).
    const res = await gql(s, '{ __type(name: "Query") { fields { name args(includeDeprecated: true) { name isDeprecated } } } }');
    const list = res.body.data.__type.fields.find((f: any) => f.name === 'projectList');
    expect(list.args.find((a: any) => a.name === 'limit')).to.deep.equal({ name: 'limit', isDeprecated: true });
    for (const object of ['task', 'milestone', 'account', 'contact', 'expense'])
      expect(byName).to.include.all.keys(object, `${object}List`);
  });

  it('has the mutations createX(input), updateX(id, input), deleteX(id) → DeleteResult {id, deleted}', async () => {
    const mutation = await typeOf('Mutation');
    const sig = Object.fromEntries(
      mutation.fields.map((f: any) => [f.name, `(${f.args.map((a: any) => `${a.name}: ${show(a.type)}`).join(', ')}): ${show(f.type)}`]),
    );
    expect(sig).to.include({
      createProject: '(input: ProjectInput!): Project',
      updateProject: '(id: String!, input: ProjectInput!): Project',
      deleteProject: '(id: String!): DeleteResult',
    });
    expect(fieldsOf(await typeOf('DeleteResult'))).to.deep.equal({ id: 'String!', deleted: 'Boolean!' });
  });

  it('answers one record, and null for an absent id', async () => {
    const one = await gql(s, '{ project(id: "prj-apollo") { id name status settings tags } }', undefined, USERS.admin);
    expect(one.body).to.deep.equal({
      data: {
        project: {
          id: 'prj-apollo',
          name: 'Apollo Website Relaunch',
          status: 'active',
          settings: '{"notify_on_overrun":true,"channel":"#apollo"}',
          tags: ['frontend', 'backend', 'customer'],
        },
      },
    });
    const none = await gql(s, '{ project(id: "no-such-project") { id name } }', undefined, USERS.admin);
    expect(none.status).to.equal(200);
    expect(none.body).to.deep.equal({ data: { project: null } });
  });

  it('lists with top, skip, filters, sort (JSON or plain), fields and the deprecated limit', async () => {
    const all = await gql(s, '{ projectList(sort: "name") { id name } }', undefined, USERS.admin);
    const names = all.body.data.projectList.map((p: any) => p.name);
    expect(names).to.have.length(3);
    expect([...names].sort()).to.deep.equal(names);
    const page = await gql(s, '{ projectList(sort: "[[\\"name\\", \\"desc\\"]]", top: 1, skip: 1) { name } }', undefined, USERS.admin);
    expect(page.body.data.projectList).to.deep.equal([{ name: [...names].reverse()[1] }]);
    expect((await gql(s, '{ projectList(limit: 2) { id } }', undefined, USERS.admin)).body.data.projectList).to.have.length(2);
    expect((await gql(s, '{ projectList(top: 2, limit: 2) { id } }', undefined, USERS.admin)).body.data.projectList).to.have.length(2);
    // Two different page sizes: the protocol layer's one rule, as in REST and JSON-RPC.
    const conflict = await gql(s, '{ projectList(top: 1, limit: 2) { id } }', undefined, USERS.admin);
    expect(conflict.status).to.equal(200);
    expect(conflict.body.data).to.deep.equal({ projectList: null });
    expect(conflict.body.errors[0]).to.deep.include({
      message: "'top' (1) and 'limit' (2) disagree: 'limit' is a deprecated alias of 'top'; give one of them",
      extensions: { code: 'INVALID_REQUEST', details: { parameter: 'limit' } },
    });
    const filtered = await gql(
      s,
      'query($f: String) { projectList(filters: $f) { id status } }',
      { f: JSON.stringify([['status', '=', 'active']]) },
      USERS.admin,
    );
    expect(filtered.body.data.projectList).to.deep.equal([{ id: 'prj-apollo', status: 'active' }]);
    const withFields = await gql(s, '{ projectList(fields: ["name", "nope"]) { id } }', undefined, USERS.admin);
    expect(withFields.body.errors[0].extensions.code).to.equal('INVALID_REQUEST');
    expect(withFields.body.errors[0].message).to.contain("unknown field 'nope'");
    const badJson = await gql(s, '{ projectList(filters: "[oops") { id } }', undefined, USERS.admin);
    expect(badJson.status).to.equal(200);
    expect(badJson.body.errors[0]).to.include({
      message: "Argument 'filters' must be JSON text holding a filter in the array or map form",
    });
    expect(badJson.body.errors[0].extensions.code).to.equal('INVALID_REQUEST');
  });

  it('creates, updates and deletes; json fields travel as JSON text', async () => {
    const created = await gql(
      s,
      'mutation($i: ProjectInput!) { createProject(input: $i) { id name status budget settings } }',
      { i: { name: 'GraphQL Project', budget: 10, settings: '{"a":[1,2]}' } },
      USERS.admin,
    );
    expect(created.body.errors).to.equal(undefined);
    const p = created.body.data.createProject;
    expect(p).to.include({ name: 'GraphQL Project', status: 'planning', budget: 10, settings: '{"a":[1,2]}' });
    const updated = await gql(
      s,
      `mutation { updateProject(id: "${p.id}", input: {budget: 20}) { id name budget } }`,
      undefined,
      USERS.admin,
    );
    expect(updated.body).to.deep.equal({ data: { updateProject: { id: p.id, name: 'GraphQL Project', budget: 20 } } });
    const badJson = await gql(s, `mutation { updateProject(id: "${p.id}", input: {settings: "{nope"}) { id } }`, undefined, USERS.admin);
    expect(badJson.body.errors[0].extensions).to.deep.equal({
      code: 'VALIDATION_ERROR',
      // The protocol layer's one message for JSON text (OData says the same).
      details: { fields: { settings: 'must be JSON text (a json value travels as JSON in a string)' } },
    });
    const invalid = await gql(s, `mutation { updateProject(id: "${p.id}", input: {budget: -5}) { id } }`, undefined, USERS.admin);
    expect(invalid.status).to.equal(200);
    expect(invalid.body.errors[0].extensions.code).to.equal('VALIDATION_ERROR');
    const deleted = await gql(s, `mutation { deleteProject(id: "${p.id}") { id deleted } }`, undefined, USERS.admin);
    expect(deleted.body).to.deep.equal({ data: { deleteProject: { id: p.id, deleted: true } } });
    expect((await gql(s, `{ project(id: "${p.id}") { id } }`, undefined, USERS.admin)).body).to.deep.equal({ data: { project: null } });
    const again = await gql(s, `mutation { deleteProject(id: "${p.id}") { id deleted } }`, undefined, USERS.admin);
    expect(again.body.errors[0].extensions.code).to.equal('NOT_FOUND');
  });
});
