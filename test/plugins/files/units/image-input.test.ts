/** withImageInput: a local path in place; from any other backend a temporary copy, bounded and removed. */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { withImageInput } from '../../../../plugins/files/image-input';
import { MemoryStorage } from '../../../../plugins/files/storage/memory';

describe('files: withImageInput', () => {
  const storage = new MemoryStorage({ baseUrl: '/f' });
  const info = { filename: 'a.png', mimeType: 'image/png' };

  it('hands over a temporary copy of a file without a local path, removed afterwards', async () => {
    const { id, size } = await storage.put(Readable.from([Buffer.from('not really a png')]), info, { maxBytes: 100 });
    let seen = '';
    const content = await withImageInput(storage, id, size, async (path) => {
      seen = path;
      return (await readFile(path)).toString();
    });
    expect(content).to.equal('not really a png');
    expect(existsSync(seen)).to.equal(false);
  });

  it('refuses a file longer than the bound with FILE_TOO_LARGE, leaving no copy', async () => {
    const { id } = await storage.put(Readable.from([Buffer.alloc(50, 1)]), info, { maxBytes: 100 });
    let called = false;
    const err = await withImageInput(storage, id, 10, () => {
      called = true;
      return Promise.resolve();
    }).then(
      () => undefined,
      (e: unknown) => e as { code?: string },
    );
    expect(err?.code).to.equal('FILE_TOO_LARGE');
    expect(called).to.equal(false);
  });

  it('answers undefined for a file that is not stored', async () => {
    expect(await withImageInput(storage, '0123456789abcdef0123456789abcdef.png', 10, () => Promise.resolve(1))).to.equal(undefined);
  });
});
