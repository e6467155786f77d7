/**
 * Client-protocol conformance (docs/graphql.md, "Persisted queries" and "Batched requests"):
 * Apollo's automatic persisted queries and array-batched requests, proved with Apollo Client's
 * own links (PersistedQueryLink, over POST and GET; BatchHttpLink) against a real server, and
 * the protocol's edges over raw HTTP: unknown hash, hash mismatch, bounds, option off, each
 * operation of a batch checked and rate-counted as if sent alone, one store per kernel.
 */
import { createHash } from 'node:crypto';
import { ApolloClient, HttpLink, InMemoryCache, gql as tag, type ApolloLink } from '@apollo/client';
import { BatchHttpLink } from '@apollo/client/link/batch-http';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { expect } from 'chai';
import { PersistedQueryStore } from '../../../plugins/graphql/persisted-queries';
import { USERS, type TestServer } from '../../helpers/server';
import { as, gqlGet, startGraphQLServer } from './helpers';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** fetch that notes each request's method and parsed body (or query string). */
function recordingFetch(sent: Array<{ method: string; body: any }>): typeof fetch {
  return async (url, init) => {
    const method = init?.method ?? 'GET';
    const body = method === 'GET' ? Object.fromEntries(new URL(url as string).searchParams) : (JSON.parse(init?.body as string) as unknown);
    sent.push({ method, body });
    return fetch(url, init);
  };
}

const client = (link: ApolloLink) => new ApolloClient({ cache: new InMemoryCache(), link });

