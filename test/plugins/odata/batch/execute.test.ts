/**
 * executeBatch against a real engine (SQLite ':memory:'), with a small fake dispatcher standing in
 * for the OData service: GET/POST/PATCH/DELETE on `/<object>` and `/<object>('<id>')`.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordChange, RequestContext } from '../../../../kernel';
import { errorResponse, executeBatch, type BatchDispatcher, type BatchInput, type ODataRequest } from '../../../../plugins/odata/batch';
import { startServer, type TestServer } from '../../../helpers/server';
import { multipartBatch, readMultipartResponse, type BatchItem, type ReadResponse } from './helpers';

const CTX: RequestContext = { user: { id: 'u1', roles: ['member'] } };

describe('$batch: executeBatch', () => {
  let dir: string;
  let s: TestServer;
  let calls: ODataRequest[] = [];
  let changes: RecordChange[] = [];

  const dispatcher: BatchDispatcher = {
    async handle(req, ctx, engine) {
      calls.push(req);
      try {
        if (req.url === '/boom') throw new Error('a bug in the service');
        if (req.url === '/swallow') {
          // A service that hides a failed write: the changeset's transaction is rollback-only anyway.
          await engine
            .repo('book', ctx)
            .create({})
            .catch(() => undefined);
          return { status: 204, headers: {} };
        }
        const m = /^\/(\w+)(?:\('([^']*)'\))?(\?.*)?$/.exec(req.url);
        if (!m) return { status: 404, headers: {}, body: { error: { code: 'NOT_FOUND', message: `no resource ${req.url}` } } };
        const [, set, key] = m;
        const repo = engine.repo(set, ctx);
        const entity = (status: number, record: Record<string, unknown>) => ({
          status,
          headers: {
            'Content-Type': 'application/json',
            ETag: `W/"${String(record.updated_at)}"`,
            ...(status === 201 ? { Location: `/odata/${set}('${String(record.id)}')` } : {}),
          },
          body: record,
        });
        if (req.method === 'GET' && key === undefined)
          return {
            status: 200,
            headers: { 'Content-Type': 'application/json' },
            body: { value: (await repo.find({ sort: 'title' })).items },
          };
        if (req.method === 'GET') {
          const record = await repo.findOne(key);
          return record ? entity(200, record) : errorResponse(Object.assign(new Error(`no ${key}`), { code: 'NOT_FOUND' }));
        }
        if (req.method === 'POST') return entity(201, await repo.create(req.body as Record<string, unknown>));
        if (req.method === 'PATCH') {
          const current = await repo.findOne(key);
          if (current && req.headers['if-match'] && req.headers['if-match'] !== `W/"${String(current.updated_at)}"`) {
            return errorResponse(Object.assign(new Error('ETag mismatch'), { code: 'PRECONDITION_FAILED' }));
          }
          await repo.update(key, req.body as Record<string, unknown>);
          return entity(200, (await repo.findOne(key))!);
        }
        await repo.delete(key);
        return { status: 204, headers: {} };
      } catch (err) {
        return errorResponse(err);
      }
    },
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'objectql-batch-'));
    writeFileSync(join(dir, 'book.object.yml'), 'fields:\n  title: {type: text, required: true}\n  pages: {type: number}\n');
    s = await startServer({
      metadata: [dir],
      datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: ':memory:' } } },
    });
    s.kernel.hooks.recordChanged.tap('test', (change) => {
      changes.push(change);
    });
  });
  after(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await s.kernel.engine.repo('book', { system: true }).deleteMany({});
    await s.kernel.engine.repo('book', { system: true }).createMany([
      { id: 'b1', title: 'One', pages: 10 },
      { id: 'b2', title: 'Two', pages: 20 },
    ]);
    calls = [];
    changes = [];
  });

  const input = (contentType: string, body: unknown, extra: Partial<BatchInput> = {}): BatchInput => ({
    contentType,
    body,
    ctx: CTX,
    dispatcher,
    engine: s.kernel.engine,
    logger: s.kernel.logger,
    basePath: '/odata',
    limits: { maxParts: 20 },
    ...extra,
  });
  async function multipart(items: BatchItem[], extra: Partial<BatchInput> = {}, options: { lf?: boolean } = {}) {
    const { contentType, body } = multipartBatch(items, options);
    const result = await executeBatch(input(contentType, body, extra));
    expect(result.status, String(result.body)).to.equal(200);
    expect(result.headers['Content-Type']).to.match(/^multipart\/mixed; boundary=batchresponse_[0-9a-f-]{36}$/);
    expect(result.headers['OData-Version']).to.equal('4.0');
    return { result, parts: readMultipartResponse(result.headers['Content-Type'], result.body) };
  }
  const titles = async () => (await s.kernel.engine.repo('book', CTX).find({ sort: 'title' })).items.map((b) => b.title);

  it('answers each GET in order, outside transactions, as application/http parts', async () => {
    const { parts } = await multipart([
      { method: 'GET', url: "book('b1')" },
      { method: 'GET', url: '/odata/book?$top=5' },
      { method: 'GET', url: "book('nope')" },
    ]);
    expect(parts.map((p) => ('status' in p ? p.status : 0))).to.deep.equal([200, 200, 404]);
    const [one, list, missing] = parts as ReadResponse[];
    expect(one.body).to.deep.include({ id: 'b1', title: 'One' });
    expect(one.headers.etag).to.match(/^W\//);
    expect(list.body.value.map((b: { title: string }) => b.title)).to.deep.equal(['One', 'Two']);
    expect(missing.body.error.code).to.equal('NOT_FOUND');
    expect(calls.map((c) => [c.method, c.url])).to.deep.equal([
      ['GET', "/book('b1')"],
      ['GET', '/book?$top=5'],
      ['GET', "/book('nope')"],
    ]);
  });

  it('commits a changeset as one unit; $<Content-ID> and If-Match: $<Content-ID> name what an earlier request made', async () => {
    const { parts } = await multipart([
      {
        changeset: [
          { method: 'POST', url: 'book', body: { title: 'Three', pages: 30 }, contentId: '1' },
          { method: 'PATCH', url: '$1', body: { pages: 31 }, contentId: '2', headers: { 'If-Match': '$1' } },
          { method: 'DELETE', url: "book('b2')", contentId: '3' },
        ],
      },
      { method: 'GET', url: 'book' },
    ]);
    expect(parts).to.have.length(2);
    const [cs, list] = parts as [{ changeset: ReadResponse[] }, ReadResponse];
    expect(cs.changeset.map((p) => [p.contentId, p.status])).to.deep.equal([
      ['1', 201],
      ['2', 200],
      ['3', 204],
    ]);
    const id = cs.changeset[0].body.id;
    expect(cs.changeset[0].headers.location).to.equal(`/odata/book('${id}')`);
    expect(calls[1]).to.deep.include({ method: 'PATCH', url: `/book('${id}')` });
    expect(calls[1].headers['if-match']).to.equal(cs.changeset[0].headers.etag);
    expect(list.body.value.map((b: { title: string; pages: number }) => [b.title, b.pages])).to.deep.equal([
      ['One', 10],
      ['Three', 31],
    ]);
    expect(changes.map((c) => [c.object, c.type])).to.deep.equal([
      ['book', 'created'],
      ['book', 'updated'],
      ['book', 'deleted'],
    ]);
  });

  it('rolls a failing changeset back whole and answers with the failing response alone, then stops', async () => {
    const { parts } = await multipart([
      { method: 'GET', url: "book('b1')" },
      {
        changeset: [
          { method: 'POST', url: 'book', body: { title: 'Kept?' }, contentId: 'a' },
          { method: 'PATCH', url: "book('b1')", body: { title: 'Changed?' }, contentId: 'b' },
          { method: 'POST', url: 'book', body: { pages: 1 }, contentId: 'c' },
          { method: 'DELETE', url: "book('b2')", contentId: 'd' },
        ],
      },
      { method: 'GET', url: 'book' },
    ]);
    expect(parts).to.have.length(2);
    const failed = parts[1] as ReadResponse;
    expect(failed).to.deep.include({ status: 400, contentId: 'c' });
    expect(failed.body.error.code).to.equal('VALIDATION_ERROR');
    expect(failed.body.error.details).to.deep.include({ code: 'REQUIRED_FIELD', message: 'title: is required', target: 'title' });
    expect(await titles()).to.deep.equal(['One', 'Two']);
    expect(changes).to.deep.equal([]);
    // The DELETE after the failure and the GET after the changeset never ran.
    expect(calls.map((c) => c.method)).to.deep.equal(['GET', 'POST', 'PATCH', 'POST']);
  });

  it('goes on after a failure with Prefer: odata.continue-on-error, and says so', async () => {
    const { result, parts } = await multipart(
      [
        { method: 'GET', url: "book('nope')" },
        { changeset: [{ method: 'POST', url: 'book', body: {} }] },
        { changeset: [{ method: 'POST', url: 'book', body: { title: 'Three' } }] },
      ],
      { headers: { prefer: 'return=minimal, odata.continue-on-error' } },
    );
    expect(result.headers['Preference-Applied']).to.equal('odata.continue-on-error');
    expect(parts.map((p) => ('status' in p ? p.status : p.changeset.map((c) => c.status)))).to.deep.equal([404, 400, [201]]);
    expect(await titles()).to.deep.equal(['One', 'Three', 'Two']);
  });

  it('runs a write outside any changeset on its own, and reads LF-only bodies', async () => {
    const { parts } = await multipart(
      [
        { method: 'POST', url: 'book', body: { title: 'Solo' } },
        { method: 'GET', url: 'book' },
      ],
      {},
      { lf: true },
    );
    expect((parts[0] as ReadResponse).status).to.equal(201);
    expect((parts[1] as ReadResponse).body.value).to.have.length(3);
  });

  it('fails a reference to a request that made no entity, and an If-Match naming no ETag', async () => {
    const { parts } = await multipart(
      [
        {
          changeset: [
            { method: 'DELETE', url: "book('b1')", contentId: '1' },
            { method: 'PATCH', url: '$1', body: { pages: 1 }, contentId: '2' },
          ],
        },
        {
          changeset: [
            { method: 'PATCH', url: "book('b2')", contentId: '1', body: { pages: 2 } },
            { method: 'PATCH', url: '$1', body: { pages: 3 }, contentId: '2', headers: { 'If-Match': '$2' } },
          ],
        },
      ],
      { headers: { prefer: 'odata.continue-on-error' } },
    );
    const [first, second] = parts as ReadResponse[];
    expect(first).to.deep.include({ status: 400, contentId: '2' });
    expect(first.body.error.message).to.match(/'\$1' names a request that returned no entity URL/);
    expect(first.body.error.details).to.deep.equal([
      { code: 'INVALID_REQUEST', message: "'$1' names a request that returned no entity URL", target: 'part 1.2' },
    ]);
    expect(second.body.error.message).to.match(/'if-match: \$2' names no request that returned an ETag/);
    expect(await titles()).to.deep.equal(['One', 'Two']);
    expect((await s.kernel.engine.repo('book', CTX).findOne('b2'))?.pages).to.equal(20);
  });

  it('answers a request the service throws on with 500 INTERNAL_ERROR, failing its changeset', async () => {
    const { parts } = await multipart([
      {
        changeset: [
          { method: 'POST', url: 'book', body: { title: 'X' }, contentId: '1' },
          { method: 'POST', url: 'boom', body: {}, contentId: '2' },
        ],
      },
    ]);
    const [failed] = parts as ReadResponse[];
    expect(failed).to.deep.include({ status: 500, contentId: '2' });
    expect(failed.body.error).to.deep.include({ code: 'INTERNAL_ERROR', message: 'Internal server error' });
    expect(await titles()).to.deep.equal(['One', 'Two']);
  });

  it('fails a changeset the engine made rollback-only even when every response was a success', async () => {
    const { parts } = await multipart([
      {
        changeset: [
          { method: 'POST', url: 'book', body: { title: 'X' }, contentId: '1' },
          { method: 'POST', url: 'swallow', body: {}, contentId: '2' },
        ],
      },
    ]);
    const [failed] = parts as ReadResponse[];
    expect(failed.status).to.equal(400);
    expect(failed.contentId).to.equal(undefined);
    expect(failed.body.error.code).to.equal('VALIDATION_ERROR');
    expect(await titles()).to.deep.equal(['One', 'Two']);
  });

  it('answers a request with malformed JSON 400 inside its part', async () => {
    const { parts } = await multipart([
      { changeset: [{ method: 'POST', url: 'book', body: '{"title": ', headers: { 'Content-Type': 'application/json' } }] },
    ]);
    expect((parts[0] as ReadResponse).body.error).to.deep.include({ code: 'INVALID_REQUEST' });
    expect((parts[0] as ReadResponse).body.error.message).to.match(/Malformed JSON in request body/);
  });

  describe('malformed batches: 400 INVALID_REQUEST as a whole, nothing run', () => {
    const cases: Array<[string, string, string | Buffer, RegExp, string | undefined]> = [
      ['no boundary', 'multipart/mixed', '--b\r\n--b--', /no boundary parameter/, undefined],
      ['another Content-Type', 'text/plain', 'GET book HTTP/1.1', /Content-Type must be multipart\/mixed/, undefined],
      ['no Content-Type', '', '', /malformed Content-Type/, undefined],
      [
        'a bad part after a good one',
        'multipart/mixed; boundary=b',
        "--b\r\nContent-Type: application/http\r\n\r\nGET book('b1') HTTP/1.1\r\n--b\r\nContent-Type: application/http\r\n\r\nFETCH\r\n--b--",
        /request line/,
        'part 2',
      ],
      [
        'a GET in a changeset',
        'multipart/mixed; boundary=b',
        '--b\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c\r\nContent-Type: application/http\r\n\r\nGET book HTTP/1.1\r\n--c--\r\n--b--',
        /GET is not allowed/,
        'part 1.1',
      ],
      ['malformed JSON batch', 'application/json', '{"requests": [', /malformed JSON/, undefined],
    ];
    for (const [label, contentType, body, message, target] of cases) {
      it(label, async () => {
        const result = await executeBatch(input(contentType, Buffer.isBuffer(body) ? body : Buffer.from(body)));
        expect(result.status).to.equal(400);
        expect(result.headers['Content-Type']).to.match(/^application\/json/);
        const { error } = JSON.parse(String(result.body));
        expect(error.code).to.equal('INVALID_REQUEST');
        expect(error.details[0].message).to.match(message);
        expect(error.details[0].target).to.equal(target);
        expect(calls).to.deep.equal([]);
      });
    }

    it('too many requests, and a body over maxBytes', async () => {
      const items: BatchItem[] = Array.from({ length: 4 }, () => ({ method: 'GET', url: 'book' }));
      const { contentType, body } = multipartBatch(items);
      const tooMany = await executeBatch(input(contentType, body, { limits: { maxParts: 3 } }));
      expect(JSON.parse(String(tooMany.body)).error.details[0].message).to.equal('more than 3 requests in one batch');
      const tooLarge = await executeBatch(input(contentType, body, { limits: { maxParts: 10, maxBytes: 100 } }));
      expect(tooLarge.status).to.equal(400);
      expect(JSON.parse(String(tooLarge.body)).error.details[0].message).to.match(/larger than the limit of 100 bytes/);
      expect(calls).to.deep.equal([]);
    });
  });

  describe('the JSON format (OData 4.01)', () => {
    async function json(body: unknown, extra: Partial<BatchInput> = {}) {
      const result = await executeBatch(input('application/json', body, extra));
      expect(result.status, String(result.body)).to.equal(200);
      expect(result.headers['Content-Type']).to.equal('application/json');
      return {
        result,
        responses: JSON.parse(String(result.body)).responses as Array<{
          id: string;
          status: number;
          atomicityGroup?: string;
          headers?: Record<string, string>;
          body?: any;
        }>,
      };
    }

    it('runs requests, atomicity groups and references, raw or already parsed', async () => {
      const batch = {
        requests: [
          { id: 'g0', method: 'get', url: "book('b1')" },
          { id: 'c1', atomicityGroup: 'g', method: 'post', url: '/odata/book', body: { title: 'Three' } },
          { id: 'c2', atomicityGroup: 'g', method: 'patch', url: '$c1', headers: { 'If-Match': '$c1' }, body: { pages: 3 } },
          { id: 'r', dependsOn: ['g', 'c1'], method: 'get', url: '$c1' },
        ],
      };
      const { responses } = await json(Buffer.from(JSON.stringify(batch)));
      expect(responses.map((r) => [r.id, r.status, r.atomicityGroup])).to.deep.equal([
        ['g0', 200, undefined],
        ['c1', 201, 'g'],
        ['c2', 200, 'g'],
        ['r', 200, undefined],
      ]);
      expect(responses[1].headers?.location).to.match(/^\/odata\/book\('/);
      expect(responses[3].body).to.deep.include({ title: 'Three', pages: 3 });
      await s.kernel.engine.repo('book', { system: true }).delete(responses[3].body.id);
      const parsed = await json(batch);
      expect(parsed.responses.map((r) => r.status)).to.deep.equal([200, 201, 200, 200]);
    });

    it('fails a whole atomicity group (others 424), skips its dependents with 424, goes on with the rest', async () => {
      const { responses } = await json({
        requests: [
          { id: 'a', atomicityGroup: 'g', method: 'post', url: 'book', body: { title: 'Rolled back' } },
          { id: 'b', atomicityGroup: 'g', method: 'post', url: 'book', body: {} },
          { id: 'c', atomicityGroup: 'g', method: 'post', url: 'book', body: { title: 'Never run' } },
          { id: 'd', dependsOn: ['g'], method: 'get', url: 'book' },
          { id: 'e', method: 'post', url: 'book', body: { title: 'Independent' } },
          { id: 'f', method: 'get', url: 'book', if: '$e/$succeeded' },
        ],
      });
      expect(responses.map((r) => [r.id, r.status])).to.deep.equal([
        ['a', 424],
        ['b', 400],
        ['c', 424],
        ['d', 424],
        ['e', 201],
        ['f', 424],
      ]);
      expect(responses[1].body.error.code).to.equal('VALIDATION_ERROR');
      expect(await titles()).to.deep.equal(['Independent', 'One', 'Two']);
    });

    it('stops at the first failure with Prefer: continue-on-error=false', async () => {
      const { result, responses } = await json(
        {
          requests: [
            { id: 'a', method: 'get', url: "book('nope')" },
            { id: 'b', method: 'post', url: 'book', body: { title: 'Not run' } },
          ],
        },
        { headers: { prefer: 'continue-on-error=false' } },
      );
      expect(result.headers['Preference-Applied']).to.equal('continue-on-error=false');
      expect(responses.map((r) => [r.id, r.status])).to.deep.equal([['a', 404]]);
      expect(await titles()).to.deep.equal(['One', 'Two']);
    });

    it('refuses a malformed JSON batch with 400, naming the member', async () => {
      const result = await executeBatch(
        input('application/json; charset=utf-8', { requests: [{ id: 'a', method: 'get', url: '$b', dependsOn: [] }] }),
      );
      expect(result.status).to.equal(400);
      expect(JSON.parse(String(result.body)).error.details[0]).to.deep.include({ target: 'requests[0].url' });
    });
  });
});
