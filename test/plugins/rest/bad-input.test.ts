/**
 * Malformed REST requests against a real server over HTTP. Every case checks the status, the
 * error code and that the message names the parameter or field at fault; after every case the
 * server still answers and the whole store is exactly as it was (compared record by record).
 */
import { expect } from 'chai';
import { USERS, type TestServer } from '../../helpers/server';
import { expectError, rest, snapshot, startRestServer, type Res } from './helpers';

type Case = [label: string, send: (s: TestServer) => Promise<Res>, status: number, code: string, named: string[]];

/** A GET whose raw query string is sent as written. */
const get = (label: string, pathAndQuery: string, ...named: string[]): Case => [
  label,
  (s) => rest(s, 'GET', pathAndQuery),
  400,
  'INVALID_REQUEST',
  named,
];
const send = (label: string, method: string, path: string, body: unknown, status: number, code: string, ...named: string[]): Case => [
  label,
  (s) => rest(s, method, path, body),
  status,
  code,
  named,
];
const bad = (label: string, method: string, path: string, body: unknown, ...named: string[]): Case =>
  send(label, method, path, body, 400, 'INVALID_REQUEST', ...named);

/** A request as carol with the body and headers exactly as given (no JSON encoding, no default Content-Type). */
async function raw(
  s: TestServer,
  method: string,
  path: string,
  init: Omit<RequestInit, 'headers'> & { headers?: Record<string, string> },
): Promise<Res> {
  const headers = { 'x-test-user': JSON.stringify(USERS.carol), ...init.headers };
  const res = await fetch(s.url + s.kernel.http.routes.data + path, { ...init, method, headers });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

describe('REST bad input', () => {
  let s: TestServer;
  let initial: Record<string, unknown[]>;

  before(async () => {
    s = await startRestServer();
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

  function runCases(cases: Case[]): void {
    for (const [label, sendCase, status, code, named] of cases) {
      it(`${label} → ${status} ${code}`, async () => {
        const res = await sendCase(s);
        expectError(res, status, code, ...named);
      });
    }
  }

  describe('list query parameters', () => {
    runCases([
      get('filter that is not JSON', '/project?filter=[["name","=",', "'filter'", 'JSON'),
      get('filter left empty', '/project?filter=', "'filter'"),
      get('filter that is a number', '/project?filter=42', "'filter'"),
      get('filter that is null', '/project?filter=null', "'filter'"),
      get('filter with an unknown operator', `/project?filter=${encodeURIComponent('[["name","~~","x"]]')}`, "'filter'", '~~'),
      get('filter ending with a joiner', `/project?filter=${encodeURIComponent('[["name","=","x"],"and"]')}`, "'filter'"),
      get('filter on an unknown field', `/project?filter=${encodeURIComponent('[["nope","=",1]]')}`, 'nope'),
      get('filter value of the wrong type', `/project?filter=${encodeURIComponent('{"budget":[">","lots"]}')}`, 'budget'),
      get('filter given twice', '/project?filter=[]&filter=[]', "'filter'", 'once'),
      get('negative top', '/project?top=-1', "'top'", 'non-negative integer'),
      get('top that is not a number', '/project?top=ten', "'top'"),
      get('fractional top', '/project?top=1.5', "'top'"),
      get('top in exponent notation', '/project?top=1e2', "'top'"),
      get('top left empty', '/project?top=', "'top'"),
      get('top above the maximum', '/project?top=1001', "'top'", '1000'),
      get('top given twice', '/project?top=1&top=2', "'top'", 'once'),
      get('negative skip', '/project?skip=-3', "'skip'"),
      get('limit that is not a number', '/project?limit=x', "'limit'"),
      // limit stands for top, and the engine's one bound names 'top' for every protocol.
      get('limit above the maximum', '/project?limit=5000', "'top' may be at most 1000, got 5000"),
      get('top and limit that disagree', '/project?top=1&limit=2', "'top'", "'limit'"),
      get('sort on an unknown field', '/project?sort=-nope', 'sort', 'nope'),
      get('sort by a json field', '/project?sort=settings', 'sort', 'settings'),
      get('sort with a bad direction', '/project?sort=name%20sideways', "'sort'", 'sideways'),
      get('sort with the direction twice', '/project?sort=-name%20desc', "'sort'", '-name desc'),
      get('sort with an empty entry', '/project?sort=name,,budget', "'sort'"),
      get('sort in JSON form that is not JSON', '/project?sort=[[', "'sort'", 'JSON'),
      get('fields naming an unknown field', '/project?fields=name,nope', 'fields', 'nope'),
      get('fields left empty', '/project?fields=', "'fields'"),
      get('fields as a JSON array of numbers', '/project?fields=[1,2]', "'fields'"),
      get('expand of a field that is not a relation', '/project?expand=name', 'expand', 'name'),
      get('expand JSON that is not an object', '/project?expand={"account":', "'expand'", 'JSON'),
      get('expand with an unknown option', `/project?expand=${encodeURIComponent('{"account":{"where":1}}')}`, 'expand', 'where'),
      get(
        'expand with a raw filter tree',
        `/project?expand=${encodeURIComponent('{"account":{"filter":{"field":"name","op":"eq","value":"x"}}}')}`,
        'expand',
        "'filter'",
      ),
      get('aggregate that is not an array', `/project?aggregate=${encodeURIComponent('{"func":"count"}')}`, "'aggregate'"),
      get(
        'aggregate with an unknown function',
        `/project?aggregate=${encodeURIComponent('[{"func":"median","field":"budget","alias":"m"}]')}`,
        'median',
      ),
      get(
        'groupBy on an unknown field',
        `/project?groupBy=nope&aggregate=${encodeURIComponent('[{"func":"count","alias":"n"}]')}`,
        'groupBy',
        'nope',
      ),
      get('an unknown parameter', '/project?where=x', "'where'"),
      get('several unknown parameters', '/project?$top=1&Top=2&top=3', "'$top'", "'Top'"),
      get('a parameter of the list route on a record', '/project/prj-apollo?top=1', "'top'"),
      get('an unknown parameter on a record', '/project/prj-apollo?select=name', "'select'"),
    ]);
  });

  describe('unknown objects and routes', () => {
    runCases([
      send('GET list of an unknown object', 'GET', '/nope', undefined, 404, 'NOT_FOUND', 'nope'),
      send('GET record of an unknown object', 'GET', '/nope/1', undefined, 404, 'NOT_FOUND', 'nope'),
      send('POST to an unknown object', 'POST', '/nope', { name: 'x' }, 404, 'NOT_FOUND', 'nope'),
      send('PUT on an unknown object', 'PUT', '/nope/1', { name: 'x' }, 404, 'NOT_FOUND', 'nope'),
      send('DELETE on an unknown object', 'DELETE', '/nope/1', undefined, 404, 'NOT_FOUND', 'nope'),
      send('bulk-delete on an unknown object', 'POST', '/nope/bulk-delete', { filters: {} }, 404, 'NOT_FOUND', 'nope'),
      send('an unknown object wins over bad parameters', 'GET', '/nope?top=-1', undefined, 404, 'NOT_FOUND', 'nope'),
      send('DELETE without an id', 'DELETE', '/project', undefined, 404, 'NOT_FOUND', 'DELETE'),
      send('POST to a record', 'POST', '/project/prj-apollo', { name: 'x' }, 404, 'NOT_FOUND', 'POST'),
      send('a malformed %-escape in the object', 'GET', '/%zz', undefined, 400, 'INVALID_REQUEST', 'percent-encoding', '%zz'),
      send('a malformed %-escape in the id', 'DELETE', '/project/%E0%A4%A', undefined, 400, 'INVALID_REQUEST', 'percent-encoding'),
    ]);
  });

  describe('request bodies', () => {
    runCases([
      bad('malformed JSON on create', 'POST', '/project', '{"name":', 'Malformed JSON'),
      bad('malformed JSON on update', 'PUT', '/project/prj-apollo', '{"priority":"low"', 'Malformed JSON'),
      bad('malformed JSON on bulk-delete', 'POST', '/project/bulk-delete', '{"filters":{}', 'Malformed JSON'),
      bad('a string body on create', 'POST', '/project', '"Apollo"', 'JSON object', 'a string'),
      bad('a number body on create', 'POST', '/project', '42', 'JSON object'),
      bad('a null body on create', 'POST', '/project', 'null', 'JSON object'),
      bad('no body on create', 'POST', '/project', undefined, 'JSON object', 'no body'),
      [
        'a text/plain body on create',
        (t) => rest(t, 'POST', '/project', '{"name":"x"}', USERS.carol, { 'content-type': 'text/plain' }),
        400,
        'INVALID_REQUEST',
        ['Content-Type', 'text/plain'],
      ],
      [
        'a text/plain body on bulk-delete',
        (t) => rest(t, 'POST', '/project/bulk-delete', '{"filters":{}}', USERS.carol, { 'content-type': 'text/plain' }),
        400,
        'INVALID_REQUEST',
        ['Content-Type', 'text/plain'],
      ],
      [
        'a body without a Content-Type on update',
        (t) => raw(t, 'PUT', '/project/prj-apollo', { body: new Blob(['{}']) }),
        400,
        'INVALID_REQUEST',
        ['Content-Type', 'none'],
      ],
      [
        'a chunked body without a Content-Type on create',
        (t) => raw(t, 'POST', '/project', { body: new Blob(['{"name":"x"}']).stream(), duplex: 'half' }),
        400,
        'INVALID_REQUEST',
        ['Content-Type', 'none'],
      ],
      [
        'an empty text/plain body on create (no body: the mapping says so)',
        (t) => raw(t, 'POST', '/project', { headers: { 'content-type': 'text/plain', 'content-length': '0' } }),
        400,
        'INVALID_REQUEST',
        ['JSON object', 'no body'],
      ],
      [
        'an empty body without a Content-Type on bulk-update',
        (t) => raw(t, 'POST', '/project/bulk-update', { headers: { 'content-length': '0' } }),
        400,
        'INVALID_REQUEST',
        ['bulk-update needs a JSON object', 'no body'],
      ],
      bad('an array holding a non-object', 'POST', '/project', [{ name: 'Fine' }, 'not a record'], 'Item 1'),
      bad('an @type naming another object', 'POST', '/project', { name: 'x', '@type': 'task' }, '@type', 'task'),
      bad('a query parameter on create', 'POST', '/project?dryRun=1', { name: 'x' }, "'dryRun'"),
      send('an unknown field on create', 'POST', '/project', { name: 'x', colour: 'red' }, 400, 'VALIDATION_ERROR', 'colour'),
      send('a value of the wrong type on create', 'POST', '/project', { name: 'x', budget: 'lots' }, 400, 'VALIDATION_ERROR', 'budget'),
      send('a missing required field on create', 'POST', '/task', { title: 'Orphan' }, 400, 'VALIDATION_ERROR', 'project'),
      bad('an array body on update', 'PUT', '/project/prj-apollo', [{ priority: 'low' }], 'JSON object', 'an array'),
      bad('a body id that differs from the path', 'PUT', '/project/prj-apollo', { id: 'prj-gemini', priority: 'low' }, 'prj-gemini', 'id'),
      bad('a query parameter on update', 'PATCH', '/project/prj-apollo?fields=name', { priority: 'low' }, "'fields'"),
      send('an unknown field on update', 'PUT', '/project/prj-apollo', { colour: 'red' }, 400, 'VALIDATION_ERROR', 'colour'),
      send(
        'a system field on update',
        'PUT',
        '/project/prj-apollo',
        { created_at: '2020-01-01T00:00:00Z' },
        400,
        'VALIDATION_ERROR',
        'created_at',
      ),
      bad('a query parameter on delete', 'DELETE', '/project/prj-apollo?force=true', undefined, "'force'"),
      bad('bulk-update without filters', 'POST', '/project/bulk-update', { data: { priority: 'low' } }, 'filters'),
      bad('bulk-update without data', 'POST', '/project/bulk-update', { filters: {} }, 'data'),
      bad('bulk-update with data that is an array', 'POST', '/project/bulk-update', { filters: {}, data: [] }, 'data'),
      bad('bulk-update with an unknown body key', 'POST', '/project/bulk-update', { filter: {}, data: { priority: 'low' } }, "'filter'"),
      bad('bulk-update with an array body', 'POST', '/project/bulk-update', [{ filters: {} }], 'bulk-update', 'an array'),
      send(
        'bulk-update with an invalid value',
        'POST',
        '/project/bulk-update',
        { filters: {}, data: { priority: 'extreme' } },
        400,
        'VALIDATION_ERROR',
        'priority',
      ),
      bad('bulk-delete with filters that are a string', 'POST', '/project/bulk-delete', { filters: 'all' }, 'filters'),
      bad('bulk-delete with data', 'POST', '/project/bulk-delete', { filters: {}, data: {} }, "'data'"),
      bad('bulk-delete filtering on an unknown field', 'POST', '/project/bulk-delete', { filters: { nope: 1 } }, 'nope'),
    ]);
  });
});
