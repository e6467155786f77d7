/** The files plugin over real HTTP: uploads, validation, downloads, ranges, images, access. */
import { expect } from 'chai';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { SAMPLE_METADATA, startServer, USERS, type TestServer } from '../../helpers/server';
import { as, filesClient, form } from './client';

const FIXTURES = resolve(__dirname, 'fixtures');

describe('files plugin', () => {
  let s: TestServer;
  let dir: string;
  let png: Buffer;
  let bigPng: Buffer;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oql-files-'));
    s = await startServer(
      {
        metadata: [SAMPLE_METADATA, FIXTURES],
        security: { allowBodyUser: true },
        plugins: { files: { storage: { type: 'local', baseDir: dir } }, rpc: true },
      },
      { identityFromHeader: true },
    );
    png = await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 200, g: 10, b: 10 } } })
      .png()
      .toBuffer();
    bigPng = await sharp({ create: { width: 800, height: 100, channels: 3, background: { r: 0, g: 0, b: 255 } } })
      .png()
      .toBuffer();
  });
  after(async () => {
    await s?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const post = (path: string, body: FormData, user: object | null = USERS.alice) => filesClient(s).post(path, body, user);
  const get = (path: string, headers: Record<string, string> = {}, user: object | null = USERS.alice) =>
    filesClient(s).get(path, headers, user);

  describe('upload', () => {
    it('stores a text file and returns the attachment', async () => {
      const { status, body } = await post('/upload', form({}, [['file', 'hello world', 'hello.txt']]));
      expect(status).to.equal(200);
      const a = body.data;
      expect(a).to.include({ name: 'hello.txt', original_name: 'hello.txt', size: 11, type: 'text/plain', uploaded_by: 'alice' });
      expect(a.id).to.be.a('string');
      expect(a.url).to.equal(`/api/files/${a.id}`);
      expect(Number.isNaN(Date.parse(a.uploaded_at))).to.equal(false);
      const files = await readdir(dir);
      expect(files.length).to.be.greaterThan(0);
    });

    it('returns dimensions, thumbnail and variants for a PNG on an image field', async () => {
      const { status, body } = await post('/upload', form({ object: 'doc', field: 'photo' }, [['file', png, 'red.png']]));
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(body.data).to.include({ type: 'image/png', width: 300, height: 200, size: png.length });
      expect(body.data.thumbnail_url).to.match(/\/thumbnail\?size=small$/);
      expect(Object.keys(body.data.variants)).to.have.members(['small', 'medium', 'large']);
    });

    it('401 without a user', async () => {
      const { status, body } = await post('/upload', form({}, [['file', 'x', 'a.txt']]), null);
      expect(status).to.equal(401);
      expect(body.error.code).to.equal('UNAUTHORIZED');
    });

    it('400 without a file part, and for a non-multipart body', async () => {
      expect((await post('/upload', form({ folder: 'x' }, []))).status).to.equal(400);
      const res = await s.request('POST', '/api/files/upload', { file: 'x' }, as(USERS.alice));
      expect(res.status).to.equal(400);
    });

    it('400 naming an unknown or non-file field', async () => {
      for (const [object, field] of [
        ['doc', 'name'],
        ['doc', 'nope'],
        ['nothing', 'x'],
      ]) {
        const { status, body } = await post('/upload', form({ object, field }, [['file', 'abc', 'a.txt']]));
        expect(status).to.equal(400);
        expect(body.error.code).to.equal('FILE_VALIDATION_ERROR');
        expect(body.error.message).to.contain(`${object}.${field}`);
      }
    });

    it('FILE_TOO_LARGE (413) above max_size, with details, and nothing left stored', async () => {
      const before = (await readdir(dir)).length;
      const { status, body } = await post('/upload', form({ object: 'doc', field: 'attachment' }, [['file', 'x'.repeat(5000), 'big.txt']]));
      expect(status).to.equal(413);
      expect(body.error.code).to.equal('FILE_TOO_LARGE');
      expect(body.error.details).to.deep.equal({ file: 'big.txt', size: 5000, max_size: 2000 });
      expect((await readdir(dir)).length).to.equal(before);
    });

    it('FILE_TOO_SMALL below min_size', async () => {
      const { status, body } = await post('/upload', form({ object: 'doc', field: 'attachment' }, [['file', 'ab', 'small.txt']]));
      expect(status).to.equal(400);
      expect(body.error.code).to.equal('FILE_TOO_SMALL');
    });

    it('FILE_TYPE_NOT_ALLOWED (415) by extension and by content', async () => {
      let r = await post('/upload', form({ object: 'doc', field: 'attachment' }, [['file', 'abcdef', 'a.pdf']]));
      expect(r.status).to.equal(415);
      expect(r.body.error.code).to.equal('FILE_TYPE_NOT_ALLOWED');
      // A .png that is text inside.
      r = await post('/upload', form({ object: 'doc', field: 'attachment' }, [['file', 'not a png at all', 'fake.png']]));
      expect(r.status).to.equal(415);
      expect(r.body.error.code).to.equal('FILE_TYPE_NOT_ALLOWED');
      // A text file on an image field (default accept).
      r = await post('/upload', form({ object: 'doc', field: 'photo' }, [['file', 'abcdef', 'a.txt']]));
      expect(r.status).to.equal(415);
    });

    it('IMAGE_DIMENSIONS_INVALID above max_width, and the stored copy is deleted', async () => {
      const before = (await readdir(dir)).length;
      const { status, body } = await post('/upload', form({ object: 'doc', field: 'photo' }, [['file', bigPng, 'wide.png']]));
      expect(status).to.equal(400);
      expect(body.error.code).to.equal('IMAGE_DIMENSIONS_INVALID');
      expect(body.error.details).to.include({ width: 800, max_width: 500 });
      expect((await readdir(dir)).length).to.equal(before);
    });

    it('IMAGE_DIMENSIONS_INVALID below min_height, naming the bounds', async () => {
      const flat = await sharp({ create: { width: 100, height: 10, channels: 3, background: '#888' } })
        .png()
        .toBuffer();
      const { status, body } = await post('/upload', form({ object: 'doc', field: 'photo' }, [['file', flat, 'flat.png']]));
      expect(status).to.equal(400);
      expect(body.error.code).to.equal('IMAGE_DIMENSIONS_INVALID');
      expect(body.error.details).to.include({ file: 'flat.png', width: 100, height: 10, min_height: 20, max_width: 500 });
      expect(body.error.message).to.contain('height 10 < min_height 20');
    });

    it('an image field refuses a file that looks like a PNG but does not decode', async () => {
      const before = (await readdir(dir)).length;
      const broken = Buffer.concat([png.subarray(0, 16), Buffer.alloc(200, 7)]);
      const { status, body } = await post('/upload', form({ object: 'doc', field: 'photo' }, [['file', broken, 'broken.png']]));
      expect(status).to.equal(400);
      expect(body.error).to.deep.include({ code: 'FILE_VALIDATION_ERROR', details: { file: 'broken.png', reason: 'unreadable_image' } });
      expect((await readdir(dir)).length).to.equal(before);
    });

    it('the type is sniffed from the content, not taken from the client', async () => {
      const f = new FormData();
      f.append('file', new Blob(['just some words'], { type: 'image/png' }), 'words.txt');
      const { status, body } = await post('/upload', f);
      expect(status).to.equal(200);
      expect(body.data.type).to.equal('text/plain');
      const gif = await post('/upload', form({}, [['file', png, 'actually.gif']]));
      expect(gif.status).to.equal(415);
      expect(gif.body.error.details).to.include({ extension: '.gif', type: 'image/png' });
    });

    it('400 for more files than maxFiles in a batch, for object without field, and for a text part after the file', async () => {
      const before = (await readdir(dir)).length;
      const many = Array.from({ length: 11 }, (_, i): [string, string, string] => ['files', `file ${i}`, `f${i}.txt`]);
      let r = await post('/upload/batch', form({}, many));
      expect(r.status).to.equal(400);
      expect(r.body.error).to.deep.include({ code: 'FILE_VALIDATION_ERROR', details: { file: null, reason: 'too_many_files' } });
      expect((await readdir(dir)).length).to.equal(before);
      r = await post('/upload', form({ object: 'doc' }, [['file', 'abc', 'a.txt']]));
      expect(r.status).to.equal(400);
      expect(r.body.error.code).to.equal('INVALID_REQUEST');
      const late = new FormData();
      late.append('file', new Blob(['abc']), 'a.txt');
      late.append('object', 'doc');
      r = await post('/upload', late);
      expect(r.status).to.equal(400);
      expect(r.body.error.message).to.contain("'object' must come before");
      expect((await readdir(dir)).length).to.equal(before);
    });

    it('batch: several files at once; one failure stores none', async () => {
      let r = await post(
        '/upload/batch',
        form({ object: 'doc', field: 'attachment' }, [
          ['files', 'one!', 'one.txt'],
          ['files', png, 'two.png'],
        ]),
      );
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.data.map((a: any) => a.name)).to.deep.equal(['one.txt', 'two.png']);
      const before = (await readdir(dir)).length;
      r = await post(
        '/upload/batch',
        form({ object: 'doc', field: 'attachment' }, [
          ['files', 'fine', 'ok.txt'],
          ['files', 'x'.repeat(3000), 'big.txt'],
        ]),
      );
      expect(r.status).to.equal(413);
      expect((await readdir(dir)).length).to.equal(before);
    });
  });

  describe('download', () => {
    let text: any;
    let image: any;
    before(async () => {
      text = (await post('/upload', form({}, [['file', '0123456789abcdef', 'digits ü.txt']]))).body.data;
      image = (await post('/upload', form({}, [['file', png, 'pic.png']]))).body.data;
    });

    it('serves the file with its headers', async () => {
      const r = await get(`/${text.id}`);
      expect(r.status).to.equal(200);
      expect(r.buffer.toString()).to.equal('0123456789abcdef');
      expect(r.headers.get('content-type')).to.contain('text/plain');
      expect(r.headers.get('content-length')).to.equal('16');
      expect(r.headers.get('accept-ranges')).to.equal('bytes');
      expect(r.headers.get('etag')).to.be.a('string');
      expect(r.headers.get('last-modified')).to.be.a('string');
      expect(r.headers.get('content-disposition')).to.contain("filename*=UTF-8''digits%20%C3%BC.txt");
      const again = await get(`/${text.id}`, { 'if-none-match': r.headers.get('etag')! });
      expect(again.status).to.equal(304);
    });

    it('answers ranges with 206 and 416', async () => {
      let r = await get(`/${text.id}`, { range: 'bytes=2-5' });
      expect(r.status).to.equal(206);
      expect(r.buffer.toString()).to.equal('2345');
      expect(r.headers.get('content-range')).to.equal('bytes 2-5/16');
      r = await get(`/${text.id}`, { range: 'bytes=-3' });
      expect(r.buffer.toString()).to.equal('def');
      r = await get(`/${text.id}`, { range: 'bytes=100-200' });
      expect(r.status).to.equal(416);
      expect(r.headers.get('content-range')).to.equal('bytes */16');
    });

    it('401 without a user; 404 for unknown and traversal ids', async () => {
      expect((await get(`/${text.id}`, {}, null)).status).to.equal(401);
      for (const id of ['nope.txt', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '.objectql-meta', '..%5C..%5Cwindows']) {
        const r = await get(`/${id}`);
        expect(r.status, id).to.equal(404);
        expect(JSON.parse(r.buffer.toString()).error.code, id).to.equal('FILE_NOT_FOUND');
      }
      // A raw path with dot segments, not normalised by the client.
      const status = await new Promise<number>((done, fail) => {
        const u = new URL(s.url);
        const req = httpRequest(
          { host: u.hostname, port: u.port, path: '/api/files/%2e%2e/%2e%2e/etc/passwd', headers: as(USERS.alice) },
          (res) => {
            res.resume();
            done(res.statusCode ?? 0);
          },
        );
        req.on('error', fail);
        req.end();
      });
      expect(status).to.equal(404);
    });

    it('thumbnail and preview of an image', async () => {
      let r = await get(`/${image.id}/thumbnail?size=small`);
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.match(/^image\//);
      expect(r.headers.get('etag')).to.be.a('string');
      let meta = await sharp(r.buffer).metadata();
      expect(Math.max(meta.width, meta.height)).to.be.at.most(64);
      r = await get(`/${image.id}/preview?width=100&height=100`);
      expect(r.status).to.equal(200);
      meta = await sharp(r.buffer).metadata();
      expect(meta.width).to.be.at.most(100);
      const cached = await get(`/${image.id}/preview?width=100&height=100`);
      expect(cached.buffer.equals(r.buffer)).to.equal(true);
    });

    it('400 for bad sizes and bounds, 415 for a non-image', async () => {
      expect((await get(`/${image.id}/thumbnail?size=huge`)).status).to.equal(400);
      expect((await get(`/${image.id}/preview?width=0`)).status).to.equal(400);
      expect((await get(`/${image.id}/preview?width=99999`)).status).to.equal(400);
      expect((await get(`/${image.id}/preview`)).status).to.equal(400);
      expect((await get(`/${text.id}/thumbnail`)).status).to.equal(415);
    });
  });

  describe('access to attached files', () => {
    it('only the uploader and readers of a record holding the file may download it', async () => {
      const up = await post('/upload', form({ object: 'doc', field: 'attachment' }, [['file', 'secret!', 's.txt']]), USERS.alice);
      expect(up.status).to.equal(200);
      const id = up.body.data.id;
      expect((await get(`/${id}`, {}, USERS.alice)).status).to.equal(200);
      // Bob (member, sees only his own docs) cannot: no doc he can read holds it.
      const r = await get(`/${id}`, {}, USERS.bob);
      expect(r.status).to.equal(403);
      expect(JSON.parse(r.buffer.toString()).error.code).to.equal('FILE_ACCESS_DENIED');
      // Once attached to alice's record, a manager (reads all docs) may; bob still may not.
      const created = await s.rpc({ op: 'create', object: 'doc', args: { name: 'd', attachment: up.body.data }, user: USERS.alice });
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
      expect((await get(`/${id}`, {}, USERS.carol)).status).to.equal(200);
      expect((await get(`/${id}`, {}, USERS.bob)).status).to.equal(403);
      // Users without any permission on the object cannot upload for its fields.
      const denied = await post('/upload', form({ object: 'doc', field: 'attachment' }, [['file', 'abc', 'a.txt']]), USERS.nobody);
      expect(denied.status).to.equal(403);
    });
  });
});
