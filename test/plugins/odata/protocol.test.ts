/**
 * Protocol details clients rely on, end to end: server-driven paging (Prefer: odata.maxpagesize,
 * the maxPageSize cap, @odata.nextLink followed to the end), PUT as a full replace, HEAD $batch
 * and X-CSRF-Token fetches (the SAP Cloud SDK's before every write), and the SAP SDK's typed
 * numeric literals (`1000D`).
 */
import { expect } from 'chai';
import { identityHeader, USERS, type TestServer } from '../../helpers/server';
import { BASE, describeOnDatabases, expectODataError, key, od, ok, query, startODataServer } from './helpers';

const ids = (body: any): string[] => body.value.map((r: any) => r.id);

/** Follows @odata.nextLink from `first` to the end; the ids of every page, in order. */
async function follow(s: TestServer, first: any, headers: Record<string, string> = {}): Promise<string[][]> {
  const pages = [ids(first)];
  let next: string | undefined = first['@odata.nextLink'];
  while (next) {
    expect(pages.length, 'the links end').to.be.below(10);
    const body = ok(await s.request('GET', next, undefined, { ...identityHeader(USERS.carol), ...headers }));
    pages.push(ids(body));
    next = body['@odata.nextLink'];
  }
  return pages;
}

describeOnDatabases(
  'OData server-driven paging with maxPageSize',
  (server) => {
    it('pages a list without $top at the cap and links to the rest', async () => {
      const first = ok(await query(server(), '/task', { $orderby: 'id', $select: 'id', $count: 'true' }));
      expect(first['@odata.count']).to.equal(6);
      expect(first['@odata.nextLink']).to.equal(`${BASE}/task?%24orderby=id&%24select=id&%24count=true&%24skip=3`);
      const pages = await follow(server(), first);
      expect(pages.map((p) => p.length)).to.deep.equal([3, 3]);
      expect(pages.flat()).to.deep.equal([...pages.flat()].sort());
    });

    it("keeps a $top under the cap as the client's page; cuts one above it and links to the rest of it", async () => {
      expect(ok(await query(server(), '/task', { $top: '2' }))).not.to.have.property('@odata.nextLink');
      const first = ok(await query(server(), '/task', { $orderby: 'id', $top: '5', $skip: '1' }));
      expect(first.value).to.have.length(3);
      const pages = await follow(server(), first);
      expect(pages.map((p) => p.length)).to.deep.equal([3, 2]);
      const all = await follow(server(), ok(await query(server(), '/task', { $orderby: 'id', $select: 'id' })));
      expect(pages.flat()).to.deep.equal(all.flat().slice(1, 6));
    });

    it('honours Prefer: odata.maxpagesize up to the cap and says so in Preference-Applied', async () => {
      const small = await query(server(), '/task', { $orderby: 'id' }, USERS.carol, { prefer: 'odata.maxpagesize=2' });
      expect(ok(small).value).to.have.length(2);
      expect(small.headers.get('preference-applied')).to.equal('odata.maxpagesize=2');
      const pages = await follow(server(), small.body, { prefer: 'odata.maxpagesize=2' });
      expect(pages.map((p) => p.length)).to.deep.equal([2, 2, 2]);
      const big = await query(server(), '/task', {}, USERS.carol, { prefer: 'return=representation, odata.maxpagesize=50' });
      expect(ok(big).value).to.have.length(3);
      expect(big.headers.get('preference-applied')).to.equal('odata.maxpagesize=3');
      expect((await query(server(), '/task', {})).headers.get('preference-applied')).to.equal(null);
    });
  },
  { maxPageSize: 3 },
);

describe('OData maxPageSize option', () => {
  it('may not exceed the kernel limits.maxTop', async () => {
    let failure: unknown;
    try {
      const s = await startODataServer({ maxPageSize: 5000 });
      await s.stop();
    } catch (err) {
      failure = err;
    }
    expect(String(failure)).to.include('maxPageSize 5000').and.include('limits.maxTop');
  });
});

