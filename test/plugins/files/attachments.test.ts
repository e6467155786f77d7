/**
 * Attachment values on records, over real HTTP on SQLite: what a create/update may attach, the
 * value stored (what the plugin measured, not what the client claimed), who may upload for a
 * field, who may download once attached, and the clean-up of files no record holds.
 */
import { expect } from 'chai';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { SAMPLE_METADATA, startServer, USERS, type TestServer } from '../../helpers/server';
import { filesClient } from './client';

const FIXTURES = resolve(__dirname, 'fixtures');
const { alice, bob, carol, viewer, admin } = USERS;

describe('files: attachment values on records (SQLite)', () => {
  let s: TestServer;
  let dir: string;
  let files: ReturnType<typeof filesClient>;
  let png: Buffer;

  const config = (storeDir: string) => ({
    metadata: [SAMPLE_METADATA, FIXTURES],
    datasources: { default: { driver: 'sql' as const, client: 'better-sqlite3', connection: { filename: join(storeDir, 'db.sqlite') } } },
    security: { allowBodyUser: true },
    plugins: { rpc: true, files: { storage: { type: 'local' as const, baseDir: join(storeDir, 'uploads') } } },
  });
  const rpc = async (user: object, op: string, args: unknown) => await s.rpc({ op, object: 'doc', args, user });
  const stored = async () => (await readdir(join(dir, 'uploads'))).filter((n) => !n.startsWith('.')).sort();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oql-attach-'));
    s = await startServer(config(dir), { identityFromHeader: true });
    files = filesClient(s);
    png = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 1, g: 2, b: 3 } } })
      .png()
      .toBuffer();
  });
  after(async () => {
    await s?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('stores the attachment the plugin measured, whatever the client claims', async () => {
    const a = await files.upload(alice, 'hello file', 'hello.txt', { object: 'doc', field: 'attachment' });
    const created = await rpc(alice, 'create', { name: 'one', attachment: { ...a, size: 1, type: 'text/html', width: 5 } });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const got = await rpc(alice, 'findOne', created.body.id);
    expect(got.body.attachment).to.deep.equal(a);
  });

  it('a single image field and a multiple one hold uploads; null filters find them', async () => {
    const one = await files.upload(alice, png, 'a.png', { object: 'doc', field: 'gallery' });
    const two = await files.upload(alice, png, 'b.png', { object: 'doc', field: 'gallery' });
    const photo = await files.upload(alice, png, 'p.png', { object: 'doc', field: 'photo' });
    const r = await rpc(alice, 'create', { name: 'pics', gallery: [one, two], photo });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    const got = (await rpc(alice, 'findOne', r.body.id)).body;
    expect(got.gallery.map((g: any) => g.id)).to.deep.equal([one.id, two.id]);
    expect(got.photo).to.include({ id: photo.id, width: 40, height: 30 });
    const withGallery = await rpc(alice, 'find', { filters: [['gallery', '!=', null]], fields: ['name'] });
    expect(withGallery.body.items.map((d: any) => d.name)).to.deep.equal(['pics']);
    const withoutPhoto = await rpc(alice, 'find', { filters: [['photo', '=', null]], fields: ['name'] });
    expect(withoutPhoto.body.items.map((d: any) => d.name))
      .to.include('one')
      .and.not.include('pics');
  });

  it('an image on a file field is a plain file attachment (no image keys), uploaded for it or not', async () => {
    const forField = await files.upload(alice, png, 'shot.png', { object: 'doc', field: 'attachment' });
    expect(forField).to.not.have.any.keys('width', 'height', 'thumbnail_url', 'variants');
    const loose = await files.upload(alice, png, 'loose.png');
    expect(loose).to.include({ width: 40, height: 30 });
    for (const a of [forField, loose]) {
      const r = await rpc(alice, 'create', { name: `png ${a.name}`, attachment: a });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.attachment).to.include({ id: a.id, type: 'image/png' }).and.not.have.any.keys('width', 'variants');
    }
  });

  it('refuses a file that does not exist, naming the field', async () => {
    const r = await rpc(alice, 'create', {
      name: 'x',
      attachment: { id: 'abcdef0123456789abcdef0123456789.txt', name: 'x.txt', url: '/api/files/x', size: 3, type: 'text/plain' },
    });
    expect(r.status).to.equal(400);
    expect(r.body.error.code).to.equal('VALIDATION_ERROR');
    expect(r.body.error.details.fields).to.have.key('attachment');
  });

  it("refuses another user's unattached upload with FILE_ACCESS_DENIED, and stores nothing", async () => {
    const a = await files.upload(alice, 'alice only', 'mine.txt');
    const before = (await rpc(carol, 'count', {})).body.count;
    const r = await rpc(bob, 'create', { name: 'stolen', attachment: a });
    expect(r.status).to.equal(403);
    expect(r.body.error.code).to.equal('FILE_ACCESS_DENIED');
    expect((await rpc(carol, 'count', {})).body.count).to.equal(before);
    expect((await files.get(`/${a.id}`, {}, bob)).status).to.equal(403);
    expect((await files.get(`/${a.id}`, {}, alice)).status).to.equal(200);
    expect((await files.get(`/${a.id}`, {}, admin)).status).to.equal(200);
  });

  it("holds the field's rules for what was measured: an upload without a field can be too big for it", async () => {
    const big = await files.upload(alice, 'x'.repeat(3000), 'big.txt');
    const r = await rpc(alice, 'create', { name: 'big', attachment: big });
    expect(r.status).to.equal(400);
    expect(r.body.error.code).to.equal('VALIDATION_ERROR');
    expect(r.body.error.details.fields.attachment).to.match(/at most 2000/);
  });

  it('upload for a field needs the right to write it; a hidden field reads as unknown', async () => {
    let r = await files.post('/upload', formOf('view only'), viewer);
    expect(r.status).to.equal(403);
    expect(r.body.error.code).to.equal('FILE_ACCESS_DENIED');
    r = await files.post('/upload', formOf('secret', 'contract'), alice);
    expect(r.status).to.equal(400);
    expect(r.body.error.code).to.equal('FILE_VALIDATION_ERROR');
    expect(r.body.error.details.reason).to.equal('invalid_field');
    r = await files.post('/upload', formOf('fine', 'contract'), carol);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
  });

  it('an attached file is readable by readers of the record and its field only', async () => {
    const c = await files.upload(carol, 'the contract', 'contract.txt', { object: 'doc', field: 'contract' });
    const created = await rpc(carol, 'create', { name: 'deal', contract: c });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect((await files.get(`/${c.id}`, {}, carol)).status).to.equal(200);
    expect((await files.get(`/${c.id}`, {}, viewer)).status).to.equal(200);
    // alice is a member: the record is not hers, and the field is hidden from members anyway.
    expect((await files.get(`/${c.id}`, {}, alice)).status).to.equal(403);
    expect((await files.get(`/${c.id}`, {}, null)).status).to.equal(401);
  });

  it('a file replaced, removed, or whose record is deleted is deleted; one still held by another record stays', async () => {
    const first = await files.upload(alice, 'first!', 'first.txt');
    const second = await files.upload(alice, 'second', 'second.txt');
    const doc = (await rpc(alice, 'create', { name: 'swap', attachment: first })).body;
    const twin = await rpc(alice, 'create', { name: 'twin', attachment: second });
    expect(twin.status, JSON.stringify(twin.body)).to.equal(200);

    expect((await rpc(alice, 'update', { id: doc.id, data: { attachment: second } })).status).to.equal(200);
    expect((await files.get(`/${first.id}`, {}, alice)).status).to.equal(404);
    expect(await stored()).to.not.include(first.id);

    // second is now held by two records: deleting one keeps it for the other.
    expect((await rpc(alice, 'delete', { id: doc.id })).status).to.equal(200);
    expect((await files.get(`/${second.id}`, {}, alice)).status).to.equal(200);
    expect((await rpc(alice, 'update', { id: twin.body.id, data: { attachment: null } })).status).to.equal(200);
    expect((await files.get(`/${second.id}`, {}, alice)).status).to.equal(404);
    expect(await stored()).to.not.include(second.id);
  });

  it('a write that fails deletes nothing', async () => {
    const kept = await files.upload(alice, 'kept!', 'kept.txt');
    const doc = (await rpc(alice, 'create', { name: 'kept', attachment: kept })).body;
    const r = await rpc(alice, 'update', { id: doc.id, data: { attachment: null, name: 12 } });
    expect(r.status).to.equal(400);
    expect((await files.get(`/${kept.id}`, {}, alice)).status).to.equal(200);
  });

  it('access rules and references survive a restart (local storage keeps its records on disk)', async () => {
    const c = await files.upload(carol, 'persisted', 'p.txt');
    const doc = (await rpc(carol, 'create', { name: 'persisted', attachment: c })).body;
    await s.stop();
    s = await startServer(config(dir), { identityFromHeader: true });
    files = filesClient(s);
    expect((await files.get(`/${c.id}`, {}, viewer)).status).to.equal(200);
    expect((await files.get(`/${c.id}`, {}, bob)).status).to.equal(403);
    expect((await rpc(carol, 'delete', { id: doc.id })).status).to.equal(200);
    expect((await files.get(`/${c.id}`, {}, carol)).status).to.equal(404);
  });

  function formOf(content: string, field = 'attachment'): FormData {
    const f = new FormData();
    f.append('object', 'doc');
    f.append('field', field);
    f.append('file', new Blob([content]), 'f.txt');
    return f;
  }
});

