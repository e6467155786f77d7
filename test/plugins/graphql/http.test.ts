/**
 * GraphQL over HTTP on a real server: permissions as the engine decides them, errors with their
 * statuses and codes, GET, introspection on and off, GraphiQL for a browser, and the schema
 * rebuilt after a metadata change.
 */
import { expect } from 'chai';
import { USERS, type TestServer } from '../../helpers/server';
import { driverCalls } from '../../helpers/driver-calls';
import { as, gql, gqlGet, startGraphQLServer } from './helpers';

describe('GraphQL over HTTP', () => {
  let s: TestServer;
  before(async () => {
    s = await startGraphQLServer();
  });
  after(async () => {
    await s?.stop();
  });

  describe('permissions (the engine decides, as in every protocol)', () => {
    it('a member sees her own projects only', async () => {
      const mine = await gql(s, '{ projectList { id owner } }', undefined, USERS.alice);
      expect(mine.body.errors).to.equal(undefined);
      const all = await gql(s, '{ projectList { id owner } }', undefined, USERS.admin);
      expect(mine.body.data.projectList.length).to.be.lessThan(all.body.data.projectList.length);
      expect(mine.body.data.projectList.every((p: any) => p.owner === 'alice')).to.equal(true);
      const other = all.body.data.projectList.find((p: any) => p.owner !== 'alice');
      expect((await gql(s, `{ project(id: "${other.id}") { id } }`, undefined, USERS.alice)).body).to.deep.equal({
        data: { project: null },
      });
    });

    it('a hidden field requested is refused as an unknown field is', async () => {
      const hidden = await gql(s, '{ projectList { id actual_cost } }', undefined, USERS.alice);
      expect(hidden.status).to.equal(200);
      expect(hidden.body.data).to.deep.equal({ projectList: null });
      expect(hidden.body.errors[0].extensions).to.deep.equal({
        code: 'INVALID_REQUEST',
        details: { field: 'actual_cost', object: 'project' },
      });
      expect(hidden.body.errors[0].message).to.equal("fields: unknown field 'actual_cost' on object 'project'");
      const unknown = await gql(s, '{ projectList(fields: ["no_such_field"]) { id } }', undefined, USERS.alice);
      expect(unknown.body.errors[0].message).to.equal("fields: unknown field 'no_such_field' on object 'project'");
      // Through a fragment and a single-record query too; the manager may read it.
      const viaFragment = await gql(s, '{ project(id: "x") { ...F } } fragment F on Project { actual_cost }', undefined, USERS.alice);
      expect(viaFragment.body.errors[0].extensions.code).to.equal('INVALID_REQUEST');
      const manager = await gql(s, '{ projectList { id actual_cost } }', undefined, USERS.carol);
      expect(manager.body.errors).to.equal(undefined);
    });

    it('a hidden field selected after a write undoes the write', async () => {
      const res = await gql(s, 'mutation { createProject(input: {name: "Undone"}) { id actual_cost } }', undefined, USERS.alice);
      expect(res.body.errors[0].extensions.code).to.equal('INVALID_REQUEST');
      const check = await gql(s, '{ projectList(filters: "[[\\"name\\", \\"=\\", \\"Undone\\"]]") { id } }', undefined, USERS.admin);
      expect(check.body.data.projectList).to.deep.equal([]);
    });

    it('a create answers what a read would: from the write alone when nothing can differ, read back for relations and find hooks', async () => {
      const create = (name: string, selection: string) =>
        gql(
          s,
          `mutation($n: String!) { createAccount(input: {name: $n, industry: "finance"}) { ${selection} } }`,
          { n: name },
          USERS.admin,
        );
      const readAgain = async (id: string, selection: string) =>
        (await gql(s, `query($id: String!) { account(id: $id) { ${selection} } }`, { id }, USERS.admin)).body.data.account;

      let plain: any;
      const plainCalls = await driverCalls(s, async () => (plain = await create('Plain', 'id name industry created_by')));
      expect(plainCalls).to.deep.equal({ count: 1 }); // the unique name's check, and no read
      expect(plain.body.errors, JSON.stringify(plain.body.errors)).to.equal(undefined);
      const created = plain.body.data.createAccount;
      expect(created).to.deep.equal(await readAgain(created.id, 'id name industry created_by'));

      let related: any;
      const relatedCalls = await driverCalls(s, async () => (related = await create('Related', 'id name contacts { id }')));
      expect(relatedCalls).to.deep.equal({ count: 1, find: 2 }); // the record, then its contacts
      expect(related.body.data.createAccount).to.deep.include({ name: 'Related', contacts: [] });

      const hook = s.kernel.hooks.afterFind.for('account');
      hook.tap('shout', (ctx) => {
        for (const r of ctx.result as Array<Record<string, unknown>>) r.name = String(r.name).toUpperCase();
      });
      try {
        const hooked = await create('Hooked', 'id name');
        expect(hooked.body.data.createAccount.name).to.equal('HOOKED');
      } finally {
        hook.taps.splice(
          hook.taps.findIndex((t) => t.name === 'shout'),
          1,
        );
      }
    });

    it('a denied mutation is FORBIDDEN in extensions.code, with status 200', async () => {
      const res = await gql(s, 'mutation { deleteProject(id: "prj-apollo") { id deleted } }', undefined, USERS.viewer);
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal({ deleteProject: null });
      expect(res.body.errors[0]).to.include.keys('message', 'locations', 'path');
      expect(res.body.errors[0].path).to.deep.equal(['deleteProject']);
      expect(res.body.errors[0].extensions.code).to.equal('FORBIDDEN');
      const write = await gql(s, 'mutation { createExpense(input: {}) { id } }', undefined, USERS.alice);
      expect(write.body.errors[0].extensions.code).to.equal('FORBIDDEN');
    });

    it('an anonymous caller gets UNAUTHORIZED in extensions.code', async () => {
      const res = await gql(s, '{ projectList { id } }');
      expect(res.status).to.equal(200);
      expect(res.body.errors[0].extensions.code).to.equal('UNAUTHORIZED');
    });

    it('fields of several roots fail one by one', async () => {
      const res = await gql(s, '{ projectList { id } expenseList { id } }', undefined, USERS.alice);
      expect(res.body.data.projectList).to.be.an('array');
      expect(res.body.data.expenseList).to.equal(null);
      expect(res.body.errors).to.have.length(1);
      expect(res.body.errors[0].path).to.deep.equal(['expenseList']);
    });
  });

  describe('errors', () => {
    it('a document that does not parse: 400 GRAPHQL_PARSE_FAILED', async () => {
      const res = await gql(s, '{ projectList { id }', undefined, USERS.admin);
      expect(res.status).to.equal(400);
      expect(res.body).to.not.have.property('data');
      expect(res.body.errors[0].extensions.code).to.equal('GRAPHQL_PARSE_FAILED');
      expect(res.body.errors[0].locations).to.deep.equal([{ line: 1, column: 21 }]);
    });

    it('an unknown field or argument: 400 GRAPHQL_VALIDATION_FAILED', async () => {
      const field = await gql(s, '{ projectList { id nope } }', undefined, USERS.admin);
      expect(field.status).to.equal(400);
      expect(field.body.errors[0].extensions.code).to.equal('GRAPHQL_VALIDATION_FAILED');
      expect(field.body.errors[0].message).to.contain('Cannot query field "nope" on type "Project"');
      const arg = await gql(s, '{ projectList(top: "x") { id } }', undefined, USERS.admin);
      expect(arg.status).to.equal(400);
      expect(arg.body.errors[0].extensions.code).to.equal('GRAPHQL_VALIDATION_FAILED');
      const noObject = await gql(s, '{ nothingList { id } }', undefined, USERS.admin);
      expect(noObject.status).to.equal(400);
    });

    it('variables that do not fit: 400 BAD_USER_INPUT', async () => {
      const wrongType = await gql(s, 'query($top: Int) { projectList(top: $top) { id } }', { top: 'ten' }, USERS.admin);
      expect(wrongType.status).to.equal(400);
      expect(wrongType.body).to.not.have.property('data');
      expect(wrongType.body.errors[0].extensions.code).to.equal('BAD_USER_INPUT');
      const missing = await gql(s, 'query($id: String!) { project(id: $id) { id } }', {}, USERS.admin);
      expect(missing.status).to.equal(400);
      expect(missing.body.errors[0].message).to.contain('$id');
      const notObject = await s.request('POST', '/api/graphql', { query: '{ projectList { id } }', variables: [1] }, as(USERS.admin));
      expect(notObject.status).to.equal(400);
      expect(notObject.body.errors[0].extensions.code).to.equal('INVALID_REQUEST');
    });

    it('a request without a query, with a body that is not JSON, or with an unknown operationName: 400', async () => {
      const noQuery = await s.request('POST', '/api/graphql', { variables: {} }, as(USERS.admin));
      expect(noQuery.status).to.equal(400);
      expect(noQuery.body.errors[0]).to.deep.equal({
        message: "'query' is required: the GraphQL document as a string",
        extensions: { code: 'INVALID_REQUEST' },
      });
      const malformed = await s.request('POST', '/api/graphql', '{"query": ', { ...as(USERS.admin), 'content-type': 'application/json' });
      expect(malformed.status).to.equal(400);
      expect(malformed.body.errors[0].extensions.code).to.equal('INVALID_REQUEST');
      const notJson = await s.request('POST', '/api/graphql', '{ projectList { id } }', {
        ...as(USERS.admin),
        'content-type': 'text/plain',
      });
      expect(notJson.status).to.equal(415);
      const op = await s.request(
        'POST',
        '/api/graphql',
        { query: 'query A { projectList { id } } query B { taskList { id } }', operationName: 'C' },
        as(USERS.admin),
      );
      expect(op.status).to.equal(400);
      const named = await s.request(
        'POST',
        '/api/graphql',
        { query: 'query A { projectList { id } } query B { taskList { id } }', operationName: 'B' },
        as(USERS.admin),
      );
      expect(named.status).to.equal(200);
      expect(named.body.data).to.have.keys('taskList');
    });
  });

  describe('GET', () => {
    it('runs a query with variables and operationName from the query string', async () => {
      const res = await gqlGet(
        s,
        { query: 'query Q($id: String!) { project(id: $id) { id } }', variables: JSON.stringify({ id: 'prj-apollo' }), operationName: 'Q' },
        USERS.admin,
      );
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ data: { project: { id: 'prj-apollo' } } });
    });

    it('refuses a mutation with 405 and Allow: POST', async () => {
      const res = await gqlGet(s, { query: 'mutation { deleteProject(id: "prj-apollo") { id } }' }, USERS.admin);
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.equal('POST');
      expect((await gql(s, '{ project(id: "prj-apollo") { id } }', undefined, USERS.admin)).body.data.project).to.deep.equal({
        id: 'prj-apollo',
      });
    });

    it('refuses variables that are not JSON, and other methods', async () => {
      const res = await gqlGet(s, { query: '{ projectList { id } }', variables: '{nope' }, USERS.admin);
      expect(res.status).to.equal(400);
      const put = await s.request('PUT', '/api/graphql', { query: '{ projectList { id } }' }, as(USERS.admin));
      expect(put.status).to.equal(405);
      expect(put.headers.get('allow')).to.equal('GET, POST');
    });

    it('serves GraphiQL to a browser (Accept: text/html, no query), JSON otherwise', async () => {
      const page = await gqlGet(s, {}, undefined, { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-type')).to.contain('text/html');
      expect(String(page.body)).to.contain('graphiql');
      const api = await gqlGet(s, {}, USERS.admin, { accept: 'application/json' });
      expect(api.status).to.equal(400);
    });
  });

  describe('introspection and rebuild', () => {
    it('answers __schema when introspection is on (default)', async () => {
      const res = await gql(s, '{ __schema { queryType { name } mutationType { name } } }');
      expect(res.body).to.deep.equal({ data: { __schema: { queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } } } });
    });

    it('rebuilds the schema after a metadata change (object description)', async () => {
      const put = await s.request('PUT', '/api/metadata/object/milestone', { description: 'Changed for GraphQL' }, as(USERS.admin));
      expect(put.status).to.equal(200);
      const res = await gql(s, '{ __type(name: "Milestone") { description } }');
      expect(res.body.data.__type.description).to.equal('Changed for GraphQL');
    });

    it('refuses introspection when it is off', async () => {
      const off = await startGraphQLServer({ introspection: false });
      try {
        for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "Project") { name } }']) {
          const res = await gql(off, query, undefined, USERS.admin);
          expect(res.status).to.equal(400);
          expect(res.body.errors[0].extensions.code).to.equal('GRAPHQL_VALIDATION_FAILED');
          expect(res.body.errors[0].message).to.contain('introspection');
        }
        const ok = await gql(off, '{ project(id: "prj-apollo") { __typename id } }', undefined, USERS.admin);
        expect(ok.body).to.deep.equal({ data: { project: { __typename: 'Project', id: 'prj-apollo' } } });
      } finally {
        await off.stop();
      }
    });
  });
});
