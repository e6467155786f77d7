import { expect } from 'chai';
import type { Filter, Query, SortKey } from '../../kernel/query/ast';
import { ITEM, OWNER, idsOf, seedItems, type TckContext } from './fixtures';

/**
 * Owners of the seed items: a → Zed, b → Amy, c → a missing owner, d → an owner without a name,
 * e → Bob (org 'hidden', outside the scope below), f → none.
 */
async function seedOwners(ctx: TckContext): Promise<void> {
  await seedItems(ctx.ds);
  await ctx.ds.create(OWNER, { id: 'o1', name: 'Zed', org: 'x' });
  await ctx.ds.create(OWNER, { id: 'o2', name: 'Amy', org: 'y' });
  await ctx.ds.create(OWNER, { id: 'o3', name: null, org: null });
  await ctx.ds.create(OWNER, { id: 'o4', name: 'Bob', org: 'hidden' });
  for (const [id, owner] of [
    ['a', 'o1'],
    ['b', 'o2'],
    ['c', 'nobody'],
    ['d', 'o3'],
    ['e', 'o4'],
  ])
    await ctx.ds.update(ITEM, id, { owner });
  await ctx.ds.create(ITEM, { id: 'f', name: 'Fig', qty: 1, active: true, status: 'open' });
}

const byOwnerName = (dir: SortKey['dir'], scope?: Filter): SortKey => ({
  field: 'owner',
  dir,
  through: { object: OWNER, field: 'name', ...(scope ? { scope } : {}) },
});
const BY_ID: SortKey = { field: 'id', dir: 'asc' };
/** The scope a caller might have on owners: every owner but those of org 'hidden' (a null org included). */
const NOT_HIDDEN: Filter = { not: { field: 'org', op: 'contains', value: 'hid' } };

