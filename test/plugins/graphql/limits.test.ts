/**
 * GraphQL query limits on a real server: each at its default (runs) and one past it (400
 * INVALID_REQUEST naming the limit and its max), by POST and by GET; deep documents, variables,
 * filters and JSON values answered 400 or as a field error, never a stack overflow; the same
 * limits over graphql-ws and on a port of its own; every limit configurable.
 */
import { expect } from 'chai';
import { getIntrospectionQuery } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { parseOptions } from '../../../plugins/graphql/options';
import { startServer, USERS, type TestServer } from '../../helpers/server';
import { as, gql, gqlGet, SQLITE, startGraphQLServer, type Res } from './helpers';

const admin = USERS.admin;

/** The answer to a document beyond `limit`. */
function expectRefused(res: Res, limit: string, max: number): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(400);
  expect(res.body.data).to.equal(undefined);
  expect(res.body.errors).to.have.length(1);
  expect(res.body.errors[0].extensions).to.deep.equal({ code: 'INVALID_REQUEST', details: { limit, max } });
}

function expectRan(res: Res): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.errors).to.equal(undefined);
}

/** The document sent by POST and by GET: both answers. */
async function both(s: TestServer, query: string, variables?: Record<string, unknown>): Promise<Res[]> {
  return [await gql(s, query, variables, admin), await get(s, query, variables)];
}

function get(s: TestServer, query: string, variables?: Record<string, unknown>): Promise<Res> {
  const params: Record<string, string> = { query };
  if (variables) params.variables = JSON.stringify(variables);
  return gqlGet(s, params, admin);
}

const repeat = (n: number, text: string | ((i: number) => string)) =>
  Array.from({ length: n }, (_, i) => (typeof text === 'string' ? text : text(i))).join(' ');

