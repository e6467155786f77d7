/** The s3 backend against a local S3-compatible server (s3rver): the FileStorage contract end to end. */
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { S3Storage } from '../../../plugins/files/storage/s3';
import { startS3, type TestS3 } from '../../helpers/s3-server';

const chunks = (data: Buffer, size = 64 * 1024): Readable => {
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += size) parts.push(data.subarray(i, i + size));
  return Readable.from(parts);
};

async function readAll(s: NodeJS.ReadableStream | null): Promise<Buffer> {
  expect(s).to.not.equal(null);
  const out: Buffer[] = [];
  for await (const c of s as AsyncIterable<Buffer | string>) out.push(Buffer.from(c));
  return Buffer.concat(out);
}

describe('files: s3 storage backend', () => {
  let s3: TestS3;
  let storage: S3Storage;

  before(async () => {
    s3 = await startS3();
  });
  beforeEach(() => {
    const { type: _type, ...options } = s3.storage('tenant-a/');
    storage = new S3Storage({ ...options, baseUrl: '/api/files' });
  });
  afterEach(async () => {
    await storage.close();
  });
  after(async () => {
    await s3.close();
  });

  it('streams a file in under a folder and prefix, and reads it whole, by range and by stat', async () => {
    const data = Buffer.from('0123456789abcdefghij');
    const put = await storage.put(chunks(data, 3), { filename: 'a.TXT', mimeType: 'text/plain', folder: 'in voices' }, { maxBytes: 100 });
    expect(put.size).to.equal(20);
    expect(put.id).to.match(/^in_voices--[0-9a-f]{32}\.txt$/);
    expect(await s3.keys()).to.include(`tenant-a/in_voices/${put.id}`);
    expect((await readAll(await storage.open(put.id))).toString()).to.equal(data.toString());
    expect((await readAll(await storage.open(put.id, { start: 2, end: 5 }))).toString()).to.equal('2345');
    expect((await readAll(await storage.open(put.id, { start: 15, end: 99 }))).toString()).to.equal('fghij');
    const st = await storage.stat(put.id);
    expect(st?.size).to.equal(20);
    expect(st?.mtime).to.be.instanceOf(Date);
    expect(storage.getPublicUrl(put.id)).to.equal(`/api/files/${put.id}`);
  });

  it('streams a multipart upload (larger than one part) within the limit', async () => {
    const data = Buffer.alloc(6 * 1024 * 1024 + 123, 7);
    const put = await storage.put(
      chunks(data),
      { filename: 'big.bin', mimeType: 'application/octet-stream' },
      { maxBytes: 8 * 1024 * 1024 },
    );
    expect(put.size).to.equal(data.length);
    expect((await storage.stat(put.id))?.size).to.equal(data.length);
    expect(await storage.delete(put.id)).to.equal(true);
  });

  it('refuses an upload over the limit with FILE_TOO_LARGE and leaves nothing behind', async () => {
    const before = await s3.keys();
    for (const size of [101, 6 * 1024 * 1024]) {
      const err = await storage
        .put(chunks(Buffer.alloc(size, 1)), { filename: 'x.bin', mimeType: 'application/octet-stream' }, { maxBytes: 100 })
        .then(
          () => undefined,
          (e: unknown) => e as { code?: string },
        );
      expect(err?.code).to.equal('FILE_TOO_LARGE');
    }
    expect(await s3.keys()).to.deep.equal(before);
  });

  it('answers null or false for a missing or invalid id, and deletes', async () => {
    expect(await storage.open('0123456789abcdef0123456789abcdef.txt')).to.equal(null);
    expect(await storage.stat('0123456789abcdef0123456789abcdef.txt')).to.equal(null);
    expect(await storage.delete('0123456789abcdef0123456789abcdef.txt')).to.equal(false);
    expect(await storage.open('../etc/passwd')).to.equal(null);
    const put = await storage.put(Readable.from([Buffer.from('bye')]), { filename: 'b.txt', mimeType: 'text/plain' }, { maxBytes: 10 });
    expect(await storage.delete(put.id)).to.equal(true);
    expect(await storage.stat(put.id)).to.equal(null);
    expect(await s3.keys()).to.not.include(`tenant-a/${put.id}`);
  });

  it('reads an empty file, and an empty range past its end', async () => {
    const put = await storage.put(Readable.from([]), { filename: 'e.txt', mimeType: 'text/plain' }, { maxBytes: 10 });
    expect(put.size).to.equal(0);
    expect((await readAll(await storage.open(put.id))).length).to.equal(0);
    expect((await readAll(await storage.open(put.id, { start: 5, end: 9 }))).length).to.equal(0);
  });
});
