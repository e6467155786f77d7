import { expect } from 'chai';
import { TokenBucket } from '../../../kernel/protocol/token-bucket';

describe('TokenBucket', () => {
  it('spends one token per take up to the burst, then refills at its rate', () => {
    let now = 0;
    const bucket = new TokenBucket(10, 3, () => now);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).to.deep.equal([true, true, true, false]);
    now = 100; // one token back at 10 per second
    expect([bucket.take(), bucket.take()]).to.deep.equal([true, false]);
  });

  it('spends a take of several tokens whole or not at all (a large WebSocket message counts per 16 KiB)', () => {
    let now = 0;
    const bucket = new TokenBucket(10, 5, () => now);
    expect(bucket.take(4)).to.equal(true);
    expect(bucket.take(2)).to.equal(false);
    expect(bucket.take(1)).to.equal(true);
    now = 10_000; // refilled, but never past the burst
    expect(bucket.take(6)).to.equal(false);
    expect(bucket.take(5)).to.equal(true);
  });
});
