/**
 * Operations that run again run compiled by graphql-jit (option `jit`, document.ts). The first
 * run of a document goes through graphql-js, later ones through the compiled function: on a real
 * server, every kind of answer — nested relations, fragments, directives on variables, aliases,
 * field errors beside data, refused fields, variables that do not fit, a denied mutation — is the
 * same on each run. Without `jit` nothing is compiled.
 */
import { expect } from 'chai';
import { buildSchema, parse } from 'graphql';
import { PluginError } from '../../../kernel';
import { Documents } from '../../../plugins/graphql/document';
import { queryLimits } from '../../../plugins/graphql/limits';
import { parseOptions } from '../../../plugins/graphql/options';
import { USERS, type TestServer } from '../../helpers/server';
import { gql, startGraphQLServer } from './helpers';

const CASES: Array<{ name: string; query: string; variables?: Record<string, unknown>; user?: (typeof USERS)[keyof typeof USERS] }> = [
  {
    name: 'nested relations both ways, with a count',
    query:
      '{ projectList(top: 3, sort: "name") { id name status owner account_record { name } tasks(top: 2, sort: "name") { id name } tasks_count } }',
  },
  {
    name: 'fragments and @include on a variable (true)',
    query:
      'query Q($more: Boolean!) { projectList(top: 2, sort: "name") { ...P tasks @include(if: $more) { id } } } fragment P on Project { id name }',
    variables: { more: true },
  },
  {
    name: 'the same document with the variable false',
    query:
      'query Q($more: Boolean!) { projectList(top: 2, sort: "name") { ...P tasks @include(if: $more) { id } } } fragment P on Project { id name }',
    variables: { more: false },
  },
  {
    name: 'aliases, __typename, a record that is not there',
    query: '{ a: project(id: "prj-apollo") { __typename id name } b: project(id: "no-such") { id } n: projectCount }',
  },
  { name: 'a denied root field beside one that answers', query: '{ projectList(top: 1) { id } expenseList { id } }', user: USERS.alice },
  { name: 'a hidden field refused', query: '{ projectList { id actual_cost } }', user: USERS.alice },
  { name: 'variables that do not fit', query: 'query($top: Int) { projectList(top: $top) { id } }', variables: { top: 'ten' } },
  { name: 'a denied mutation', query: 'mutation { deleteProject(id: "prj-apollo") { id deleted } }', user: USERS.viewer },
  { name: 'a group-by', query: '{ projectAggregate(groupBy: [status]) { group { status } count } }' },
  {
    name: 'a typed where in a variable (never compiled: a recursive input type)',
    query: 'query($w: ProjectFilter) { projectList(where: $w, top: 2) { id } projectCount(where: $w) }',
    variables: { w: { status: { eq: 'active' } } },
  },
];

describe('GraphQL compiled operations (graphql-jit)', () => {
  let s: TestServer;
  before(async () => {
    s = await startGraphQLServer();
  });
  after(async () => {
    await s?.stop();
  });

  for (const c of CASES) {
    it(`answers the same compiled as through graphql-js: ${c.name}`, async () => {
      const runs = [];
      for (let i = 0; i < 3; i++) {
        const res = await gql(s, c.query, c.variables, c.user ?? USERS.admin);
        runs.push({ status: res.status, body: res.body });
      }
      expect(runs[1], 'second run (compiled)').to.deep.equal(runs[0]);
      expect(runs[2], 'third run (compiled)').to.deep.equal(runs[0]);
    });
  }

  it('compiles an operation on the run `jit` names, never with 0', () => {
    const limits = queryLimits(parseOptions(undefined), s.kernel.config.limits);
    const document = parse('{ hello }');
    const tiny = buildSchema('type Query { hello: String }');
    const onSecond = new Documents(tiny, true, limits, 2);
    expect(onSecond.compiled(document, undefined)).to.equal(undefined);
    const compiled = onSecond.compiled(document, undefined);
    expect(compiled).to.be.a('function');
    expect(onSecond.compiled(document, undefined)).to.equal(compiled);
    const never = new Documents(tiny, true, limits, 0);
    for (let i = 0; i < 3; i++) expect(never.compiled(document, undefined)).to.equal(undefined);
  });

  it('leaves to graphql-js an operation with a variable of a recursive input type (graphql-jit unrolls its coercion: seconds)', () => {
    const limits = queryLimits(parseOptions(undefined), s.kernel.config.limits);
    const schema = buildSchema(
      'input F { _and: [F!], g: G, name: String } input G { f: F } input Flat { name: String } type Query { n(where: F, flat: Flat): Int }',
    );
    const documents = new Documents(schema, true, limits, 1);
    expect(documents.compiled(parse('query($w: F) { n(where: $w) }'), undefined)).to.equal(undefined);
    expect(documents.compiled(parse('query($w: G) { n(where: {g: $w}) }'), undefined)).to.equal(undefined);
    expect(documents.compiled(parse('{ n(where: {_and: [{name: "x"}]}) }'), undefined)).to.be.a('function');
    expect(documents.compiled(parse('query($f: Flat, $s: String) { n(flat: $f, where: {name: $s}) }'), undefined)).to.be.a('function');
  });

  it('refuses a jit option that is not a whole number, naming it', () => {
    expect(() => parseOptions({ jit: -1 })).to.throw(PluginError, 'jit must be a whole number, 0 or more');
    expect(() => parseOptions({ jit: 'yes' })).to.throw(PluginError, 'jit must be a whole number, 0 or more');
  });
});