describe('files: uploads never attached', () => {
  it('are deleted once older than orphanTtl; attached ones are kept', async function () {
    const s = await startServer(
      {
        metadata: [SAMPLE_METADATA, FIXTURES],
        security: { allowBodyUser: true },
        plugins: { rpc: true, files: { storage: { type: 'memory' }, orphanTtl: 0.4 } },
      },
      { identityFromHeader: true },
    );
    try {
      const files = filesClient(s);
      const loose = await files.upload(alice, 'loose', 'loose.txt');
      const held = await files.upload(alice, 'held!', 'held.txt');
      expect((await s.rpc({ op: 'create', object: 'doc', args: { name: 'h', attachment: held }, user: alice })).status).to.equal(200);
      // The sweep runs every orphanTtl / 4: wait (bounded) until it has removed the loose file.
      const deadline = Date.now() + 5000;
      while ((await files.get(`/${loose.id}`, {}, alice)).status === 200 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect((await files.get(`/${loose.id}`, {}, alice)).status).to.equal(404);
      expect((await files.get(`/${held.id}`, {}, alice)).status).to.equal(200);
    } finally {
      await s.stop();
    }
  });
});

describe('files: attachments through OData and GraphQL', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer(
      { metadata: [SAMPLE_METADATA, FIXTURES], plugins: { odata: true, graphql: true, files: { storage: { type: 'memory' } } } },
      { identityFromHeader: true },
    );
  });
  after(() => s?.stop());

  const graphql = (user: object, query: string, variables: object) =>
    s.request('POST', '/api/graphql', { query, variables }, { 'x-test-user': JSON.stringify(user) });
  const CREATE = 'mutation($input: DocInput!) { createDoc(input: $input) { id attachment } }';

  it('GraphQL: an own upload attaches (JSON text both ways); another user’s is FILE_ACCESS_DENIED', async () => {
    const files = filesClient(s);
    const mine = await files.upload(alice, 'via graphql', 'g.txt');
    let r = await graphql(alice, CREATE, { input: { name: 'g', attachment: JSON.stringify(mine) } });
    expect(r.body.errors, JSON.stringify(r.body)).to.equal(undefined);
    expect(JSON.parse(r.body.data.createDoc.attachment)).to.deep.equal(mine);
    const theirs = await files.upload(bob, 'bob only', 'b.txt');
    r = await graphql(alice, CREATE, { input: { name: 'g2', attachment: JSON.stringify(theirs) } });
    expect(r.body.errors[0].extensions.code).to.equal('FILE_ACCESS_DENIED');
  });

  it('OData: the same rule, in the OData error format', async () => {
    const theirs = await filesClient(s).upload(bob, 'bob only', 'b.txt');
    const r = await s.request(
      'POST',
      '/odata/doc',
      { name: 'o', attachment: JSON.stringify(theirs) },
      { 'x-test-user': JSON.stringify(alice) },
    );
    expect(r.status).to.equal(403);
    expect(r.body.error.code).to.equal('FILE_ACCESS_DENIED');
  });
});