describe('GraphQL persisted queries (Apollo APQ)', () => {
  let s: TestServer;
  before(async () => {
    s = await startGraphQLServer({ persistedQueries: { maxEntries: 2, maxQueryLength: 200 } });
  });
  after(async () => {
    await s?.stop();
  });
  const post = (body: unknown, user: object = USERS.admin) => s.request('POST', '/api/graphql', body, as(user as never));
  const hashOnly = (hash: string, extra: Record<string, unknown> = {}) => ({
    extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
    ...extra,
  });

  it("Apollo's PersistedQueryLink falls back to the full query, then hits by hash (POST)", async () => {
    const sent: Array<{ method: string; body: any }> = [];
    const link = () =>
      new PersistedQueryLink({ sha256 }).concat(
        new HttpLink({ uri: `${s.url}/api/graphql`, fetch: recordingFetch(sent), headers: as(USERS.admin) }),
      );
    const query = tag`query Few($top: Int) { projectList(top: $top, sort: "id") { id } }`;
    const first = await client(link()).query({ query, variables: { top: 2 } });
    expect(first.data).to.deep.equal({
      projectList: [
        { __typename: 'Project', id: 'prj-apollo' },
        { __typename: 'Project', id: 'prj-gemini' },
      ],
    });
    // A hash alone, PERSISTED_QUERY_NOT_FOUND, then the query with its hash.
    expect(sent.map((r) => [r.method, typeof r.body.query, r.body.extensions?.persistedQuery?.version])).to.deep.equal([
      ['POST', 'undefined', 1],
      ['POST', 'string', 1],
    ]);
    // Another client (another cache): the hash alone is enough now.
    sent.length = 0;
    const second = await client(link()).query({ query, variables: { top: 1 } });
    expect(second.data).to.deep.equal({ projectList: [{ __typename: 'Project', id: 'prj-apollo' }] });
    expect(sent.map((r) => [r.method, typeof r.body.query])).to.deep.equal([['POST', 'undefined']]);
  });

  it('works over GET too (useGETForHashedQueries): the fallback is a POST, the hits are GETs', async () => {
    const sent: Array<{ method: string; body: any }> = [];
    const link = () =>
      new PersistedQueryLink({ sha256, useGETForHashedQueries: true }).concat(
        new HttpLink({ uri: `${s.url}/api/graphql`, fetch: recordingFetch(sent), headers: as(USERS.admin) }),
      );
    const query = tag`query Count { projectCount(where: {status: {eq: "active"}}) }`;
    expect((await client(link()).query({ query })).data).to.deep.equal({ projectCount: 1 });
    expect((await client(link()).query({ query })).data).to.deep.equal({ projectCount: 1 });
    expect(sent.map((r) => [r.method, typeof r.body.query])).to.deep.equal([
      ['GET', 'undefined'],
      ['POST', 'string'],
      ['GET', 'undefined'],
    ]);
  });

  it('an unknown hash is PERSISTED_QUERY_NOT_FOUND with HTTP 200, by POST and by GET', async () => {
    const hash = sha256('{ projectCount } # never sent');
    const expected = { errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] };
    const byPost = await post(hashOnly(hash));
    expect([byPost.status, byPost.body]).to.deep.equal([200, expected]);
    const byGet = await gqlGet(s, { extensions: JSON.stringify(hashOnly(hash).extensions) }, USERS.admin);
    expect([byGet.status, byGet.body]).to.deep.equal([200, expected]);
  });

  it('checks the hash of a query sent with one, and keeps only queries that are checked', async () => {
    const query = '{ taskCount }';
    const mismatch = await post({ query, ...hashOnly(sha256('{ projectCount }')) });
    expect(mismatch.status).to.equal(400);
    expect(mismatch.body.errors[0].extensions).to.deep.equal({ code: 'PERSISTED_QUERY_HASH_MISMATCH' });
    expect(mismatch.body.errors[0].message).to.contain('SHA-256');
    // Not kept: a query that does not validate.
    const invalid = '{ noSuchField }';
    expect((await post({ query: invalid, ...hashOnly(sha256(invalid)) })).body.errors[0].extensions.code).to.equal(
      'GRAPHQL_VALIDATION_FAILED',
    );
    expect((await post(hashOnly(sha256(invalid)))).body.errors[0].extensions.code).to.equal('PERSISTED_QUERY_NOT_FOUND');
    // Kept; the hash may be written in capitals.
    expect((await post({ query, ...hashOnly(sha256(query)) })).body).to.deep.equal({ data: { taskCount: 6 } });
    expect((await post(hashOnly(sha256(query).toUpperCase()))).body).to.deep.equal({ data: { taskCount: 6 } });
    // Runs as whoever sends the hash.
    expect((await post(hashOnly(sha256(query)), USERS.alice)).body).to.deep.equal({ data: { taskCount: 3 } });
  });

  it('refuses a malformed extension with 400 INVALID_REQUEST', async () => {
    for (const [persistedQuery, message] of [
      [{ version: 2, sha256Hash: sha256('x') }, 'extensions.persistedQuery.version must be 1'],
      [{ version: 1, sha256Hash: 'abc' }, 'extensions.persistedQuery.sha256Hash must be a SHA-256 hash'],
      ['yes', "'extensions.persistedQuery' must be an object"],
    ] as const) {
      const res = await post({ extensions: { persistedQuery } });
      expect(res.status).to.equal(400);
      expect(res.body.errors[0].extensions.code).to.equal('INVALID_REQUEST');
      expect(res.body.errors[0].message).to.contain(message);
    }
    const badGet = await gqlGet(s, { extensions: '{not json' }, USERS.admin);
    expect([badGet.status, badGet.body.errors[0].message]).to.deep.equal([400, "'extensions' must be a JSON object"]);
  });

  it('is bounded: maxEntries (least recently used first) and maxQueryLength', async () => {
    const queries = ['{ a: projectCount }', '{ b: projectCount }', '{ c: projectCount }'];
    for (const query of queries) await post({ query, ...hashOnly(sha256(query)) });
    // maxEntries 2: the first is gone, the other two are there.
    expect((await post(hashOnly(sha256(queries[0])))).body.errors[0].extensions.code).to.equal('PERSISTED_QUERY_NOT_FOUND');
    expect((await post(hashOnly(sha256(queries[1])))).body.data).to.deep.equal({ b: 3 });
    expect((await post(hashOnly(sha256(queries[2])))).body.data).to.deep.equal({ c: 3 });
    // Longer than maxQueryLength (200): runs, is not kept.
    const long = `{ projectCount ${'# padding\n'.repeat(30)}}`;
    expect((await post({ query: long, ...hashOnly(sha256(long)) })).body).to.deep.equal({ data: { projectCount: 3 } });
    expect((await post(hashOnly(sha256(long)))).body.errors[0].extensions.code).to.equal('PERSISTED_QUERY_NOT_FOUND');
  });

  it('keeps the least recently used order (unit)', () => {
    const store = new PersistedQueryStore({ maxEntries: 2, maxQueryLength: 10 });
    store.set('a', 'A');
    store.set('b', 'B');
    expect(store.get('a')).to.equal('A');
    store.set('c', 'C');
    expect([store.get('a'), store.get('b'), store.get('c'), store.size]).to.deep.equal(['A', undefined, 'C', 2]);
    store.set('d', 'x'.repeat(11));
    expect(store.get('d')).to.equal(undefined);
  });

  it('keeps one store per kernel', async () => {
    const other = await startGraphQLServer();
    try {
      const query = '{ accountCount }';
      expect((await post({ query, ...hashOnly(sha256(query)) })).body.data).to.deep.equal({ accountCount: 3 });
      const there = await other.request('POST', '/api/graphql', hashOnly(sha256(query)), as(USERS.admin));
      expect(there.body.errors[0].extensions.code).to.equal('PERSISTED_QUERY_NOT_FOUND');
    } finally {
      await other.stop();
    }
  });

  it('with persistedQueries: false a hash alone is PERSISTED_QUERY_NOT_SUPPORTED, and the link stops sending hashes', async () => {
    const off = await startGraphQLServer({ persistedQueries: false });
    try {
      const sent: Array<{ method: string; body: any }> = [];
      const link = new PersistedQueryLink({ sha256 }).concat(
        new HttpLink({ uri: `${off.url}/api/graphql`, fetch: recordingFetch(sent), headers: as(USERS.admin) }),
      );
      const apollo = client(link);
      expect((await apollo.query({ query: tag`{ projectCount }` })).data).to.deep.equal({ projectCount: 3 });
      expect((await apollo.query({ query: tag`{ taskCount }` })).data).to.deep.equal({ taskCount: 6 });
      expect(sent.map((r) => [typeof r.body.query, r.body.extensions?.persistedQuery === undefined])).to.deep.equal([
        ['undefined', false],
        ['string', true],
        ['string', true],
      ]);
      const res = await off.request('POST', '/api/graphql', hashOnly(sha256('{ projectCount }')), as(USERS.admin));
      expect([res.status, res.body.errors[0].extensions.code]).to.deep.equal([200, 'PERSISTED_QUERY_NOT_SUPPORTED']);
    } finally {
      await off.stop();
    }
  });
});