export function defineRelationTests(ctx: TckContext): void {
  describe('sort through a to-one relation', () => {
    beforeEach(async function () {
      if (!ctx.ds.capabilities.sortThrough) this.skip();
      await seedOwners(ctx);
    });

    it('sorts ascending by the related field, nulls first (no owner, a missing owner, a null name)', async () => {
      expect(await idsOf(ctx.ds, { sort: [byOwnerName('asc'), BY_ID] })).to.deep.equal(['c', 'd', 'f', 'b', 'e', 'a']);
    });

    it('sorts descending by the related field, nulls last', async () => {
      expect(await idsOf(ctx.ds, { sort: [byOwnerName('desc'), BY_ID] })).to.deep.equal(['a', 'e', 'b', 'c', 'd', 'f']);
    });

    it('sorts a related record outside the scope as null', async () => {
      expect(await idsOf(ctx.ds, { sort: [byOwnerName('asc', NOT_HIDDEN), BY_ID] })).to.deep.equal(['c', 'd', 'e', 'f', 'b', 'a']);
      expect(await idsOf(ctx.ds, { sort: [byOwnerName('desc', { field: 'org', op: 'in', value: ['x', 'y'] }), BY_ID] })).to.deep.equal([
        'a',
        'b',
        'c',
        'd',
        'e',
        'f',
      ]);
    });

    it('sorts after an own key, filters and pages, and projects only what is asked', async () => {
      const query: Query = {
        filter: { field: 'status', op: 'in', value: ['open', 'closed', 'draft'] },
        sort: [{ field: 'active', dir: 'asc' }, byOwnerName('desc'), BY_ID],
        fields: ['name'],
      };
      expect(await idsOf(ctx.ds, query)).to.deep.equal(['e', 'b', 'c', 'a', 'f']);
      const page = await ctx.ds.find(ITEM, { ...query, skip: 1, top: 2 });
      expect(page.map((r) => r.id)).to.deep.equal(['b', 'c']);
      expect(Object.keys(page[0]).sort()).to.deep.equal(['id', 'name']);
    });

    it('keeps the related record of a write made in the same transaction', async function () {
      if (!ctx.ds.capabilities.transactions) this.skip();
      const ids = await ctx.ds.transaction(async (tx) => {
        await ctx.ds.update(OWNER, 'o1', { name: 'Aaron' }, tx);
        return (await ctx.ds.find(ITEM, { sort: [byOwnerName('desc'), BY_ID], fields: ['id'] }, tx)).map((r) => r.id);
      });
      expect(ids).to.deep.equal(['e', 'b', 'a', 'c', 'd', 'f']);
    });
  });

  describe('paging per group', () => {
    beforeEach(async function () {
      if (!ctx.ds.capabilities.perGroupPaging) this.skip();
      await seedItems(ctx.ds);
    });

    const sorted = async (query: Query) => (await idsOf(ctx.ds, query)).sort();

    it('keeps the first rows of each group in sort order, nulls a group of their own', async () => {
      // active: true [a], false [b, e, c] (qty 5, 5, null; ties by id), null [d].
      expect(await idsOf(ctx.ds, { sort: [{ field: 'qty', dir: 'desc' }], perGroup: { field: 'active', top: 2 } })).to.deep.equal([
        'd',
        'a',
        'b',
        'e',
      ]);
      expect(await sorted({ perGroup: { field: 'status', top: 1 } })).to.deep.equal(['a', 'b', 'd', 'e']);
    });

    it('skips within each group', async () => {
      expect(await idsOf(ctx.ds, { sort: [{ field: 'qty', dir: 'desc' }], perGroup: { field: 'active', top: 1, skip: 1 } })).to.deep.equal([
        'e',
      ]);
      expect(await sorted({ perGroup: { field: 'active', skip: 1 } })).to.deep.equal(['c', 'e']);
    });

    it('numbers the rows the filter keeps', async () => {
      const query: Query = {
        filter: { field: 'qty', op: 'isnull', value: false },
        sort: [{ field: 'price', dir: 'asc' }],
        perGroup: { field: 'active', top: 1 },
      };
      expect(await idsOf(ctx.ds, query)).to.deep.equal(['d', 'a', 'b']);
    });

    it("applies the query's own top and skip to what is left", async () => {
      const query: Query = { sort: [{ field: 'qty', dir: 'desc' }], perGroup: { field: 'active', top: 2 }, skip: 1, top: 2 };
      expect(await idsOf(ctx.ds, query)).to.deep.equal(['a', 'b']);
      expect(await idsOf(ctx.ds, { ...query, perGroup: { field: 'active', top: 0 } })).to.deep.equal([]);
    });

    it('pages the rows of each parent by its lookup, projecting only what is asked', async () => {
      await ctx.ds.create(OWNER, { id: 'o1', name: 'One' });
      for (const [id, owner] of [
        ['a', 'o1'],
        ['b', 'o1'],
        ['c', 'o2'],
        ['e', 'o1'],
      ])
        await ctx.ds.update(ITEM, id, { owner });
      const rows = await ctx.ds.find(ITEM, {
        filter: { field: 'owner', op: 'in', value: ['o1', 'o2'] },
        sort: [{ field: 'name', dir: 'desc' }],
        perGroup: { field: 'owner', top: 2 },
        fields: ['owner'],
      });
      // o1: a 'Apple', b 'banana_split', e 'apple pie'; by name descending b first on every collation.
      expect(rows.filter((r) => r.owner === 'o1')).to.have.length(2);
      expect(rows.find((r) => r.owner === 'o1')).to.deep.equal({ id: 'b', owner: 'o1' });
      expect(rows.filter((r) => r.owner === 'o2')).to.deep.equal([{ id: 'c', owner: 'o2' }]);
    });

    it('pages per group while sorting through a relation', async function () {
      if (!ctx.ds.capabilities.sortThrough) this.skip();
      await ctx.ds.create(OWNER, { id: 'o1', name: 'Zed' });
      await ctx.ds.create(OWNER, { id: 'o2', name: 'Amy' });
      await ctx.ds.update(ITEM, 'b', { owner: 'o1' });
      await ctx.ds.update(ITEM, 'c', { owner: 'o2' });
      await ctx.ds.update(ITEM, 'e', { owner: 'o2' });
      // active false: b (Zed), c (Amy), e (Amy): ascending by owner name then id, c and e first.
      const query: Query = {
        sort: [byOwnerName('asc')],
        perGroup: { field: 'active', top: 2 },
        filter: { field: 'active', op: 'eq', value: false },
      };
      expect(await idsOf(ctx.ds, query)).to.deep.equal(['c', 'e']);
      expect(await idsOf(ctx.ds, { ...query, sort: [byOwnerName('desc')] })).to.deep.equal(['b', 'c']);
    });
  });
}
