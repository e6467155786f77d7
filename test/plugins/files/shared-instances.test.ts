/**
 * Scale-out: two instances (two kernels, each its own server) sharing one PostgreSQL schema and one
 * S3 bucket and nothing else — no folder, no memory. A file uploaded through one is served through
 * the other with its access rules, attached records are seen by both, thumbnails work without a
 * local path, and concurrent attach/detach from both never loses a ref.
 */
import { expect } from 'chai';
import sharp from 'sharp';
import { openNamespace, requireDialect, type Namespace } from '../../drivers/sql/helpers';
import { SAMPLE_METADATA, startServer, USERS, type TestServer } from '../../helpers/server';
import { startS3, type TestS3 } from '../../helpers/s3-server';
import { filesClient } from './client';
import { resolve } from 'node:path';

const FIXTURES = resolve(__dirname, 'fixtures');

describe('files: two instances on one PostgreSQL database and one S3 bucket', function () {
  let ns: Namespace | undefined;
  let s3: TestS3 | undefined;
  const servers: TestServer[] = [];
  let a: TestServer;
  let b: TestServer;

  before(async function () {
    await requireDialect(this, 'postgres');
    ns = await openNamespace('postgres');
    s3 = await startS3();
    const config = () => ({
      metadata: [SAMPLE_METADATA, FIXTURES],
      datasources: { default: ns!.config() as never },
      security: { allowBodyUser: true },
      // No `records` option: s3 storage keeps the upload records in the default datasource.
      plugins: { rpc: true, files: { storage: s3!.storage('uploads') } },
    });
    a = await startServer(config(), { identityFromHeader: true });
    servers.push(a);
    b = await startServer(config(), { identityFromHeader: true });
    servers.push(b);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await s3?.close();
    await ns?.drop();
  });

  const png = () =>
    sharp({ create: { width: 40, height: 30, channels: 3, background: '#08f' } })
      .png()
      .toBuffer();

  it('serves through B what was uploaded through A, to its uploader only until attached', async () => {
    const up = await filesClient(a).upload(USERS.alice, 'hello from A', 'a.txt', { object: 'doc', field: 'attachment' });
    expect(up.url).to.equal(`/api/files/${up.id}`);
    const mine = await filesClient(b).get(`/${up.id}`, {}, USERS.alice);
    expect(mine.status).to.equal(200);
    expect(mine.buffer.toString()).to.equal('hello from A');
    const range = await filesClient(b).get(`/${up.id}`, { range: 'bytes=6-9' }, USERS.alice);
    expect(range.status).to.equal(206);
    expect(range.buffer.toString()).to.equal('from');
    expect((await filesClient(b).get(`/${up.id}`, {}, USERS.bob)).status).to.equal(403);
    const rows = await ns!.admin()('objectql_file').where({ id: up.id });
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ name: 'a.txt', uploaded_by: 'alice' });
  });

  it('sees through A a record attached through B, with its access rules, thumbnails and clean-up', async () => {
    const up = await filesClient(a).upload(USERS.carol, await png(), 'p.png', { object: 'doc', field: 'photo' });
    expect(up).to.include({ width: 40, height: 30 });
    const created = await b.rpc({ op: 'create', object: 'doc', args: { name: 'shared', photo: up }, user: USERS.carol });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect((await filesClient(a).get(`/${up.id}`, {}, USERS.viewer)).status).to.equal(200);
    expect((await filesClient(a).get(`/${up.id}`, {}, USERS.bob)).status).to.equal(403);
    for (const s of [a, b]) {
      const thumb = await filesClient(s).get(`/${up.id}/thumbnail?size=small`, {}, USERS.viewer);
      expect(thumb.status).to.equal(200);
      expect(thumb.headers.get('content-type')).to.equal('image/png');
      const meta = await sharp(thumb.buffer).metadata();
      expect([meta.width, meta.height]).to.deep.equal([40, 30]);
    }
    const preview = await filesClient(b).get(`/${up.id}/preview?width=20`, {}, USERS.viewer);
    expect((await sharp(preview.buffer).metadata()).width).to.equal(20);
    expect((await a.rpc({ op: 'delete', object: 'doc', args: { id: created.body.id }, user: USERS.carol })).status).to.equal(200);
    expect((await filesClient(b).get(`/${up.id}`, {}, USERS.carol)).status).to.equal(404);
    expect((await s3!.keys()).some((k) => k.endsWith(up.id))).to.equal(false);
    expect(await ns!.admin()('objectql_file').where({ id: up.id })).to.have.length(0);
  });

  it('keeps every ref when both instances attach and detach one file at once', async () => {
    const up = await filesClient(a).upload(USERS.carol, 'shared by many', 's.txt', { object: 'doc', field: 'attachment' });
    const make = (s: TestServer, i: number) =>
      s.rpc({ op: 'create', object: 'doc', args: { name: `r${i}`, attachment: up }, user: USERS.carol });
    const made = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => make(i % 2 ? a : b, i)));
    for (const m of made) expect(m.status, JSON.stringify(m.body)).to.equal(200);
    expect(await ns!.admin()('objectql_file_ref').where({ file: up.id })).to.have.length(6);
    const [last, ...rest] = made.map((m) => m.body.id as string);
    await Promise.all(rest.map((id, i) => (i % 2 ? a : b).rpc({ op: 'delete', object: 'doc', args: { id }, user: USERS.carol })));
    expect((await filesClient(a).get(`/${up.id}`, {}, USERS.viewer)).status).to.equal(200);
    expect(await ns!.admin()('objectql_file_ref').where({ file: up.id })).to.have.length(1);
    await b.rpc({ op: 'delete', object: 'doc', args: { id: last }, user: USERS.carol });
    expect((await filesClient(a).get(`/${up.id}`, {}, USERS.carol)).status).to.equal(404);
    expect((await s3!.keys()).some((k) => k.endsWith(up.id))).to.equal(false);
  });
});
