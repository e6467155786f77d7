import { expect } from 'chai';
import type { DbRecord } from '../../kernel/drivers';
import type { AggregateSpec } from '../../kernel/query/ast';
import { LEDGER, type TckContext } from './fixtures';

/** Chosen so binary floating point gets every sum wrong: 0.1 + 0.2, 1.1 + 2.2 + 0.03, 0.0001 + 0.0002. */
const ENTRIES: DbRecord[] = [
  { id: 'l1', kind: 'in', amount: 0.1, rate: 0.0001, weight: 0.1 },
  { id: 'l2', kind: 'in', amount: 0.2, rate: 0.0002, weight: 0.2 },
  { id: 'l3', kind: 'out', amount: 1.1, rate: 0.1, weight: null },
  { id: 'l4', kind: 'out', amount: 2.2, rate: 0.2, weight: null },
  { id: 'l5', kind: 'out', amount: 0.03, rate: null, weight: null },
  { id: 'l6', kind: null, amount: null, rate: null, weight: 1 },
];

const MONEY: AggregateSpec[] = [
  { func: 'count', alias: 'n' },
  { func: 'sum', field: 'amount', alias: 'total' },
  { func: 'avg', field: 'amount', alias: 'mean' },
  { func: 'min', field: 'amount', alias: 'least' },
  { func: 'max', field: 'amount', alias: 'most' },
  { func: 'sum', field: 'rate', alias: 'rates' },
  { func: 'avg', field: 'rate', alias: 'meanRate' },
];

async function seedLedger(ctx: TckContext, entries = ENTRIES): Promise<void> {
  for (const entry of entries) await ctx.ds.create(LEDGER, structuredClone(entry));
}

/** Decimal fields (currency, or a declared scale): values are JSON numbers, sums and averages exact. */
export function defineMoneyTests(ctx: TckContext): void {
  describe('money (decimal fields)', () => {
    const aggregates = function (this: Mocha.Context): void {
      if (!ctx.ds.capabilities.aggregation) this.skip();
    };

    it('reads decimal values back as the same numbers, filters and sorts them', async () => {
      const values = [0.1, 19.99, 1234567.89, -0.05, 1e-7, 0, 99999999999.99, 0.30000000000000004];
      for (const [i, amount] of values.entries()) await ctx.ds.create(LEDGER, { id: `v${i}`, amount, rate: 0.1234 });
      const records = await ctx.ds.find(LEDGER, { sort: [{ field: 'amount', dir: 'asc' }] });
      expect(records.map((r) => r.amount)).to.deep.equal([...values].sort((a, b) => a - b));
      for (const r of records) {
        expect(r.amount).to.be.a('number');
        expect(r.rate).to.equal(0.1234);
      }
      const tenth = await ctx.ds.find(LEDGER, { filter: { field: 'amount', op: 'eq', value: 0.1 } });
      expect(tenth.map((r) => r.id)).to.deep.equal(['v0']);
      const between = await ctx.ds.find(LEDGER, {
        filter: { field: 'amount', op: 'between', value: [0.1, 20] },
        sort: [{ field: 'id', dir: 'asc' }],
      });
      expect(between.map((r) => r.id)).to.deep.equal(['v0', 'v1', 'v7']);
      const updated = await ctx.ds.update(LEDGER, 'v1', { amount: 20.01 });
      expect(updated?.amount).to.equal(20.01);
    });

    it('sums 0.1 and 0.2 to exactly 0.3', async function () {
      aggregates.call(this);
      await seedLedger(ctx);
      const [row] = await ctx.ds.aggregate(LEDGER, { filter: { field: 'kind', op: 'eq', value: 'in' }, aggregate: MONEY });
      expect(row).to.deep.equal({ n: 2, total: 0.3, mean: 0.15, least: 0.1, most: 0.2, rates: 0.0003, meanRate: 0.00015 });
    });

    it('groups with exact sums and averages; nulls are left out, a group of none sums to null', async function () {
      aggregates.call(this);
      await seedLedger(ctx);
      const rows = await ctx.ds.aggregate(LEDGER, { groupBy: ['kind'], aggregate: MONEY, sort: [{ field: 'kind', dir: 'asc' }] });
      expect(rows).to.deep.equal([
        { kind: null, n: 1, total: null, mean: null, least: null, most: null, rates: null, meanRate: null },
        { kind: 'in', n: 2, total: 0.3, mean: 0.15, least: 0.1, most: 0.2, rates: 0.0003, meanRate: 0.00015 },
        { kind: 'out', n: 3, total: 3.33, mean: 1.11, least: 0.03, most: 2.2, rates: 0.3, meanRate: 0.15 },
      ]);
    });

    it('averages exactly, rounding once: 0.1, 0.2 and 0.4 average 7/30', async function () {
      aggregates.call(this);
      await seedLedger(ctx, [
        { id: 'a', amount: 0.1 },
        { id: 'b', amount: 0.2 },
        { id: 'c', amount: 0.4 },
      ]);
      const [row] = await ctx.ds.aggregate(LEDGER, { aggregate: [{ func: 'avg', field: 'amount', alias: 'mean' }] });
      // The number nearest 7/30; dividing the binary sum (0.7000000000000001) by 3 gives 0.2333333333333333.
      expect(row.mean).to.equal(0.23333333333333334);
    });

    it('adds many cents exactly and sorts groups by their exact sums', async function () {
      aggregates.call(this);
      const cents = Array.from({ length: 50 }, (_, i): DbRecord => ({ id: `c${i}`, kind: i % 5 === 0 ? 'in' : 'out', amount: 0.07 }));
      await seedLedger(ctx, cents);
      const [all] = await ctx.ds.aggregate(LEDGER, { aggregate: [{ func: 'sum', field: 'amount', alias: 'total' }] });
      expect(all.total).to.equal(3.5);
      const rows = await ctx.ds.aggregate(LEDGER, {
        groupBy: ['kind'],
        aggregate: [{ func: 'sum', field: 'amount', alias: 'total' }],
        sort: [{ field: 'total', dir: 'desc' }],
      });
      expect(rows).to.deep.equal([
        { kind: 'out', total: 2.8 },
        { kind: 'in', total: 0.7 },
      ]);
    });

    it('keeps plain number fields binary: their sums are close, not promised exact', async function () {
      aggregates.call(this);
      await seedLedger(ctx);
      const [row] = await ctx.ds.aggregate(LEDGER, { aggregate: [{ func: 'sum', field: 'weight', alias: 'w' }] });
      expect(row.w).to.be.closeTo(1.3, 1e-9);
    });
  });
}