describe('GraphQL batched requests', () => {
  let s: TestServer;
  before(async () => {
    s = await startGraphQLServer({ batching: { maxBatchSize: 3 }, maxCost: 500 });
  });
  after(async () => {
    await s?.stop();
  });
  const post = (body: unknown, user: object = USERS.admin) => s.request('POST', '/api/graphql', body, as(user as never));

  it("Apollo's BatchHttpLink sends arrays that work", async () => {
    const sent: Array<{ method: string; body: any }> = [];
    const apollo = client(
      new BatchHttpLink({
        uri: `${s.url}/api/graphql`,
        fetch: recordingFetch(sent),
        headers: as(USERS.alice),
        batchMax: 3,
        batchInterval: 20,
      }),
    );
    const [projects, tasks, one] = await Promise.all([
      apollo.query({ query: tag`{ projectCount }` }),
      apollo.query({
        query: tag`query T($w: TaskFilter) { taskList(where: $w, sort: "id") { id } }`,
        variables: { w: { done: { eq: true } } },
      }),
      apollo.query({ query: tag`{ project(id: "prj-apollo") { id owner } }` }),
    ]);
    expect(sent).to.have.length(1);
    expect(sent[0].body).to.be.an('array').with.length(3);
    expect(projects.data).to.deep.equal({ projectCount: 2 });
    expect(tasks.data).to.deep.equal({
      taskList: [
        { __typename: 'Task', id: 'tsk-apollo-design' },
        { __typename: 'Task', id: 'tsk-mercury-handover' },
      ],
    });
    expect(one.data).to.deep.equal({ project: { __typename: 'Project', id: 'prj-apollo', owner: 'alice' } });
  });

  it('answers each operation as if sent alone, in order, with HTTP 200', async () => {
    const res = await post([{ query: '{ projectCount }' }, { query: '{ nope }' }, { query: '{ projectList(top: 400) { id name } }' }]);
    expect(res.status).to.equal(200);
    expect(res.body).to.have.length(3);
    expect(res.body[0]).to.deep.equal({ data: { projectCount: 3 } });
    expect(res.body[1].errors[0].extensions.code).to.equal('GRAPHQL_VALIDATION_FAILED');
    // Each operation against maxCost alone (1 + 400 × 2 > 500).
    expect(res.body[2].errors[0].extensions.details).to.deep.equal({ limit: 'maxCost', max: 500 });
    const mixed = await post(['not an operation', { query: 'mutation { deleteProject(id: "prj-gemini") { id } }' }], USERS.viewer);
    expect(mixed.status).to.equal(200);
    expect(mixed.body[0].errors[0].message).to.contain('must be a JSON object');
    expect(mixed.body[1].errors[0].extensions.code).to.equal('FORBIDDEN');
  });

  it('refuses a batch larger than batching.maxBatchSize, or empty, as a whole with 400', async () => {
    const big = await post(Array.from({ length: 4 }, () => ({ query: '{ projectCount }' })));
    expect(big.status).to.equal(400);
    expect(big.body.errors[0]).to.deep.equal({
      message: 'A batch may hold at most 3 operations, got 4',
      extensions: { code: 'INVALID_REQUEST', details: { limit: 'batching.maxBatchSize', max: 3 } },
    });
    const empty = await post([]);
    expect([empty.status, empty.body.errors[0].message]).to.deep.equal([400, 'A batch must hold at least one operation']);
  });

  it('with batching: false, an array body is refused with 400', async () => {
    const off = await startGraphQLServer({ batching: false });
    try {
      const res = await off.request('POST', '/api/graphql', [{ query: '{ projectCount }' }], as(USERS.admin));
      expect(res.status).to.equal(400);
      expect(res.body.errors[0].message).to.contain('Batched requests (a JSON array of operations) are not enabled here');
    } finally {
      await off.stop();
    }
  });

  it('counts each operation against the rate limit, as if sent alone', async () => {
    const limited = await startGraphQLServer({}, { 'rate-limit': { tiers: { authenticated: { perMinute: 3, perHour: 100 } } } });
    try {
      const res = await limited.request(
        'POST',
        '/api/graphql',
        Array.from({ length: 5 }, () => ({ query: '{ projectCount }' })),
        as(USERS.admin),
      );
      expect(res.status).to.equal(200);
      expect(res.body.slice(0, 3)).to.deep.equal(Array.from({ length: 3 }, () => ({ data: { projectCount: 3 } })));
      for (const refused of res.body.slice(3)) expect(refused.errors[0].extensions.code).to.equal('RATE_LIMIT_EXCEEDED');
      expect(res.headers.get('x-ratelimit-remaining')).to.equal('0');
      const next = await limited.request('POST', '/api/graphql', { query: '{ projectCount }' }, as(USERS.admin));
      expect(next.status).to.equal(429);
    } finally {
      await limited.stop();
    }
  });

  it('batches hashes of persisted queries too', async () => {
    const query = '{ milestoneCount }';
    const persisted = { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } };
    const res = await post([persisted, { query, ...persisted }, persisted]);
    expect(res.body[0].errors[0].extensions.code).to.equal('PERSISTED_QUERY_NOT_FOUND');
    expect(res.body[1]).to.deep.equal(res.body[2]);
    expect(res.body[2].data.milestoneCount).to.be.a('number');
  });
});
