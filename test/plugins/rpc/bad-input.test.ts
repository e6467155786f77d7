/**
 * Malformed and hostile JSON-RPC requests against a real server over HTTP. Every case checks the
 * status, the error code and that the message names what is wrong; after every case the server
 * still answers and the whole store is exactly as it was (compared record by record).
 */
import { expect } from 'chai';
import { resolve } from 'node:path';
import { SAMPLE_METADATA, startServer, USERS, type TestServer } from '../../helpers/server';
import { call, expectError, expectFieldError, ok, snapshot, type Res } from './ops-helpers';

type Case = [label: string, send: (s: TestServer) => Promise<Res>, status: number, code: string, named: string[]];

function rpcCase(label: string, op: string, object: string, args: unknown, status: number, code: string, ...named: string[]): Case {
  return [label, (s) => call(s, op, object, args), status, code, named];
}
const bad = (label: string, op: string, args: unknown, ...named: string[]): Case =>
  rpcCase(label, op, 'project', args, 400, 'INVALID_REQUEST', ...named);

function nested(levels: number): unknown {
  let filter: unknown = ['name', '=', 'x'];
  for (let i = 1; i < levels; i++) filter = [filter];
  return filter;
}

describe('JSON-RPC bad input', () => {
  let s: TestServer;
  let initial: Record<string, unknown[]>;
  let path: string;

  before(async () => {
    s = await startServer({ security: { allowBodyUser: true } });
    path = s.kernel.http.routes.rpc;
    initial = await snapshot(s);
    expect(initial.project).to.have.length(3);
  });
  after(async () => {
    await s?.stop();
  });
  afterEach(async () => {
    expect((await s.request('GET', '/health')).status).to.equal(200);
    expect(await snapshot(s)).to.deep.equal(initial);
  });

  /** A raw POST to the JSON-RPC route: the test sets the body and headers exactly. */
  async function post(init: RequestInit): Promise<Res> {
    const res = await fetch(s.url + path, { method: 'POST', ...init });
    return { status: res.status, body: await res.json() };
  }

  function runCases(cases: Case[]): void {
    for (const [label, send, status, code, named] of cases) {
      it(`${label} → ${status} ${code}`, async () => {
        expectError(await send(s), status, code, ...named);
      });
    }
  }

  const carol = JSON.stringify(USERS.carol);
  const countBody = JSON.stringify({ op: 'count', object: 'project', args: {}, user: USERS.carol });

  describe('the request body', () => {
    runCases([
      ['malformed JSON', (t) => t.rpc('{"op":'), 400, 'INVALID_REQUEST', ['Malformed JSON']],
      [
        'malformed JSON with a valid prefix',
        (t) => t.rpc(`{"op":"delete","object":"project","args":{"id":"prj-apollo"},"user":${carol}`),
        400,
        'INVALID_REQUEST',
        ['Malformed JSON'],
      ],
      ['an array body', (t) => t.rpc(`[${countBody}]`), 400, 'INVALID_REQUEST', ['JSON object']],
      ['a number body', (t) => t.rpc('42'), 400, 'INVALID_REQUEST', ['JSON object']],
      ['a string body', (t) => t.rpc('"count"'), 400, 'INVALID_REQUEST', ['JSON object']],
      ['a null body', (t) => t.rpc('null'), 400, 'INVALID_REQUEST', ['JSON object']],
      [
        'content-type text/plain',
        (t) => t.rpc(countBody, { 'content-type': 'text/plain' }),
        400,
        'INVALID_REQUEST',
        ['Content-Type', 'text/plain'],
      ],
      [
        'content-type form',
        (t) => t.rpc(countBody, { 'content-type': 'application/x-www-form-urlencoded' }),
        400,
        'INVALID_REQUEST',
        ['Content-Type', 'application/x-www-form-urlencoded'],
      ],
      [
        'an unsupported charset',
        (t) => t.rpc(countBody, { 'content-type': 'application/json; charset=latin-9' }),
        400,
        'INVALID_REQUEST',
        ['charset', 'LATIN-9'],
      ],
      ['missing op', (t) => t.rpc({ object: 'project', args: {} }), 400, 'INVALID_REQUEST', ["'op'"]],
      ['op not a string', (t) => t.rpc({ op: 7, object: 'project', args: {} }), 400, 'INVALID_REQUEST', ["'op'"]],
      ['unknown op', (t) => t.rpc({ op: 'upsert', object: 'project', args: {} }), 400, 'INVALID_REQUEST', ["'upsert'"]],
      ['missing object', (t) => t.rpc({ op: 'find', args: {} }), 400, 'INVALID_REQUEST', ["'object'"]],
      ['object not a string', (t) => t.rpc({ op: 'find', object: ['project'], args: {} }), 400, 'INVALID_REQUEST', ["'object'"]],
      [
        'unknown request field',
        (t) => t.rpc({ op: 'find', object: 'project', args: {}, filters: {} }),
        400,
        'INVALID_REQUEST',
        ["'filters'"],
      ],
      ['user not an object', (t) => t.rpc({ op: 'find', object: 'project', args: {}, user: 'root' }), 400, 'INVALID_REQUEST', ["'user'"]],
      [
        'user roles not a list',
        (t) => t.rpc({ op: 'find', object: 'project', args: {}, user: { id: 'x', roles: 'admin' } }),
        400,
        'INVALID_REQUEST',
        ["'user.roles'"],
      ],
      rpcCase('unknown object (find)', 'find', 'planet', {}, 404, 'NOT_FOUND', "'planet'"),
      rpcCase('unknown object (create)', 'create', 'planet', { name: 'Mars' }, 404, 'NOT_FOUND', "'planet'"),
      rpcCase('unknown object (deleteMany)', 'deleteMany', 'planet', { filters: {} }, 404, 'NOT_FOUND', "'planet'"),
    ]);

    it('a body over 1 MiB is INVALID_REQUEST naming the limit; just under it is served', async () => {
      const huge = JSON.stringify({ op: 'create', object: 'account', args: { name: 'x'.repeat(1_100_000) }, user: USERS.carol });
      expectError(await s.rpc(huge), 400, 'INVALID_REQUEST', '1048576');
      const underLimit = JSON.stringify({
        op: 'count',
        object: 'account',
        args: { filters: { name: 'x'.repeat(1_000_000) } },
        user: USERS.carol,
      });
      expect(ok(await s.rpc(underLimit))).to.deep.equal({ count: 0, '@type': 'account' });
    });

    it('JSON content types with a charset or a +json suffix are served', async () => {
      expect(ok(await s.rpc(countBody, { 'content-type': 'application/json; charset=utf-8' })).count).to.equal(3);
      expect(ok(await s.rpc(countBody, { 'content-type': 'application/vnd.api+json' })).count).to.equal(3);
    });

    it('a body without a content-type names the missing header', async () => {
      const res = await post({ body: new Blob([countBody]) });
      expectError(res, 400, 'INVALID_REQUEST', 'Content-Type', 'none');
      expect(res.body.error.details).to.deep.equal({ parameter: 'Content-Type' });
    });

    it('a chunked body (no Content-Length) is held to the same rule', async () => {
      const chunked = (contentType?: string) =>
        post({
          body: new Blob([countBody]).stream(),
          duplex: 'half',
          headers: contentType ? { 'content-type': contentType } : {},
        });
      expectError(await chunked(), 400, 'INVALID_REQUEST', 'Content-Type', 'none');
      expectError(await chunked('text/plain'), 400, 'INVALID_REQUEST', 'Content-Type', 'text/plain');
      expect(ok(await chunked('application/json')).count).to.equal(3);
    });

    it('no body at all (Content-Length: 0) passes the Content-Type rule: the answer says what is missing', async () => {
      const types: Array<Record<string, string>> = [{}, { 'content-type': 'text/plain' }];
      for (const headers of types) {
        const res = await post({ headers: { ...headers, 'content-length': '0' } });
        expectError(res, 400, 'INVALID_REQUEST', 'Request body must be a JSON object {op, object, args}');
      }
      // An empty body declared as JSON is read as {}: what it lacks first is 'op'.
      const empty = await post({ headers: { 'content-type': 'application/json', 'content-length': '0' } });
      expectError(empty, 400, 'INVALID_REQUEST', "'op' is required");
    });
  });

  describe('args of the wrong type', () => {
    runCases([
      bad('an unknown count argument', 'count', { where: { status: 'active' } }, "'where'"),
      bad('an unknown update argument', 'update', { id: 'prj-apollo', data: { name: 'x' }, upsert: true }, "'upsert'"),
      bad('an unknown delete argument', 'delete', { id: 'prj-apollo', cascade: false }, "'cascade'"),
      bad('an unknown action argument', 'action', { action: 'summary', params: {} }, "'params'"),
      bad('an unknown updateMany argument', 'updateMany', { filters: {}, data: { name: 'x' }, limit: 1 }, "'limit'"),
      bad('an unknown deleteMany argument', 'deleteMany', { filter: { status: 'done' } }, "'filter'"),
    ]);
    runCases([
      bad('find: a number', 'find', 42, 'find'),
      bad('find: an array', 'find', [], 'find'),
      bad('find: an unknown argument', 'find', { where: {} }, "'where'"),
      bad('findOne: a number', 'findOne', 42, 'findOne'),
      bad('findOne: an array', 'findOne', ['prj-apollo'], 'findOne'),
      bad('findOne: null', 'findOne', null, 'findOne'),
      bad('findOne: filters a number', 'findOne', { filters: 5 }, 'filters'),
      bad('create: a string', 'create', 'Apollo', 'create'),
      bad('create: an array', 'create', [{ name: 'A' }], 'create'),
      bad('create: null', 'create', null, 'create'),
      bad('update: a string', 'update', 'prj-apollo', 'update'),
      bad('update: id a number', 'update', { id: 5, data: { priority: 'low' } }, "'id'"),
      bad('update: data missing', 'update', { id: 'prj-apollo' }, "'data'"),
      bad('update: data a string', 'update', { id: 'prj-apollo', data: 'low' }, "'data'"),
      bad('delete: a number', 'delete', 42, 'delete'),
      bad('delete: id missing', 'delete', {}, "'id'"),
      bad('delete: id a number', 'delete', { id: 7 }, "'id'"),
      bad('count: a string', 'count', 'all', 'count'),
      bad('count: filters a number', 'count', { filters: 1 }, 'filters'),
      bad('action: a string', 'action', 'close', 'action'),
      bad('action: action missing', 'action', { id: 'prj-apollo' }, "'action'"),
      bad('action: id a number', 'action', { action: 'close', id: 5, input: { reason: 'x' } }, "'id'"),
      bad('action: input an array', 'action', { action: 'close', id: 'prj-apollo', input: ['x'] }, "'input'"),
      bad('createMany: an object', 'createMany', { name: 'A' }, 'createMany'),
      bad('createMany: null', 'createMany', null, 'createMany'),
      bad('updateMany: a string', 'updateMany', 'all', 'updateMany'),
      bad('updateMany: filters missing', 'updateMany', { data: { priority: 'low' } }, "'filters'"),
      bad('updateMany: data missing', 'updateMany', { filters: {} }, "'data'"),
      bad('updateMany: filters a string', 'updateMany', { filters: 'all', data: { priority: 'low' } }, 'filters'),
      bad('deleteMany: an array', 'deleteMany', [], 'deleteMany'),
      bad('deleteMany: filters missing', 'deleteMany', {}, "'filters'"),
      bad('deleteMany: filters a number', 'deleteMany', { filters: 0 }, 'filters'),
      bad('fields: a string', 'find', { fields: 'name' }, "'fields'"),
      bad('expand: a string', 'find', { expand: 'account' }, "'expand'"),
      bad('expand options: a string', 'find', { expand: { account: 'yes' } }, 'expand.account'),
    ]);

    it('createMany: an item that is not an object is listed in errors; nothing is created', async () => {
      const res = ok(await call(s, 'createMany', 'account', ['Acme', 7]));
      expect(res).to.include({ count: 0, '@type': 'account' });
      expect(res.items).to.deep.equal([]);
      expect(res.errors.map((e: any) => [e.index, e.error.code])).to.deep.equal([
        [0, 'INVALID_REQUEST'],
        [1, 'INVALID_REQUEST'],
      ]);
      expect(res.errors[0].error.message).to.include("'account'");
    });
  });

  describe('unknown fields', () => {
    runCases([
      bad('in fields', 'find', { fields: ['name', 'colour'] }, "'colour'", "'project'"),
      bad('in array filters', 'find', { filters: [['colour', '=', 'red']] }, "'colour'"),
      bad('in map filters', 'find', { filters: { colour: 'red' } }, "'colour'"),
      bad('in count filters', 'count', { filters: [['colour', '=', 'red']] }, "'colour'"),
      bad('in findOne filters', 'findOne', { filters: { colour: 'red' } }, "'colour'"),
      bad('in updateMany filters', 'updateMany', { filters: { colour: 'red' }, data: { priority: 'low' } }, "'colour'"),
      bad('in deleteMany filters', 'deleteMany', { filters: { colour: 'red' } }, "'colour'"),
      bad('in sort (pairs)', 'find', { sort: [['colour', 'asc']] }, "'colour'"),
      bad('in sort (string)', 'find', { sort: 'name, -colour' }, "'colour'"),
      bad('in groupBy', 'find', { groupBy: ['colour'], aggregate: [{ func: 'count', alias: 'n' }] }, "'colour'"),
      bad('in aggregate', 'find', { aggregate: [{ func: 'sum', field: 'colour', alias: 'n' }] }, "'colour'"),
      bad('in expand', 'find', { expand: { colour: {} } }, "'colour'"),
    ]);

    it('a member filtering, sorting or selecting a hidden field gets the same error as for an unknown one', async () => {
      for (const args of [{ filters: [['actual_cost', '>', 0]] }, { sort: 'actual_cost' }, { fields: ['actual_cost'] }]) {
        expectError(await call(s, 'find', 'project', args, USERS.alice), 400, 'INVALID_REQUEST', "'actual_cost'");
      }
    });

    it('in create and update data: VALIDATION_ERROR naming the field', async () => {
      expect(expectFieldError(await call(s, 'create', 'account', { name: 'Colourful', colour: 'red' }), 'colour')).to.equal(
        'unknown field',
      );
      expect(expectFieldError(await call(s, 'update', 'project', { id: 'prj-apollo', data: { colour: 'red' } }), 'colour')).to.equal(
        'unknown field',
      );
    });

    it('keys named after Object.prototype members (__proto__, constructor) are unknown fields, not ignored', async () => {
      for (const [op, args] of [
        ['create', '{"name":"Proto Ltd","__proto__":{"active":false}}'],
        ['update', '{"id":"acc-acme","data":{"__proto__":{"name":"x"}}}'],
      ]) {
        const res = await s.rpc(`{"op":"${op}","object":"account","args":${args},"user":${carol}}`);
        expect(expectFieldError(res, '__proto__')).to.equal('unknown field');
      }
      expect(expectFieldError(await call(s, 'create', 'account', { name: 'Ctor Ltd', constructor: 'x' }), 'constructor')).to.equal(
        'unknown field',
      );
      expectError(await call(s, 'find', 'account', { filters: { constructor: 'x' } }), 400, 'INVALID_REQUEST', "'constructor'");
    });

    it('in updateMany data: rejected up front, naming the field, whether or not anything matches', async () => {
      for (const filters of [{ owner: 'alice' }, { owner: 'nobody-owns-this' }]) {
        const res = await call(s, 'updateMany', 'project', { filters, data: { colour: 'red' } });
        expect(expectFieldError(res, 'colour')).to.equal('unknown field');
      }
    });
  });

  describe('filters', () => {
    runCases([
      bad('unknown operator', 'find', { filters: [['name', '~~', 'x']] }, '"~~"'),
      bad(
        'unknown operator in a nested group',
        'find',
        {
          filters: [
            ['status', '=', 'active'],
            'or',
            [
              ['budget', '>', 1],
              ['budget', 'bigger', 2],
            ],
          ],
        },
        '"bigger"',
      ),
      bad('unknown operator in map form', 'find', { filters: { budget: ['>>', 5] } }, "'budget'"),
      bad('an operator the field type does not take', 'find', { filters: [['budget', 'like', '1%']] }, "'like'", "'budget'"),
      bad('a value of the wrong type', 'find', { filters: [['budget', '>', 'lots']] }, "'budget'", 'number'),
      bad('a select value not among the options', 'find', { filters: [['status', '=', 'archived']] }, "'status'", 'planning'),
      bad('in without an array', 'find', { filters: [['status', 'in', 'active']] }, "'in'", "'status'"),
      bad('a dangling joiner', 'find', { filters: [['name', '=', 'x'], 'and'] }, 'joiner'),
      bad('nested 50 levels deep', 'find', { filters: nested(50) }, 'nested deeper than 16'),
      bad('nested 17 levels deep', 'count', { filters: nested(17) }, 'nested deeper than 16'),
      bad('201 conditions', 'find', { filters: Array.from({ length: 201 }, (_, i) => ['name', '=', `n${i}`]) }, 'more than 200 conditions'),
      bad(
        '201 conditions in map form',
        'deleteMany',
        { filters: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`f${i}`, i])) },
        'more than 200 conditions',
      ),
    ]);

    it('16 levels and 200 conditions are within the limits', async () => {
      expect(ok(await call(s, 'count', 'project', { filters: nested(16) })).count).to.equal(0);
      const conditions = Array.from({ length: 200 }, (_, i) => ['name', '!=', `n${i}`]);
      expect(ok(await call(s, 'count', 'project', { filters: conditions })).count).to.equal(3);
    });

    it('100,000 levels of nesting are refused without harm', async () => {
      const deep = '['.repeat(100_000) + ']'.repeat(100_000);
      const res = await s.rpc(`{"op":"find","object":"project","args":{"filters":${deep}},"user":${carol}}`);
      // Refused by the body parser (limits.maxJsonDepth, 64), before the filter's own depth check.
      expectError(res, 400, 'INVALID_REQUEST', 'The request body is nested deeper than 64 levels');
    });
  });

  describe('paging and sort', () => {
    runCases([
      bad('top 1e9', 'find', { top: 1e9 }, "'top'", '1000'),
      bad('top 1001', 'find', { top: 1001 }, "'top'", '1000'),
      bad('negative top', 'find', { top: -1 }, "'top'", '-1'),
      bad('fractional top', 'find', { top: 2.5 }, "'top'", '2.5'),
      bad('top as a string', 'find', { top: '10' }, "'top'"),
      bad('top and limit that disagree', 'find', { top: 1, limit: 2 }, "'top' (1) and 'limit' (2) disagree"),
      bad('limit 1001', 'find', { limit: 1001 }, "'top' may be at most 1000, got 1001"),
      bad('negative skip', 'find', { skip: -5 }, "'skip'", '-5'),
      bad('fractional skip', 'find', { skip: 0.5 }, "'skip'", '0.5'),
      bad('skip as a string', 'find', { skip: 'x' }, "'skip'"),
      bad('bad sort direction (pair)', 'find', { sort: [['name', 'up']] }, 'invalid direction', 'up'),
      bad('bad sort direction (string)', 'find', { sort: 'name sideways' }, 'invalid direction', 'sideways'),
      bad('sort direction not a string', 'find', { sort: [['name', 1]] }, 'invalid direction', 'name'),
      bad('sort by a json field', 'find', { sort: 'settings' }, "'settings'"),
    ]);

    it('top 1000 is allowed', async () => {
      expect(ok(await call(s, 'find', 'project', { top: 1000 })).meta).to.include({ total: 3, size: 1000 });
    });
  });

  describe('expand', () => {
    runCases([
      bad('a field that is not a relation', 'find', { expand: { name: {} } }, "'name'", 'not a relation'),
      bad('a non-relation at the second level', 'find', { expand: { account: { expand: { industry: {} } } } }, "'industry'"),
      rpcCase(
        'an unknown field at the third level',
        'find',
        'task',
        { expand: { project: { expand: { account: { expand: { owner: {} } } } } } },
        400,
        'INVALID_REQUEST',
        "'owner'",
        "'account'",
      ),
    ]);
  });
});

