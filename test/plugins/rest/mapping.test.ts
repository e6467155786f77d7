/**
 * The REST mapping without HTTP: query strings → find options (query.ts), and routes → engine
 * calls and response shapes (mapping.ts) against a recording stand-in for the engine.
 */
import { expect } from 'chai';
import { ObjectQLError, type DataEngine, type RequestContext } from '../../../kernel';
import { executeRest, type RestRequest } from '../../../plugins/rest/mapping';
import { assertNoQuery, parseExpandParam, parseListQuery, parseRecordQuery, parseSortParam } from '../../../plugins/rest/query';

const LIMITS = { maxFilterDepth: 16, maxFilterConditions: 200 };
const q = (s: string) => new URLSearchParams(s);

function invalid(fn: () => unknown, ...named: string[]): ObjectQLError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught, 'an error').to.be.instanceOf(ObjectQLError);
  const err = caught as ObjectQLError;
  expect(err.code).to.equal('INVALID_REQUEST');
  for (const name of named) expect(err.message).to.include(name);
  return err;
}

describe('REST mapping: query strings', () => {
  it('maps every list parameter onto find options', () => {
    const options = parseListQuery(
      q(
        'filter=[["status","=","active"]]&sort=-budget,name&top=10&skip=20&fields=name,budget&expand=account&groupBy=status&aggregate=[{"func":"count","alias":"n"}]',
      ),
      LIMITS,
    );
    expect(options).to.deep.equal({
      filters: [['status', '=', 'active']],
      sort: [
        { field: 'budget', dir: 'desc' },
        { field: 'name', dir: 'asc' },
      ],
      top: 10,
      skip: 20,
      fields: ['name', 'budget'],
      expand: { account: {} },
      groupBy: ['status'],
      aggregate: [{ func: 'count', alias: 'n' }],
    });
    expect(parseListQuery(q(''), LIMITS)).to.deep.equal({});
  });

  it('passes the map form of filter on as it is', () => {
    expect(parseListQuery(q('filter={"status":"active","budget":[">",1000]}'), LIMITS).filters).to.deep.equal({
      status: 'active',
      budget: ['>', 1000],
    });
  });

  it('reads every sort syntax', () => {
    const desc = [
      { field: 'price', dir: 'desc' },
      { field: 'name', dir: 'asc' },
    ];
    expect(parseSortParam(['-price,name'])).to.deep.equal(desc);
    expect(parseSortParam(['price desc,name asc'])).to.deep.equal(desc);
    expect(parseSortParam([' price  DESC , +name '])).to.deep.equal(desc);
    expect(parseSortParam(['-price', 'name'])).to.deep.equal(desc);
    expect(parseSortParam(['[["price","desc"],["name","asc"]]'])).to.deep.equal([
      ['price', 'desc'],
      ['name', 'asc'],
    ]);
    invalid(() => parseSortParam(['price up']), "'sort'", 'up');
    invalid(() => parseSortParam(['-price desc']), "'sort'", 'twice');
    invalid(() => parseSortParam(['price,']), "'sort'", 'empty');
    invalid(() => parseSortParam(['-']), "'sort'");
    invalid(() => parseSortParam(['price desc extra']), "'sort'");
    invalid(() => parseSortParam(['[["price"']), "'sort'", 'JSON');
    invalid(() => parseSortParam(['{"price":"desc"}', '[]']), "'sort'");
    invalid(() => parseSortParam(['["price"]', 'name']), "'sort'", 'once');
  });

  it("top, skip and limit are non-negative integers; limit is an alias of top; their bounds are the engine's", () => {
    expect(parseListQuery(q('limit=5'), LIMITS)).to.deep.equal({ top: 5 });
    expect(parseListQuery(q('top=5&limit=5'), LIMITS)).to.deep.equal({ top: 5 });
    expect(parseListQuery(q('top=0&skip=0'), LIMITS)).to.deep.equal({ top: 0, skip: 0 });
    for (const bad of ['-1', '1.5', 'ten', '', ' 1', '1e3', '0x10', '99999999999999999999'])
      invalid(() => parseListQuery(q(`top=${encodeURIComponent(bad)}`), LIMITS), "'top'");
    invalid(() => parseListQuery(q('skip=-1'), LIMITS), "'skip'");
    const conflict = invalid(() => parseListQuery(q('top=1&limit=2'), LIMITS), "'top' (1) and 'limit' (2) disagree");
    expect(conflict.details).to.deep.equal({ parameter: 'limit' });
    // maxTop is checked by the engine (one message for every protocol), not while decoding.
    expect(parseListQuery(q('top=1001'), LIMITS)).to.deep.equal({ top: 1001 });
    expect(parseListQuery(q('limit=1001'), LIMITS)).to.deep.equal({ top: 1001 });
  });

  it('fields and groupBy: comma lists, repeatable, or JSON arrays', () => {
    expect(parseListQuery(q('fields=a,%20b&fields=c'), LIMITS).fields).to.deep.equal(['a', 'b', 'c']);
    expect(parseListQuery(q('fields=["a","b"]'), LIMITS).fields).to.deep.equal(['a', 'b']);
    expect(parseListQuery(q('groupBy=a,b'), LIMITS).groupBy).to.deep.equal(['a', 'b']);
    invalid(() => parseListQuery(q('fields='), LIMITS), "'fields'");
    invalid(() => parseListQuery(q('fields=a,,b'), LIMITS), "'fields'");
    invalid(() => parseListQuery(q('fields=a b'), LIMITS), "'fields'");
    invalid(() => parseListQuery(q('fields=["a",1]'), LIMITS), "'fields'");
    invalid(() => parseListQuery(q('groupBy=[1]'), LIMITS), "'groupBy'");
  });

  it('expand: a JSON map, or a comma list of relations with dotted paths', () => {
    expect(parseExpandParam('account,project')).to.deep.equal({ account: {}, project: {} });
    expect(parseExpandParam('project.account,project.owner.manager,contact')).to.deep.equal({
      project: { expand: { account: {}, owner: { expand: { manager: {} } } } },
      contact: {},
    });
    expect(parseExpandParam('{"account":{"fields":["name"]}}')).to.deep.equal({ account: { fields: ['name'] } });
    const polluted = parseExpandParam('__proto__.x');
    expect(Object.keys(polluted)).to.deep.equal(['__proto__']);
    expect(({} as Record<string, unknown>).expand).to.equal(undefined);
    invalid(() => parseExpandParam('a..b'), "'expand'");
    invalid(() => parseExpandParam('{"a":'), "'expand'", 'JSON');
    invalid(() => parseExpandParam('{}x'), "'expand'");
  });

  it('filter: JSON, an array or an object, of a valid shape', () => {
    invalid(() => parseListQuery(q('filter=[["a","="'), LIMITS), "'filter'", 'JSON');
    invalid(() => parseListQuery(q('filter=42'), LIMITS), "'filter'");
    invalid(() => parseListQuery(q('filter=null'), LIMITS), "'filter'");
    invalid(() => parseListQuery(q('filter=[["a","~","b"]]'), LIMITS), "'filter'", '~');
    invalid(
      () =>
        parseListQuery(
          q(
            `filter=${encodeURIComponent(
              JSON.stringify(
                Array(20)
                  .fill(0)
                  .reduce((f) => [f], ['a', '=', 1]),
              ),
            )}`,
          ),
          LIMITS,
        ),
      "'filter'",
      'deeper',
    );
  });

  it('aggregate is a JSON array', () => {
    invalid(() => parseListQuery(q('aggregate={"func":"count"}'), LIMITS), "'aggregate'");
    invalid(() => parseListQuery(q('aggregate=count'), LIMITS), "'aggregate'", 'JSON');
  });

  it('unknown parameters are one error naming all of them; scalars may not repeat', () => {
    const err = invalid(() => parseListQuery(q('where=1&top=1&Sort=x'), LIMITS), "'where'", "'Sort'");
    expect(err.details).to.deep.equal({ parameters: ['where', 'Sort'] });
    for (const name of ['filter', 'top', 'skip', 'limit', 'expand', 'aggregate'])
      invalid(() => parseListQuery(q(`${name}=1&${name}=1`), LIMITS), `'${name}'`, 'once');
    expect(parseRecordQuery(q('fields=name&expand=account'))).to.deep.equal({ fields: ['name'], expand: { account: {} } });
    invalid(() => parseRecordQuery(q('top=1')), "'top'");
    assertNoQuery(q(''));
    invalid(() => assertNoQuery(q('dryRun=1')), "'dryRun'", 'no query parameters');
  });
});

