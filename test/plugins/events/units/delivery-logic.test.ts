import { expect } from 'chai';
import {
  backoffCeilingMs,
  chainsByKey,
  dueMinutes,
  eligibleRows,
  mayRetry,
  parseListParams,
  retryDelayMs,
  scheduledDeliveries,
  encodeCursor,
} from '../../../../plugins/events/delivery';
import type { Workflow } from '../../../../plugins/events/types';

const policy = { maxAttempts: 5, initialDelayMs: 100, maxDelayMs: 1000 };

describe('events deliveries: backoff', () => {
  it('grows exponentially from initialDelayMs and is capped at maxDelayMs', () => {
    expect([1, 2, 3, 4, 5, 6, 60].map((n) => backoffCeilingMs(policy, n))).to.deep.equal([100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it('jitters over the whole range [0, ceiling] (full jitter)', () => {
    expect(retryDelayMs(policy, 3, () => 0)).to.equal(0);
    expect(retryDelayMs(policy, 3, () => 0.999999)).to.equal(399);
    expect(retryDelayMs(policy, 10, () => 0.5)).to.equal(500);
    for (let i = 0; i < 1000; i++) {
      const attempts = 1 + (i % 8);
      const d = retryDelayMs(policy, attempts);
      expect(d).to.be.at.least(0).and.at.most(backoffCeilingMs(policy, attempts));
      expect(Number.isInteger(d)).to.equal(true);
    }
  });

  it('retries below maxAttempts only', () => {
    expect(mayRetry(policy, 4)).to.equal(true);
    expect(mayRetry(policy, 5)).to.equal(false);
    expect(mayRetry({ ...policy, maxAttempts: 1 }, 1)).to.equal(false);
  });
});

describe('events deliveries: ordering eligibility', () => {
  const row = (id: string, orderingKey: string, sequence: number) => ({ id, orderingKey, sequence });

  it('keeps a key chain from its first unfinished delivery', () => {
    const candidates = [row('a1', 'a', 1), row('a2', 'a', 2), row('b5', 'b', 5)];
    const active = [row('a1', 'a', 1), row('a2', 'a', 2), row('b5', 'b', 5)];
    expect(eligibleRows(candidates, active).map((r) => r.id)).to.deep.equal(['a1', 'a2', 'b5']);
  });

  it('blocks a candidate behind an earlier pending or claimed delivery that is not a candidate', () => {
    // a0 waits for its retry (not due); b3 is claimed by a live instance.
    const candidates = [row('a1', 'a', 1), row('b5', 'b', 5), row('c7', 'c', 7)];
    const active = [row('a0', 'a', 0), row('b3', 'b', 3)];
    expect(eligibleRows(candidates, active).map((r) => r.id)).to.deep.equal(['c7']);
  });

  it('cuts a chain at the first gap', () => {
    const candidates = [row('a1', 'a', 1), row('a3', 'a', 3), row('a4', 'a', 4)];
    const active = [row('a2', 'a', 2)];
    expect(eligibleRows(candidates, active).map((r) => r.id)).to.deep.equal(['a1']);
  });

  it('groups claimed rows into chains in sequence order', () => {
    const chains = chainsByKey([row('b2', 'b', 2), row('a3', 'a', 3), row('a1', 'a', 1), row('b9', 'b', 9)]);
    expect(chains.map((c) => c.map((r) => r.id))).to.deep.equal([
      ['a1', 'a3'],
      ['b2', 'b9'],
    ]);
  });
});

describe('events deliveries: schedules', () => {
  const at = (iso: string) => Date.parse(iso);

  it('lists the minutes a cron expression fires in (from, to], UTC by default', () => {
    const minutes = dueMinutes({ cron: '*/5 * * * *' }, at('2024-01-01T00:00:00Z'), at('2024-01-01T00:15:00Z'));
    expect(minutes.map((d) => d.toISOString())).to.deep.equal([
      '2024-01-01T00:05:00.000Z',
      '2024-01-01T00:10:00.000Z',
      '2024-01-01T00:15:00.000Z',
    ]);
  });

  it('reads the expression in the given time zone', () => {
    const minutes = dueMinutes({ cron: '0 9 * * *', timezone: 'Europe/Paris' }, at('2024-01-01T00:00:00Z'), at('2024-01-02T00:00:00Z'));
    expect(minutes.map((d) => d.toISOString())).to.deep.equal(['2024-01-01T08:00:00.000Z']);
  });

  it('refuses an expression that is not 5 fields', () => {
    expect(() => dueMinutes({ cron: '0 * * * * *' }, 0, 60_000)).to.throw(/5 fields/);
    expect(() => dueMinutes({ cron: 'nonsense a b c d' }, 0, 60_000)).to.throw();
  });

  it('makes one delivery per action with an id of workflow, minute and action', () => {
    const wf = { name: 'nightly', actions: [{}, {}] } as unknown as Workflow;
    const minute = new Date('2024-01-01T02:00:00Z');
    const ds = scheduledDeliveries(wf, minute);
    expect(ds.map((d) => d.id)).to.deep.equal(['nightly:2024-01-01T02:00:00.000Z:0', 'nightly:2024-01-01T02:00:00.000Z:1']);
    expect(ds[1]).to.include({ orderingKey: 'nightly:schedule', sequence: (minute.getTime() / 60_000) * 1000 + 1 });
    expect(ds[0].payload).to.deep.equal({ scheduledAt: '2024-01-01T02:00:00.000Z' });
  });
});

describe('events deliveries: admin list parameters', () => {
  it('applies defaults and reads each parameter', () => {
    expect(parseListParams({})).to.deep.equal({ limit: 50 });
    const cursor = encodeCursor({ createdAt: '2024-01-01T00:00:00.000Z', id: 'x' });
    expect(parseListParams({ status: 'dead', workflow: 'w', limit: '10', after: cursor })).to.deep.equal({
      status: 'dead',
      workflow: 'w',
      limit: 10,
      after: { createdAt: '2024-01-01T00:00:00.000Z', id: 'x' },
    });
  });

  for (const [query, parameter] of [
    [{ status: 'gone' }, 'status'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '1.5' }, 'limit'],
    [{ limit: '100000' }, 'limit'],
    [{ after: 'garbage' }, 'after'],
    [{ workflow: ['a', 'b'] }, 'workflow'],
    [{ sort: 'x' }, 'sort'],
  ] as const) {
    it(`refuses ${JSON.stringify(query)} naming '${parameter}'`, () => {
      expect(() => parseListParams(query))
        .to.throw(new RegExp(`Parameter '${parameter}'`))
        .with.property('code', 'INVALID_REQUEST');
    });
  }
});
