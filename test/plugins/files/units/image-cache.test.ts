/** The thumbnail cache: hits, least recently used dropped first, bounded in bytes. */
import { expect } from 'chai';
import { ImageCache } from '../../../../plugins/files/image-cache';

const image = (bytes: number) => ({ data: Buffer.alloc(bytes), contentType: 'image/png' });

describe('files: ImageCache', () => {
  it('returns what was stored, and drops the least recently used when over its bound', () => {
    const cache = new ImageCache(400);
    cache.set('a', image(100));
    cache.set('b', image(100));
    cache.set('c', image(100));
    expect(cache.get('a')?.data.length).to.equal(100); // a is now the most recently used
    cache.set('d', image(100));
    cache.set('e', image(100)); // 500 bytes: b, the least recently used, goes
    expect(cache.get('b')).to.equal(undefined);
    expect(['a', 'c', 'd', 'e'].map((k) => cache.get(k) !== undefined)).to.deep.equal([true, true, true, true]);
  });

  it('never keeps an entry larger than a quarter of its bound', () => {
    const cache = new ImageCache(400);
    cache.set('big', image(101));
    expect(cache.get('big')).to.equal(undefined);
    cache.set('ok', image(100));
    expect(cache.get('ok')).to.not.equal(undefined);
  });
});