describe('REST mapping: routes → engine calls', () => {
  const calls: Array<[string, ...unknown[]]> = [];
  /** Records the call, answers `result`. */
  const recorded =
    <A extends unknown[], R>(name: string, result: (...args: A) => R) =>
    (...args: A): Promise<R> => {
      calls.push([name, ...args]);
      return Promise.resolve(result(...args));
    };
  const repo = {
    find: recorded('find', (_o: unknown) => ({
      items: [{ id: 'a' }],
      meta: { total: 1, page: 1, size: 100, pages: 1, has_next: false },
    })),
    findOne: recorded('findOne', (o: unknown) => (o === 'missing' ? null : { id: 'a', name: 'A' })),
    create: recorded('create', (d: unknown) => ({ id: 'new', ...(d as object) })),
    createMany: recorded('createMany', (_items: unknown[]) => ({
      items: [],
      count: 0,
      errors: [{ index: 0, error: { code: 'CONFLICT', message: 'x' } }],
    })),
    update: recorded('update', (id: string, d: unknown) => ({ id, ...(d as object), updated_at: 'now' })),
    delete: recorded('delete', (id: string) => ({ id, deleted: true as const })),
    updateMany: recorded('updateMany', (_f: unknown, _d: unknown) => ({ count: 2 })),
    deleteMany: recorded('deleteMany', (_f: unknown) => ({ count: 3 })),
    permissions: () => ({ readable: new Set(['id', 'name', 'updated_at']) }),
  };
  const engine = {
    limits: LIMITS,
    repo(object: string, ctx: RequestContext) {
      calls.push(['repo', object, ctx.user?.id]);
      if (object !== 'book') throw new ObjectQLError('NOT_FOUND', `Object '${object}' not found`);
      return repo;
    },
  } as unknown as DataEngine;
  const ctx: RequestContext = { user: { id: 'u1', roles: [] } };
  const run = (req: Partial<RestRequest>) => executeRest(engine, { object: 'book', query: q(''), route: 'list', ...req }, ctx);

  beforeEach(() => {
    calls.length = 0;
  });

  it('list → find with the parsed options, as the caller', async () => {
    const res = await run({ route: 'list', query: q('sort=-title&top=5') });
    expect(res).to.deep.equal({
      status: 200,
      body: { items: [{ id: 'a' }], meta: { total: 1, page: 1, size: 100, pages: 1, has_next: false } },
    });
    expect(calls).to.deep.equal([
      ['repo', 'book', 'u1'],
      ['find', { sort: [{ field: 'title', dir: 'desc' }], top: 5 }],
    ]);
  });

  it('get → findOne by id (with fields and expand when given); missing is NOT_FOUND naming it', async () => {
    expect(await run({ route: 'get', id: 'a' })).to.deep.equal({ status: 200, body: { id: 'a', name: 'A', '@type': 'book' } });
    // The ETag's timestamps the caller may read are fetched too (and left out of the answer).
    expect(await run({ route: 'get', id: 'a', query: q('fields=name') })).to.deep.equal({
      status: 200,
      body: { id: 'a', name: 'A', '@type': 'book' },
    });
    expect(calls[3]).to.deep.equal(['findOne', { fields: ['name', 'updated_at'], filter: { field: 'id', op: 'eq', value: 'a' } }]);
    const err = await run({ route: 'get', id: 'missing' }).catch((e) => e);
    expect(err).to.include({ code: 'NOT_FOUND' });
    expect(err.message).to.include("'missing'").and.include("'book'");
  });

  it('create: one record → 201 with createdId; an array → createMany; @type of the object dropped', async () => {
    expect(await run({ route: 'create', body: { title: 'T', '@type': 'book' } })).to.deep.equal({
      status: 201,
      body: { id: 'new', title: 'T', '@type': 'book' },
      createdId: 'new',
    });
    expect(calls[1]).to.deep.equal(['create', { title: 'T' }]);
    expect(await run({ route: 'create', body: [{ title: 'A' }] })).to.deep.equal({
      status: 200,
      body: { items: [], count: 0, errors: [{ index: 0, error: { code: 'CONFLICT', message: 'x' } }], '@type': 'book' },
    });
  });

  it('update: the path id wins; a body id must agree', async () => {
    expect(await run({ route: 'update', id: 'a', body: { id: 'a', title: 'T' } })).to.deep.equal({
      status: 200,
      body: { id: 'a', title: 'T', updated_at: 'now', '@type': 'book' },
    });
    expect(calls[1]).to.deep.equal(['update', 'a', { title: 'T' }, {}]);
    await run({ route: 'update', id: 'a', body: { id: 'b' } }).then(
      () => expect.fail('no error'),
      (e) => expect(e.message).to.include("'a'").and.include('"b"'),
    );
  });

  it('delete and the bulk routes', async () => {
    expect((await run({ route: 'delete', id: 'a' })).body).to.deep.equal({ id: 'a', deleted: true, '@type': 'book' });
    expect((await run({ route: 'bulkUpdate', body: { filters: { a: 1 }, data: { b: 2 } } })).body).to.deep.equal({
      count: 2,
      '@type': 'book',
    });
    expect((await run({ route: 'bulkDelete', body: { filters: [] } })).body).to.deep.equal({ count: 3, '@type': 'book' });
    expect(calls.filter((c) => c[0] !== 'repo')).to.deep.equal([
      ['delete', 'a', {}],
      ['updateMany', { a: 1 }, { b: 2 }],
      ['deleteMany', []],
    ]);
  });

  it('If-Match → the engine precondition (`*` and no header: none); a record with a timestamp gets an ETag', async () => {
    await run({ route: 'update', id: 'a', body: { title: 'T' }, ifMatch: 'W/"2024-05-01T12:00:00.000Z", "x"' });
    await run({ route: 'delete', id: 'a', ifMatch: 'junk' });
    await run({ route: 'delete', id: 'a', ifMatch: '*' });
    expect(calls.filter((c) => c[0] !== 'repo')).to.deep.equal([
      ['update', 'a', { title: 'T' }, { ifUnchangedSince: ['2024-05-01T12:00:00.000Z', 'x'] }],
      ['delete', 'a', { ifUnchangedSince: [] }],
      ['delete', 'a', {}],
    ]);
    const stamped = { ...repo, update: recorded('update', (id: string) => ({ id, updated_at: new Date('2024-05-01T12:00:00Z') })) };
    const withStamp = { ...engine, repo: () => stamped } as unknown as DataEngine;
    const res = await executeRest(withStamp, { object: 'book', query: q(''), route: 'update', id: 'a', body: {} }, ctx);
    expect(res.headers).to.deep.equal({ ETag: 'W/"2024-05-01T12:00:00.000Z"' });
  });

  it('rejects bad bodies and query parameters on writes before any engine call', async () => {
    const cases: Array<[Partial<RestRequest>, string]> = [
      [{ route: 'create', body: 'x' }, 'JSON object'],
      [{ route: 'create', body: [{}, 1] }, 'Item 1'],
      [{ route: 'create', body: { '@type': 'author' } }, '@type'],
      [{ route: 'create', body: {}, query: q('x=1') }, "'x'"],
      [{ route: 'update', id: 'a', body: [] }, 'JSON object'],
      [{ route: 'bulkUpdate', body: { filters: {} } }, 'data'],
      [{ route: 'bulkUpdate', body: { data: {} } }, 'filters'],
      [{ route: 'bulkDelete', body: { filters: {}, extra: 1 } }, "'extra'"],
      [{ route: 'bulkDelete', body: { filters: 'all' } }, 'filters'],
    ];
    for (const [req, named] of cases) {
      const err = await run(req).then(
        () => undefined,
        (e) => e,
      );
      expect(err, JSON.stringify(req)).to.be.instanceOf(ObjectQLError).and.include({ code: 'INVALID_REQUEST' });
      expect(err.message).to.include(named);
    }
    expect(calls.filter((c) => c[0] !== 'repo')).to.deep.equal([]);
  });

  it('an unknown object is NOT_FOUND before anything else is looked at', async () => {
    const err = await run({ object: 'nope', query: q('top=-1') }).catch((e) => e);
    expect(err).to.include({ code: 'NOT_FOUND' });
  });
});
