/**
 * One request against a minute and an hour window (rate-limiter-flexible memory counters, no
 * HTTP): which window binds, and that refused requests are not counted.
 */
import { expect } from 'chai';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { consume, type Window } from '../../../plugins/rate-limit/windows';

function windows(perMinute: number, perHour: number): { minute: RateLimiterMemory; hour: RateLimiterMemory; list: Window[] } {
  const minute = new RateLimiterMemory({ points: perMinute, duration: 60 });
  const hour = new RateLimiterMemory({ points: perHour, duration: 3600 });
  return {
    minute,
    hour,
    list: [
      { name: 'minute', limit: perMinute, limiter: minute },
      { name: 'hour', limit: perHour, limiter: hour },
    ],
  };
}

describe('rate-limit windows', () => {
  const now = () => 1_000_000_000_000;

  it('reports the window with the fewest requests left, counting down to 0, then refuses', async () => {
    const w = windows(3, 10);
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await consume(w.list, 'k', now));
    expect(seen.map((d) => [d.allowed, d.window, d.limit, d.remaining])).to.deep.equal([
      [true, 'minute', 3, 2],
      [true, 'minute', 3, 1],
      [true, 'minute', 3, 0],
      [false, 'minute', 3, 0],
    ]);
    const refused = seen[3];
    expect(refused.retryAfter).to.be.within(1, 60);
    expect(refused.resetAt).to.be.within(now() + 59_000, now() + 60_000);
    expect(seen[0].retryAfter).to.equal(0);
  });

  it('lets the hour window bind when it has fewer requests left', async () => {
    const w = windows(5, 2);
    const a = await consume(w.list, 'k', now);
    expect([a.window, a.limit, a.remaining]).to.deep.equal(['hour', 2, 1]);
    await consume(w.list, 'k', now);
    const refused = await consume(w.list, 'k', now);
    expect([refused.allowed, refused.window, refused.limit, refused.remaining]).to.deep.equal([false, 'hour', 2, 0]);
    expect(refused.retryAfter).to.be.within(3540, 3600);
  });

  it('on a tie, reports the window that resets last', async () => {
    const w = windows(4, 4);
    const d = await consume(w.list, 'k', now);
    expect([d.window, d.remaining]).to.deep.equal(['hour', 3]);
  });

  it('does not count refused requests in any window', async () => {
    const w = windows(2, 100);
    for (let i = 0; i < 2; i++) expect((await consume(w.list, 'k')).allowed).to.equal(true);
    for (let i = 0; i < 10; i++) expect((await consume(w.list, 'k')).allowed).to.equal(false);
    expect((await w.hour.get('k'))?.consumedPoints, 'the hour counted only the 2 allowed requests').to.equal(2);
    // The minute counter went over its limit (refusals are counted there), which changes nothing: its reset stays where it was.
    expect((await w.minute.get('k'))?.msBeforeNext).to.be.within(58_000, 60_000);
  });

  it('keeps keys apart', async () => {
    const w = windows(1, 10);
    expect((await consume(w.list, 'a')).allowed).to.equal(true);
    expect((await consume(w.list, 'a')).allowed).to.equal(false);
    expect((await consume(w.list, 'b')).allowed).to.equal(true);
  });
});
