import { expect } from 'chai';
import type { DbRecord } from '../../kernel/drivers';
import type { AggregateSpec } from '../../kernel/query/ast';
import { ITEM, seedItems, type TckContext } from './fixtures';

const STATS: AggregateSpec[] = [
  { func: 'count', alias: 'n' },
  { func: 'count', field: 'qty', alias: 'nq' },
  { func: 'sum', field: 'qty', alias: 'total' },
  { func: 'avg', field: 'price', alias: 'avgp' },
  { func: 'min', field: 'qty', alias: 'minq' },
  { func: 'max', field: 'qty', alias: 'maxq' },
];

/** Compares numbers loosely (avg may come back as 2.2500000001) and everything else exactly. */
function expectRows(actual: DbRecord[], expected: DbRecord[]): void {
  expect(actual.length, JSON.stringify(actual)).to.equal(expected.length);
  expected.forEach((row, i) => {
    expect(Object.keys(actual[i]).sort(), JSON.stringify(actual[i])).to.deep.equal(Object.keys(row).sort());
    for (const [key, value] of Object.entries(row)) {
      if (typeof value === 'number') expect(actual[i][key], `${key} of row ${i}`).to.be.a('number').closeTo(value, 1e-9);
      else expect(actual[i][key], `${key} of row ${i}`).to.deep.equal(value);
    }
  });
}

