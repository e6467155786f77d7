import { expect } from 'chai';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { LocalStorage } from '../../../../plugins/files/storage/local';
import { MemoryStorage } from '../../../../plugins/files/storage/memory';
import { adaptCustomStorage } from '../../../../plugins/files/storage/custom';
import { isValidFileId, sanitizeFolder, type FileStorage } from '../../../../plugins/files/storage/types';

const src = (data: Buffer | string, chunk = 7): Readable => {
  const buf = Buffer.from(data);
  const parts: Buffer[] = [];
  for (let i = 0; i < buf.length; i += chunk) parts.push(buf.subarray(i, i + chunk));
  return Readable.from(parts);
};
async function readAll(s: NodeJS.ReadableStream | null): Promise<Buffer> {
  expect(s).to.not.equal(null);
  const chunks: Buffer[] = [];
  for await (const c of s as AsyncIterable<Buffer | string>) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}
const info = { filename: 'report.PDF', mimeType: 'application/pdf' };

describe('files: isValidFileId / sanitizeFolder', () => {
  it('accepts generated-style ids and refuses traversal', () => {
    expect(isValidFileId('abc123.png')).to.equal(true);
    expect(isValidFileId('docs--0123abcd.pdf')).to.equal(true);
    for (const bad of [
      '',
      '../x',
      '..',
      'a/../b',
      'a/b',
      '/etc/passwd',
      '.hidden',
      '%2e%2e%2fx',
      '..%2fx',
      'a\\b',
      'a..b',
      'C:\\x',
      'a\0b',
      'x'.repeat(202),
    ]) {
      expect(isValidFileId(bad), bad).to.equal(false);
    }
  });
  it('reduces folders to one safe directory name', () => {
    expect(sanitizeFolder('../a/b c')).to.equal('a_b_c');
    expect(sanitizeFolder('/etc/')).to.equal('etc');
    expect(sanitizeFolder('..%2f..')).to.equal('2f');
    expect(sanitizeFolder('../..')).to.equal(undefined);
    expect(sanitizeFolder('')).to.equal(undefined);
    expect(sanitizeFolder(undefined)).to.equal(undefined);
  });
});

/** A backend under test, and how many things it still holds (files, folders, temporaries). */
interface ContractSetup {
  storage: FileStorage;
  leftovers: () => number | Promise<number>;
}

function contract(name: string, make: () => ContractSetup | Promise<ContractSetup>): void {
  describe(`files: ${name} storage`, () => {
    let storage: FileStorage;
    let leftovers: ContractSetup['leftovers'];
    beforeEach(async () => ({ storage, leftovers } = await make()));
    afterEach(async () => {
      await storage.close?.();
    });

    it('put/open/stat/delete round trip', async () => {
      const body = Buffer.from('hello world, this is a file body');
      const stored = await storage.put(src(body), info, { maxBytes: 1000 });
      expect(stored.size).to.equal(body.length);
      expect(isValidFileId(stored.id)).to.equal(true);
      expect(stored.id).to.not.include('report');
      expect((await readAll(await storage.open(stored.id))).equals(body)).to.equal(true);
      const st = await storage.stat(stored.id);
      expect(st?.size).to.equal(body.length);
      expect(st?.mtime).to.be.instanceOf(Date);
      expect(storage.getPublicUrl(stored.id)).to.match(new RegExp(`/files/${stored.id.replace(/\./g, '\\.')}$`));
      expect(await storage.delete(stored.id)).to.equal(true);
      expect(await storage.open(stored.id)).to.equal(null);
      expect(await storage.stat(stored.id)).to.equal(null);
      expect(await storage.delete(stored.id)).to.equal(false);
    });

    it('serves inclusive byte ranges, clamped to the file', async () => {
      const stored = await storage.put(src('0123456789'), info, { maxBytes: 100 });
      expect((await readAll(await storage.open(stored.id, { start: 2, end: 4 }))).toString()).to.equal('234');
      expect((await readAll(await storage.open(stored.id, { start: 8, end: 100 }))).toString()).to.equal('89');
      expect((await readAll(await storage.open(stored.id, { start: 20, end: 30 }))).length).to.equal(0);
    });

    it('accepts exactly maxBytes, refuses more with FILE_TOO_LARGE and leaves nothing', async () => {
      const ok = await storage.put(src('x'.repeat(50)), info, { maxBytes: 50 });
      expect(ok.size).to.equal(50);
      await storage.delete(ok.id);
      const before = await leftovers();
      let err: any;
      try {
        await storage.put(src('x'.repeat(51)), info, { maxBytes: 50 });
      } catch (e) {
        err = e;
      }
      expect(err?.code).to.equal('FILE_TOO_LARGE');
      expect(await leftovers()).to.equal(before);
    });

    it('stores an empty file', async () => {
      const stored = await storage.put(src(''), info, { maxBytes: 10 });
      expect(stored.size).to.equal(0);
      expect((await readAll(await storage.open(stored.id))).length).to.equal(0);
    });

    it('keeps the folder in the id after sanitising it', async () => {
      const stored = await storage.put(src('abc'), { ...info, folder: '../../etc/x y' }, { maxBytes: 10 });
      expect(stored.id.startsWith('etc_x_y--')).to.equal(true);
      expect((await readAll(await storage.open(stored.id))).toString()).to.equal('abc');
    });

    it('refuses traversal ids', async () => {
      for (const id of ['../x', '../../etc/passwd', '/etc/passwd', '..%2fx', '%2e%2e%2fetc', '.', '..', 'a/../../b']) {
        expect(await storage.open(id), id).to.equal(null);
        expect(await storage.stat(id), id).to.equal(null);
        expect(await storage.delete(id), id).to.equal(false);
      }
    });

    it('rejects when the source stream fails', async () => {
      const broken = new Readable({
        read() {
          this.destroy(new Error('boom'));
        },
      });
      let err: any;
      try {
        await storage.put(broken, info, { maxBytes: 10 });
      } catch (e) {
        err = e;
      }
      expect(err?.message).to.equal('boom');
    });
  });
}