describeOnDatabases('OData PUT, $batch probes, CSRF fetches and typed literals', (server) => {
  const put = (id: string, body: unknown, user = USERS.carol, headers: Record<string, string> = {}) =>
    od(server(), 'PUT', `/project${key(id)}`, body, user, headers);

  it('replaces an entity with PUT: what the body leaves out goes back to its default or null', async () => {
    const created = ok(
      await od(server(), 'POST', '/project', {
        name: 'Replace Me',
        status: 'planning',
        priority: 'high',
        budget: 100,
        tags: ['research'],
        start_date: '2025-01-01',
        owner: 'carol',
      }),
      201,
    );
    const res = await put(created.id, { name: 'Replaced', owner: 'carol', budget: 5 }, USERS.carol, { 'if-match': created['@odata.etag'] });
    const body = ok(res);
    expect(body).to.include({ id: created.id, name: 'Replaced', owner: 'carol', budget: 5, status: 'planning', priority: 'medium' });
    expect(body).to.include({ tags: null, start_date: null, account: null, settings: null });
    expect(body.code, 'auto_number is not reset').to.equal(created.code);
    expect(res.headers.get('etag')).to.equal(body['@odata.etag']);
    const read = ok(await od(server(), 'GET', `/project${key(created.id)}`));
    expect(read).to.include({ name: 'Replaced', status: 'planning', budget: 5, tags: null });
  });

  it('answers PUT like PATCH: required fields by name, If-Match, read-only fields, fields the caller may not edit', async () => {
    const error = expectODataError(await put('prj-gemini', { owner: 'bob' }), 400, 'VALIDATION_ERROR', 'name');
    expect(error.details.map((d: any) => [d.code, d.target])).to.deep.equal([['REQUIRED_FIELD', 'name']]);
    expectODataError(
      await put('prj-gemini', { name: 'Gemini', owner: 'bob' }, USERS.carol, { 'if-match': 'W/"stale"' }),
      412,
      'PRECONDITION_FAILED',
    );
    // A read-only field in the body is refused by PUT as by PATCH.
    const patch = await od(server(), 'PATCH', `/project${key('prj-gemini')}`, { name: 'Gemini', code: 9 });
    const putRes = await put('prj-gemini', { name: 'Gemini', owner: 'bob', code: 9 });
    expect(putRes.status).to.equal(patch.status);
    expect(putRes.body.error.code).to.equal(patch.body.error.code);
    // alice may not edit budget nor read actual_cost: PUT leaves both as they are.
    const before = ok(await od(server(), 'GET', `/project${key('prj-mercury')}`));
    const mine = ok(
      await put('prj-mercury', { name: before.name, owner: 'alice', status: 'done', end_date: before.end_date }, USERS.alice),
    );
    expect(mine.budget).to.equal(before.budget);
    expect(mine).not.to.have.property('actual_cost');
    expect(ok(await od(server(), 'GET', `/project${key('prj-mercury')}`)).actual_cost).to.equal(before.actual_cost);
    expectODataError(await put('no-such', { name: 'x' }), 404, 'NOT_FOUND');
    expectODataError(await put('prj-gemini', { name: 'x' }, USERS.viewer), 403, 'FORBIDDEN');
  });

  it('answers HEAD $batch (the SAP Cloud SDK token fetch) with 200 and no body, GET $batch with 400 and Allow', async () => {
    for (const path of ['/$batch', '/$batch/']) {
      const head = await od(server(), 'HEAD', path, undefined, USERS.carol, { 'x-csrf-token': 'Fetch', 'content-length': '0' });
      expect(head.status, path).to.equal(200);
      expect(head.body).to.equal(undefined);
      expect(head.headers.get('x-csrf-token')).to.equal('unsafe');
      expect(head.headers.get('odata-version')).to.equal('4.0');
    }
    const get = await od(server(), 'GET', '/$batch');
    expectODataError(get, 400, 'INVALID_REQUEST', 'GET', '$batch');
    expect(get.headers.get('allow')).to.equal('POST, HEAD');
  });

  it('answers a CSRF token fetch anywhere, and ignores the token sent back', async () => {
    for (const [method, path] of [
      ['HEAD', '/'],
      ['GET', '/'],
      ['HEAD', '/project/'],
      ['GET', `/project${key('prj-apollo')}`],
    ]) {
      const res = await od(server(), method, path, undefined, USERS.carol, { 'x-csrf-token': 'fetch' });
      expect(res.status, `${method} ${path}`).to.equal(200);
      expect(res.headers.get('x-csrf-token'), `${method} ${path}`).to.equal('unsafe');
    }
    expect((await od(server(), 'GET', '/')).headers.get('x-csrf-token')).to.equal(null);
    const error = await od(server(), 'GET', '/no_such_set', undefined, USERS.carol, { 'x-csrf-token': 'Fetch' });
    expect(error.status).to.equal(404);
    expect(error.headers.get('x-csrf-token')).to.equal('unsafe');
    ok(await od(server(), 'POST', '/account', { name: 'With Token' }, USERS.carol, { 'x-csrf-token': 'unsafe' }), 201);
  });

  it("takes the SAP Cloud SDK's typed numbers (1000D on Edm.Double) in $filter", async () => {
    const plain = ok(await query(server(), '/task', { $filter: 'estimate_hours gt 10', $select: 'id', $orderby: 'id' }));
    expect(plain.value).to.have.length(3);
    for (const typed of ['10D', '10d', '10.0M', '10L', '10.0f'])
      expect(
        ok(await query(server(), '/task', { $filter: `estimate_hours gt ${typed}`, $select: 'id', $orderby: 'id' })).value,
        typed,
      ).to.deep.equal(plain.value);
    expectODataError(await query(server(), '/task', { $filter: 'estimate_hours gt 10X' }), 400, 'INVALID_REQUEST', '10X');
  });
});

describe('OData HEAD $batch with batches off', () => {
  it('is 404 like every $batch request', async () => {
    const s = await startODataServer({ enableBatch: false });
    try {
      const res = await s.request('HEAD', `${BASE}/$batch`, undefined, identityHeader(USERS.carol));
      expect(res.status).to.equal(404);
    } finally {
      await s.stop();
    }
  });
});