describe('JSON-RPC expand depth', () => {
  let s: TestServer;
  // An object related to itself (test/fixtures/metadata/rpc-expand), so expand can go four deep.
  const parent = (inner?: Record<string, unknown>) => ({ parent: { fields: ['name', 'parent'], ...(inner ? { expand: inner } : {}) } });

  before(async () => {
    s = await startServer({
      security: { allowBodyUser: true },
      metadata: [SAMPLE_METADATA, resolve(__dirname, '../../fixtures/metadata/rpc-expand')],
    });
  });
  after(async () => {
    await s?.stop();
  });

  it('three levels are served', async () => {
    const res = ok(await call(s, 'findOne', 'category', { filters: { id: 'cat-4' }, fields: ['name'], expand: parent(parent(parent())) }));
    // The root has no parent: the relation asked for is there, null.
    expect(res.parent.parent.parent).to.deep.equal({ id: 'cat-1', name: 'Root', parent: null });
  });

  it('a fourth level is EXPAND_DEPTH_EXCEEDED naming the maximum, for find and findOne', async () => {
    const expand = parent(parent(parent(parent())));
    for (const op of ['find', 'findOne']) {
      const res = await call(s, op, 'category', { filters: { id: 'cat-4' }, expand });
      expectError(res, 400, 'EXPAND_DEPTH_EXCEEDED', '3');
      expect(res.body.error.details).to.deep.equal({ max_depth: 3 });
    }
    expect(ok(await call(s, 'count', 'category', {})).count).to.equal(4);
  });
});
