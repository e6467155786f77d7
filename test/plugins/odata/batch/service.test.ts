/**
 * executeBatch with the real OData service as its dispatcher, on SQLite ':memory:' (no HTTP: the
 * route's own tests cover that): changesets commit or roll back whole, checked by reading the store.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestContext } from '../../../../kernel';
import { ODataService } from '../../../../plugins/odata';
import { executeBatch } from '../../../../plugins/odata/batch';
import { parseOptions } from '../../../../plugins/odata/options';
import { startServer, type TestServer } from '../../../helpers/server';
import { multipartBatch, readMultipartResponse, type BatchItem, type ReadResponse } from './helpers';

const CTX: RequestContext = { user: { id: 'carol', roles: ['manager'] } };

describe('$batch through the OData service', () => {
  let dir: string;
  let s: TestServer;
  let service: ODataService;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'objectql-batch-svc-'));
    writeFileSync(join(dir, 'book.object.yml'), 'fields:\n  title: {type: text, required: true}\n  pages: {type: number}\n');
    s = await startServer({
      metadata: [dir],
      datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: ':memory:' } } },
      plugins: { odata: {} },
    });
    service = new ODataService(s.kernel, parseOptions({}));
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
  });

  async function batch(items: BatchItem[]) {
    const { contentType, body } = multipartBatch(items);
    const result = await executeBatch({
      contentType,
      body,
      ctx: CTX,
      dispatcher: service,
      engine: s.kernel.engine,
      logger: s.kernel.logger,
      basePath: '/odata',
      limits: { maxParts: 100 },
    });
    expect(result.status, String(result.body)).to.equal(200);
    return readMultipartResponse(result.headers['Content-Type'], result.body);
  }
  const stored = async () => (await s.kernel.engine.repo('book', { system: true }).find({ sort: 'id', fields: ['title', 'pages'] })).items;

  it('commits a changeset: create, update through $1 with If-Match: $1, delete', async () => {
    const parts = await batch([
      {
        changeset: [
          { method: 'POST', url: 'book', body: { title: 'Three', pages: 3 }, contentId: '1' },
          { method: 'PATCH', url: '$1', body: { pages: 33 }, contentId: '2', headers: { 'If-Match': '$1' } },
          { method: 'DELETE', url: "book('b2')", contentId: '3' },
        ],
      },
      { method: 'GET', url: 'book?$select=title&$orderby=title desc' },
    ]);
    const [cs, list] = parts as [{ changeset: ReadResponse[] }, ReadResponse];
    expect(cs.changeset.map((p) => [p.contentId, p.status])).to.deep.equal([
      ['1', 201],
      ['2', 200],
      ['3', 204],
    ]);
    expect(cs.changeset[0].headers.location).to.match(/^\/odata\/book\('/);
    expect(cs.changeset[1].body).to.deep.include({ title: 'Three', pages: 33 });
    expect(list.body.value.map((b: { title: string }) => b.title)).to.deep.equal(['Three', 'One']);
    // The created record's id is random: compare without the store's id order.
    expect((await stored()).map((b) => [b.title, b.pages])).to.have.deep.members([
      ['One', 10],
      ['Three', 33],
    ]);
  });

  it('rolls back everything a failing changeset did, and answers with the failing response alone', async () => {
    const parts = await batch([
      {
        changeset: [
          { method: 'POST', url: 'book', body: { title: 'Gone', pages: 1 }, contentId: 'new' },
          { method: 'PATCH', url: "book('b1')", body: { pages: 11 }, contentId: 'upd' },
          { method: 'DELETE', url: "book('b2')", contentId: 'del' },
          { method: 'PATCH', url: '$new', body: { pages: 'many' }, contentId: 'bad' },
        ],
      },
    ]);
    expect(parts).to.have.length(1);
    const failed = parts[0] as ReadResponse;
    expect(failed).to.deep.include({ status: 400, contentId: 'bad' });
    expect(failed.body.error.code).to.equal('VALIDATION_ERROR');
    expect(failed.body.error.details.map((d: { target: string }) => d.target)).to.deep.equal(['pages']);
    expect((await stored()).map((b) => [b.id, b.title, b.pages])).to.deep.equal([
      ['b1', 'One', 10],
      ['b2', 'Two', 20],
    ]);
  });

  it('a stale If-Match fails its changeset with 412', async () => {
    const parts = await batch([
      {
        changeset: [
          { method: 'PATCH', url: "book('b1')", body: { pages: 12 }, contentId: '1' },
          { method: 'PATCH', url: "book('b2')", body: { pages: 22 }, contentId: '2', headers: { 'If-Match': 'W/"stale"' } },
        ],
      },
    ]);
    expect(parts[0]).to.deep.include({ status: 412, contentId: '2' });
    expect((await stored()).map((b) => b.pages)).to.deep.equal([10, 20]);
  });
});