export function defineAggregateTests(ctx: TckContext): void {
  describe('aggregate', () => {
    beforeEach(async function () {
      if (!ctx.ds.capabilities.aggregation) this.skip();
      await seedItems(ctx.ds);
    });

    it('groups by one field with every function; a null key is its own group', async () => {
      const rows = await ctx.ds.aggregate(ITEM, { groupBy: ['status'], aggregate: STATS, sort: [{ field: 'status', dir: 'asc' }] });
      expectRows(rows, [
        { status: null, n: 1, nq: 1, total: 20, avgp: null, minq: 20, maxq: 20 },
        { status: 'closed', n: 1, nq: 1, total: 5, avgp: 2.25, minq: 5, maxq: 5 },
        { status: 'draft', n: 1, nq: 1, total: 5, avgp: 4, minq: 5, maxq: 5 },
        { status: 'open', n: 2, nq: 1, total: 10, avgp: 2.25, minq: 10, maxq: 10 },
      ]);
    });

    it('groups by two fields; sum over no values is null', async () => {
      const rows = await ctx.ds.aggregate(ITEM, {
        groupBy: ['status', 'active'],
        aggregate: [
          { func: 'count', alias: 'n' },
          { func: 'sum', field: 'qty', alias: 'total' },
        ],
        sort: [
          { field: 'status', dir: 'asc' },
          { field: 'active', dir: 'asc' },
        ],
      });
      expectRows(rows, [
        { status: null, active: null, n: 1, total: 20 },
        { status: 'closed', active: false, n: 1, total: 5 },
        { status: 'draft', active: false, n: 1, total: 5 },
        { status: 'open', active: false, n: 1, total: null },
        { status: 'open', active: true, n: 1, total: 10 },
      ]);
    });

    it('groups a boolean field with counts per group', async () => {
      const rows = await ctx.ds.aggregate(ITEM, {
        groupBy: ['active'],
        aggregate: [
          { func: 'count', alias: 'n' },
          { func: 'count', field: 'price', alias: 'priced' },
        ],
        sort: [{ field: 'active', dir: 'desc' }],
      });
      expectRows(rows, [
        { active: true, n: 1, priced: 1 },
        { active: false, n: 3, priced: 3 },
        { active: null, n: 1, priced: 0 },
      ]);
    });

    it('aggregates the whole object without groupBy', async () => {
      const rows = await ctx.ds.aggregate(ITEM, {
        aggregate: [
          { func: 'count', alias: 'n' },
          { func: 'count', field: 'price', alias: 'priced' },
          { func: 'sum', field: 'qty', alias: 'total' },
          { func: 'avg', field: 'qty', alias: 'avgq' },
          { func: 'min', field: 'price', alias: 'minp' },
          { func: 'max', field: 'price', alias: 'maxp' },
          { func: 'min', field: 'due', alias: 'first' },
          { func: 'max', field: 'at', alias: 'last' },
        ],
      });
      expectRows(rows, [
        { n: 5, priced: 4, total: 40, avgq: 10, minp: 1.5, maxp: 4, first: '2024-01-10', last: '2024-03-15T23:59:59.000Z' },
      ]);
    });

    it('applies the filter first', async () => {
      const rows = await ctx.ds.aggregate(ITEM, {
        filter: { field: 'active', op: 'eq', value: false },
        aggregate: [
          { func: 'count', alias: 'n' },
          { func: 'sum', field: 'qty', alias: 'total' },
          { func: 'max', field: 'price', alias: 'maxp' },
        ],
      });
      expectRows(rows, [{ n: 3, total: 10, maxp: 4 }]);
    });

    it('returns one row of count 0 and null sums when nothing matches without groupBy', async () => {
      const rows = await ctx.ds.aggregate(ITEM, {
        filter: { field: 'qty', op: 'gt', value: 100 },
        aggregate: [
          { func: 'count', alias: 'n' },
          { func: 'sum', field: 'qty', alias: 'total' },
          { func: 'avg', field: 'qty', alias: 'mean' },
          { func: 'min', field: 'qty', alias: 'low' },
        ],
      });
      expectRows(rows, [{ n: 0, total: null, mean: null, low: null }]);
    });

    it('returns no groups when nothing matches with groupBy', async () => {
      const rows = await ctx.ds.aggregate(ITEM, {
        filter: { field: 'qty', op: 'gt', value: 100 },
        groupBy: ['status'],
        aggregate: [{ func: 'count', alias: 'n' }],
      });
      expect(rows).to.deep.equal([]);
    });

    it('sorts by an alias descending and applies top', async () => {
      const rows = await ctx.ds.aggregate(ITEM, {
        groupBy: ['status'],
        aggregate: [{ func: 'sum', field: 'qty', alias: 'total' }],
        sort: [
          { field: 'total', dir: 'desc' },
          { field: 'status', dir: 'asc' },
        ],
        top: 2,
      });
      expectRows(rows, [
        { status: null, total: 20 },
        { status: 'open', total: 10 },
      ]);
    });

    it('applies skip after sorting groups', async () => {
      const rows = await ctx.ds.aggregate(ITEM, {
        groupBy: ['status'],
        aggregate: [{ func: 'sum', field: 'qty', alias: 'total' }],
        sort: [
          { field: 'total', dir: 'desc' },
          { field: 'status', dir: 'asc' },
        ],
        skip: 1,
        top: 2,
      });
      expectRows(rows, [
        { status: 'open', total: 10 },
        { status: 'closed', total: 5 },
      ]);
    });

    it('sorts by count descending', async () => {
      const rows = await ctx.ds.aggregate(ITEM, {
        groupBy: ['active'],
        aggregate: [{ func: 'count', alias: 'n' }],
        sort: [{ field: 'n', dir: 'desc' }],
        top: 1,
      });
      expectRows(rows, [{ active: false, n: 3 }]);
    });

    describe('countdistinct', () => {
      it('counts the distinct values, nulls not counted', async () => {
        const rows = await ctx.ds.aggregate(ITEM, {
          aggregate: [
            { func: 'countdistinct', field: 'status', alias: 'statuses' },
            { func: 'countdistinct', field: 'qty', alias: 'qtys' },
            { func: 'countdistinct', field: 'due', alias: 'dues' },
            { func: 'countdistinct', field: 'owner', alias: 'owners' },
          ],
        });
        expectRows(rows, [{ statuses: 3, qtys: 3, dues: 4, owners: 0 }]);
      });

      it('counts per group, a group of nulls only counting 0', async () => {
        const rows = await ctx.ds.aggregate(ITEM, {
          groupBy: ['active'],
          aggregate: [
            { func: 'countdistinct', field: 'status', alias: 'statuses' },
            { func: 'countdistinct', field: 'qty', alias: 'qtys' },
          ],
          sort: [{ field: 'active', dir: 'desc' }],
        });
        expectRows(rows, [
          { active: true, statuses: 1, qtys: 1 },
          { active: false, statuses: 3, qtys: 1 },
          { active: null, statuses: 0, qtys: 1 },
        ]);
      });

      it('sorts by a countdistinct alias, after a filter', async () => {
        const rows = await ctx.ds.aggregate(ITEM, {
          filter: { field: 'name', op: 'ne', value: 'nothing' },
          groupBy: ['status'],
          aggregate: [{ func: 'countdistinct', field: 'active', alias: 'kinds' }],
          sort: [
            { field: 'kinds', dir: 'desc' },
            { field: 'status', dir: 'asc' },
          ],
        });
        expectRows(rows, [
          { status: 'open', kinds: 2 },
          { status: 'closed', kinds: 1 },
          { status: 'draft', kinds: 1 },
          { status: null, kinds: 0 },
        ]);
      });
    });
  });
}