let dir: string;
const walk = async (d: string): Promise<number> => {
  let n = 0;
  for (const e of await fsp.readdir(d, { withFileTypes: true })) n += e.isDirectory() ? await walk(path.join(d, e.name)) : 1;
  return n;
};
contract('local', async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'oql-files-'));
  const base = path.join(dir, 'uploads');
  await fsp.mkdir(base);
  await fsp.writeFile(path.join(dir, 'secret.txt'), 'secret');
  const storage = new LocalStorage({ baseDir: base, baseUrl: 'http://h/api/files/' });
  return { storage, leftovers: () => walk(dir) };
});

describe('files: local storage on disk', () => {
  it('writes under baseDir, into the sanitised folder, and never reaches outside', async () => {
    const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'oql-files-'));
    const base = path.join(root, 'uploads');
    await fsp.writeFile(path.join(root, 'secret.txt'), 'secret');
    const storage = new LocalStorage({ baseDir: base, baseUrl: '/api/files' });
    const a = await storage.put(src('abc'), { ...info, folder: 'invoices/2024' }, { maxBytes: 10 });
    expect(await fsp.readFile(path.join(base, 'invoices_2024', a.id), 'utf8')).to.equal('abc');
    expect(a.id.endsWith('.pdf')).to.equal(true);
    expect(storage.pathOf('../secret.txt')).to.equal(null);
    expect(storage.pathOf(path.join(root, 'secret.txt'))).to.equal(null);
    expect(await storage.open('../secret.txt')).to.equal(null);
    expect((await fsp.readdir(base)).filter((n) => n.endsWith('.tmp'))).to.deep.equal([]);
    expect(storage.getPublicUrl(a.id)).to.equal(`/api/files/${a.id}`);
    await fsp.rm(root, { recursive: true, force: true });
  });
  after(async () => {
    if (dir) await fsp.rm(dir, { recursive: true, force: true });
  });
});

contract('memory', () => {
  const storage = new MemoryStorage({ baseUrl: 'http://h/api/files' });
  return { storage, leftovers: () => storage.count };
});

const backend = new Map<string, Buffer>();
const calls: unknown[] = [];
contract('custom', () => {
  backend.clear();
  calls.length = 0;
  let n = 0;
  const storage = adaptCustomStorage({
    save(file, filename, mimeType, options) {
      calls.push({ filename, mimeType, options });
      const id = `${
        options.folder
          ? `${options.folder
              .replace(/[^a-z]/g, '_')
              .replace(/^_+|_+$/g, '')
              .replace(/_+/g, '_')}--`
          : ''
      }c${++n}`;
      backend.set(id, file);
      return Promise.resolve({ id, url: `http://cdn/${id}`, size: file.length });
    },
    get: (id) => Promise.resolve(backend.get(id) ?? null),
    delete: (id) => Promise.resolve(backend.delete(id)),
    getPublicUrl: (id) => `http://cdn/files/${id}`,
  });
  return { storage, leftovers: () => backend.size };
});

describe('files: custom storage adapter', () => {
  it('passes name, type and options to save and derives the id from url when missing', async () => {
    const seen: unknown[] = [];
    const storage = adaptCustomStorage({
      save(file, filename, mimeType, options) {
        seen.push([file.toString(), filename, mimeType, options]);
        return Promise.resolve({ url: 'http://cdn/x/abc%20d?x=1' });
      },
      get: () => Promise.resolve(null),
      delete: () => Promise.resolve(false),
      getPublicUrl: (id) => `u:${id}`,
    });
    const r = await storage.put(src('data'), { filename: 'a.txt', mimeType: 'text/plain', folder: 'f', userId: 'u1' }, { maxBytes: 10 });
    expect(r).to.deep.equal({ id: 'abc d', size: 4 });
    expect(seen).to.deep.equal([['data', 'a.txt', 'text/plain', { folder: 'f', userId: 'u1' }]]);
    expect(storage.getPublicUrl('abc')).to.equal('u:abc');
  });
  it('never calls save for an oversized upload', async () => {
    let saved = 0;
    const storage = adaptCustomStorage({
      save() {
        saved++;
        return Promise.resolve({ id: 'x' });
      },
      get: () => Promise.resolve(null),
      delete: () => Promise.resolve(false),
      getPublicUrl: (id) => id,
    });
    let err: any;
    try {
      await storage.put(src('x'.repeat(20)), info, { maxBytes: 19 });
    } catch (e) {
      err = e;
    }
    expect(err?.code).to.equal('FILE_TOO_LARGE');
    expect(saved).to.equal(0);
  });
  it('fails with UPLOAD_FAILED when save returns no id', async () => {
    const storage = adaptCustomStorage({
      save: () => Promise.resolve({}),
      get: () => Promise.resolve(null),
      delete: () => Promise.resolve(false),
      getPublicUrl: (id) => id,
    });
    let err: any;
    try {
      await storage.put(src('x'), info, { maxBytes: 19 });
    } catch (e) {
      err = e;
    }
    expect(err?.code).to.equal('UPLOAD_FAILED');
  });
});