/** JSON text nested `depth` levels (arrays). */
const deepJson = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('GraphQL query limits', () => {
  let s: TestServer;
  before(async () => {
    s = await startGraphQLServer();
  });
  after(async () => {
    await s?.stop();
  });

  it('has safe defaults, each an option naming its key when wrong', () => {
    const { maxTokens, maxDepth, maxAliases, maxDirectives, maxSelections, maxCost } = parseOptions(undefined);
    expect({ maxTokens, maxDepth, maxAliases, maxDirectives, maxSelections, maxCost }).to.deep.equal({
      maxTokens: 1000,
      maxDepth: 10,
      maxAliases: 15,
      maxDirectives: 50,
      maxSelections: 1000,
      maxCost: 50_000,
    });
    expect(() => parseOptions({ maxDepth: 0 })).to.throw("Plugin 'graphql': maxDepth must be a positive integer");
    expect(() => parseOptions({ maxCost: 'lots' })).to.throw('maxCost must be a positive integer');
    expect(() => parseOptions({ maxAliases: 1.5 })).to.throw('maxAliases must be a positive integer');
  });

  it('maxTokens: 1000 tokens run, 1001 are refused', async () => {
    // `{ projectList ( top : 1 fields : [` and `] ) { id } }` are 15 tokens (commas are none); each "id" one more.
    const document = (n: number) => `{ projectList(top: 1, fields: [${repeat(n, '"id"')}]) { id } }`;
    for (const res of await both(s, document(985))) expectRan(res);
    for (const res of await both(s, document(986))) expectRefused(res, 'maxTokens', 1000);
  });

  it('maxDepth: fields nested 10 deep run, 11 are refused', async () => {
    const nested = (ofTypes: number) =>
      `{ __type(name: "Project") { fields { type { ${'ofType { '.repeat(ofTypes)}name${' }'.repeat(ofTypes)} } } } }`;
    for (const res of await both(s, nested(6))) expectRan(res);
    for (const res of await both(s, nested(7))) expectRefused(res, 'maxDepth', 10);
    // Fragments do not add levels of their own.
    for (const res of await both(
      s,
      `{ __type(name: "Project") { ...T } } fragment T on __Type { fields { type { ${'ofType { '.repeat(6)}name${' }'.repeat(6)} } } }`,
    ))
      expectRan(res);
  });

  it('maxAliases: 15 aliases run, 16 are refused', async () => {
    const aliases = (n: number) => `{ ${repeat(n, (i) => `a${i}: project(id: "x") { id }`)} }`;
    for (const res of await both(s, aliases(15))) expectRan(res);
    for (const res of await both(s, aliases(16))) expectRefused(res, 'maxAliases', 15);
  });

  it('maxDirectives: 50 directives run, 51 are refused', async () => {
    const directives = (n: number) => `{ project(id: "x") { ${repeat(n, 'id @include(if: true)')} } }`;
    for (const res of await both(s, directives(50))) expectRan(res);
    for (const res of await both(s, directives(51))) expectRefused(res, 'maxDirectives', 50);
  });

  it('maxSelections: 1000 selections, fragments expanded, run; 1001 are refused', async () => {
    // 1 root field + 333 spreads of 2 fields (3 selections each) = 1000.
    const spreads = (extra: string) => `{ project(id: "x") { ${repeat(333, '...F')} ${extra} } } fragment F on Project { id name }`;
    for (const res of await both(s, spreads(''))) expectRan(res);
    for (const res of await both(s, spreads('owner'))) expectRefused(res, 'maxSelections', 1000);
  });

  it('a document whose fragments spread each other many times over is refused without being walked to the end', async () => {
    // 2^40 selections once expanded: refused at the 1001st.
    const fragments = repeat(40, (i) => `fragment F${i} on Project { ...F${i + 1} ...F${i + 1} }`);
    const query = `{ project(id: "x") { ...F0 } } ${fragments} fragment F40 on Project { id }`;
    for (const res of await both(s, query)) expectRefused(res, 'maxSelections', 1000);
  });

  it('maxCost: a list multiplies what it selects by its rows (top, with variables too); 50000 runs, one more list row is refused', async () => {
    // Each list costs 1 + rows × 5 fields: 9 × (1 + 1000 × 5) + (1 + 998 × 5) = 50000.
    const lists = (last: string) =>
      `query${last === '$last' ? '($last: Int)' : ''} { ${repeat(9, (i) => `l${i}: projectList(top: 1000) { id name owner status priority }`)} ` +
      `last: projectList(top: ${last}) { id name owner status priority } }`;
    for (const res of await both(s, lists('998'))) expectRan(res);
    for (const res of await both(s, lists('999'))) expectRefused(res, 'maxCost', 50_000);
    // The same document, its rows given by a variable.
    for (const res of await both(s, lists('$last'), { last: 998 })) expectRan(res);
    for (const res of await both(s, lists('$last'), { last: 999 })) expectRefused(res, 'maxCost', 50_000);
  });

  it("maxCost: a list without top counts for limits.defaultTop rows; a top past limits.maxTop is the engine's to refuse", async () => {
    // 1 + 100 × 5 = 501 each.
    const withoutTop = `{ ${repeat(15, (i) => `l${i}: projectList { id name owner status priority }`)} }`;
    for (const res of await both(s, withoutTop)) expectRan(res);
    const pastMaxTop = await gql(s, '{ projectList(top: 5000) { id } }', undefined, admin);
    expect(pastMaxTop.status).to.equal(200);
    expect(pastMaxTop.body.errors[0].message).to.equal("'top' may be at most 1000, got 5000");
  });

  it('the introspection GraphiQL sends runs within every default', async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
    });
    for (const res of await both(s, query)) expectRan(res);
  });

  describe('deep input answers 400 or a field error, never a stack overflow', () => {
    // A GET's URL holds 1,000 levels (Node refuses request lines past 16 KB).
    const selections = (depth: number) => `{ project(id: "x") ${'{ id '.repeat(depth)}${'}'.repeat(depth)} }`;
    const values = (depth: number) => `{ projectList(fields: ${deepJson(depth)}) { id } }`;

    it('a document nested 5,000 levels (selections or list values) is refused before it is parsed', async () => {
      for (const document of [selections, values]) {
        expectRefused(await gql(s, document(5000), undefined, admin), 'maxJsonDepth', 64);
        expectRefused(await get(s, document(1000)), 'maxJsonDepth', 64);
      }
    });

    it('with limits.maxJsonDepth raised, maxTokens still stops them before the parser', async () => {
      const raised = await startServer(
        { plugins: { graphql: {}, metadata: true }, datasources: SQLITE, limits: { maxJsonDepth: 100_000 } },
        { identityFromHeader: true },
      );
      try {
        for (const document of [selections, values]) {
          expectRefused(await gql(raised, document(5000), undefined, admin), 'maxTokens', 1000);
          expectRefused(await get(raised, document(1000)), 'maxTokens', 1000);
        }
      } finally {
        await raised.stop();
      }
    });

    it('a document nested past limits.maxJsonDepth is refused, even within maxTokens', async () => {
      // `{` and `(` then the brackets: 64 levels reach validation, 65 do not.
      const at = await gql(s, `{ projectList(fields: ${deepJson(62)}) { id } }`, undefined, admin);
      expect(at.status).to.equal(400);
      expect(at.body.errors[0].extensions.code).to.equal('GRAPHQL_VALIDATION_FAILED');
      for (const res of await both(s, `{ projectList(fields: ${deepJson(63)}) { id } }`)) expectRefused(res, 'maxJsonDepth', 64);
    });

    it('variables nested past limits.maxJsonDepth (or 5,000 levels) are refused', async () => {
      const query = 'query($v: String!) { project(id: $v) { id } }';
      // The variables object is the first level (and a POST body adds one more, held to the same limit).
      const at = await both(s, query, { v: JSON.parse(deepJson(62)) });
      for (const res of at) {
        expect(res.status).to.equal(400);
        expect(res.body.errors[0].extensions.code).to.equal('BAD_USER_INPUT');
      }
      // Written as text: JSON.stringify itself overflows on 5,000 levels.
      const post = (depth: number) =>
        s.request('POST', '/api/graphql', `{"query": ${JSON.stringify(query)}, "variables": {"v": ${deepJson(depth)}}}`, as(admin));
      const beyond = [
        await post(64),
        await post(5000),
        await gqlGet(s, { query, variables: `{"v": ${deepJson(64)}}` }, admin),
        await gqlGet(s, { query, variables: `{"v": ${deepJson(1000)}}` }, admin),
      ];
      for (const res of beyond) {
        expect(res.status).to.equal(400);
        expect(res.body.errors[0].extensions.code).to.equal('INVALID_REQUEST');
        expect(res.body.errors[0].extensions.details).to.deep.include({ limit: 'maxJsonDepth', max: 64 });
      }
    });

    it('filters and sort nested past limits.maxJsonDepth are a field error naming the limit', async () => {
      for (const [argument, depth] of [
        ['filters', 65],
        ['filters', 5000],
        ['sort', 65],
      ] as const) {
        const res = await gql(s, `query($v: String) { projectList(${argument}: $v) { id } }`, { v: deepJson(depth) }, admin);
        expect(res.status).to.equal(200);
        expect(res.body.data).to.deep.equal({ projectList: null });
        expect(res.body.errors[0].extensions).to.deep.equal({ code: 'INVALID_REQUEST', details: { limit: 'maxJsonDepth', max: 64 } });
        expect(res.body.errors[0].message).to.equal(`Argument '${argument}' is nested deeper than 64 levels`);
      }
    });

    it('a JSON value nested past limits.maxJsonDepth is refused and nothing is written', async () => {
      const create = 'mutation($s: String) { createProject(input: {name: "Deep settings", settings: $s}) { id } }';
      const res = await gql(s, create, { s: `{"a":${deepJson(64)}}` }, admin);
      expect(res.body.data).to.deep.equal({ createProject: null });
      expect(res.body.errors[0].extensions).to.deep.equal({ code: 'INVALID_REQUEST', details: { limit: 'maxJsonDepth', max: 64 } });
      const check = await gql(s, '{ projectList(filters: "[[\\"name\\", \\"=\\", \\"Deep settings\\"]]") { id } }', undefined, admin);
      expect(check.body.data.projectList).to.deep.equal([]);
      // What may be stored is bounded lower still (limits.maxJsonValueDepth, 31: what MariaDB's JSON check accepts).
      const fits = await gql(s, create, { s: `{"a":${deepJson(30)}}` }, admin);
      expect(fits.body.errors).to.equal(undefined);
    });
  });

  it('applies to operations over graphql-ws', async () => {
    const client = createClient({
      url: s.url.replace(/^http/, 'ws') + '/api/graphql',
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: true,
    });
    try {
      const run = (query: string) =>
        new Promise<unknown>((resolve) => {
          client.subscribe({ query }, { next: resolve, error: resolve, complete: () => undefined });
        });
      const refused = (await run(`{ ${repeat(16, (i) => `a${i}: project(id: "x") { id }`)} }`)) as Array<{ extensions: unknown }>;
      expect(refused[0].extensions).to.deep.equal({ code: 'INVALID_REQUEST', details: { limit: 'maxAliases', max: 15 } });
      // Cost depends on the variables: checked per operation, as over HTTP.
      const costly = (await run(`{ ${repeat(10, (i) => `l${i}: projectList(top: 1000) { id name owner status priority }`)} }`)) as Array<{
        extensions: unknown;
      }>;
      expect(costly[0].extensions).to.deep.equal({ code: 'INVALID_REQUEST', details: { limit: 'maxCost', max: 50_000 } });
      expect(await run('{ __typename }')).to.deep.equal({ data: { __typename: 'Query' } });
    } finally {
      await client.dispose();
    }
  });

  it('every limit is configurable; a port of its own answers the same', async () => {
    const limits = { maxTokens: 50, maxDepth: 2, maxAliases: 1, maxDirectives: 1, maxSelections: 5, maxCost: 30, port: 0 };
    const own = await startServer(
      { plugins: { graphql: limits }, datasources: SQLITE, limits: { maxJsonDepth: 5 } },
      { identityFromHeader: true },
    );
    try {
      const cap = (await own.request('GET', '/.well-known/objectql')).body.capabilities.find((c: any) => c.plugin === 'graphql');
      const url = `http://127.0.0.1:${cap.port}/graphql`;
      const post = async (query: string): Promise<Res> => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...as(admin) },
          body: JSON.stringify({ query }),
        });
        return { status: res.status, body: await res.json(), headers: res.headers };
      };
      const get = async (query: string): Promise<Res> => {
        const res = await fetch(`${url}?${new URLSearchParams({ query }).toString()}`, { headers: as(admin) });
        return { status: res.status, body: await res.json(), headers: res.headers };
      };
      const cases: Array<[string, string, number]> = [
        [`{ project(id: "x") { ${repeat(41, 'id')} } }`, 'maxTokens', 50],
        ['{ project(id: "x") { id } x: project(id: "y") { id } y: project(id: "z") { id } }', 'maxAliases', 1],
        ['{ __type(name: "Project") { fields { name } } }', 'maxDepth', 2],
        ['{ project(id: "x") { id @include(if: true) name @skip(if: false) } }', 'maxDirectives', 1],
        ['{ project(id: "x") { id name owner status priority } }', 'maxSelections', 5],
        ['{ projectList(top: 10) { id name owner } }', 'maxCost', 30],
        [`{ projectList(fields: ${deepJson(5)}) { id } }`, 'maxJsonDepth', 5],
      ];
      for (const [query, limit, max] of cases) {
        expectRefused(await post(query), limit, max);
        expectRefused(await get(query), limit, max);
      }
      expectRan(await post('{ projectList(top: 5) { id name owner } }'));
    } finally {
      await own.stop();
    }
  });
});
