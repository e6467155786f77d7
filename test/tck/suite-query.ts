import { expect } from 'chai';
import { ITEM, idsOf, seedItems, type TckContext } from './fixtures';

export function defineQueryTests(ctx: TckContext): void {
  describe('sort, paging, projection and count', () => {
    beforeEach(() => seedItems(ctx.ds));

    describe('sort', () => {
      it('sorts ascending with nulls first', async () => {
        expect(await idsOf(ctx.ds, { sort: [{ field: 'due', dir: 'asc' }] })).to.deep.equal(['c', 'a', 'e', 'b', 'd']);
      });

      it('sorts descending with nulls last', async () => {
        expect(await idsOf(ctx.ds, { sort: [{ field: 'price', dir: 'desc' }] })).to.deep.equal(['e', 'c', 'b', 'a', 'd']);
      });

      it('sorts by several keys in mixed directions', async () => {
        const sort = [
          { field: 'status', dir: 'asc' as const },
          { field: 'qty', dir: 'desc' as const },
        ];
        expect(await idsOf(ctx.ds, { sort })).to.deep.equal(['d', 'b', 'e', 'a', 'c']);
      });

      it('breaks ties with the next key', async () => {
        const asc = [
          { field: 'qty', dir: 'asc' as const },
          { field: 'name', dir: 'asc' as const },
        ];
        expect(await idsOf(ctx.ds, { sort: asc })).to.deep.equal(['c', 'e', 'b', 'a', 'd']);
        const desc = [
          { field: 'qty', dir: 'desc' as const },
          { field: 'name', dir: 'desc' as const },
        ];
        expect(await idsOf(ctx.ds, { sort: desc })).to.deep.equal(['d', 'a', 'b', 'e', 'c']);
      });

      it('sorts datetimes chronologically', async () => {
        expect(await idsOf(ctx.ds, { sort: [{ field: 'at', dir: 'desc' }] })).to.deep.equal(['d', 'b', 'e', 'a', 'c']);
      });

      it('sorts filtered records', async () => {
        const query = { filter: { field: 'tags', op: 'eq' as const, value: 'fruit' }, sort: [{ field: 'price', dir: 'desc' as const }] };
        expect(await idsOf(ctx.ds, query)).to.deep.equal(['e', 'b', 'a']);
      });
    });

    describe('paging', () => {
      const byId = [{ field: 'id', dir: 'asc' as const }];

      it('applies top alone', async () => {
        expect(await idsOf(ctx.ds, { sort: byId, top: 3 })).to.deep.equal(['a', 'b', 'c']);
      });

      it('applies skip and top', async () => {
        expect(await idsOf(ctx.ds, { sort: byId, skip: 1, top: 2 })).to.deep.equal(['b', 'c']);
      });

      it('applies skip alone', async () => {
        expect(await idsOf(ctx.ds, { sort: byId, skip: 3 })).to.deep.equal(['d', 'e']);
      });

      it('returns the remainder when top passes the end', async () => {
        expect(await idsOf(ctx.ds, { sort: byId, skip: 4, top: 10 })).to.deep.equal(['e']);
      });

      it('returns nothing when skip passes the end', async () => {
        expect(await idsOf(ctx.ds, { sort: byId, skip: 10 })).to.deep.equal([]);
      });

      it('pages after filtering and sorting', async () => {
        const query = {
          filter: { field: 'qty', op: 'isnull' as const, value: false },
          sort: [{ field: 'qty', dir: 'desc' as const }],
          top: 2,
        };
        expect(await idsOf(ctx.ds, query)).to.deep.equal(['d', 'a']);
      });
    });

    describe('projection', () => {
      it('returns only the requested fields and the id', async () => {
        const records = await ctx.ds.find(ITEM, { fields: ['name', 'qty'], sort: [{ field: 'id', dir: 'asc' }], top: 2 });
        expect(records).to.deep.equal([
          { id: 'a', name: 'Apple', qty: 10 },
          { id: 'b', name: 'banana_split', qty: 5 },
        ]);
      });

      it('projects json and array fields with their types', async () => {
        const [record] = await ctx.ds.find(ITEM, { fields: ['meta', 'tags', 'active'], filter: { field: 'id', op: 'eq', value: 'a' } });
        expect(record).to.deep.equal({ id: 'a', meta: { color: 'red', n: 1 }, tags: ['red', 'fruit'], active: true });
      });

      it('can filter and sort on fields it does not return', async () => {
        const records = await ctx.ds.find(ITEM, {
          fields: ['name'],
          filter: { field: 'qty', op: 'eq', value: 5 },
          sort: [{ field: 'price', dir: 'desc' }],
        });
        expect(records).to.deep.equal([
          { id: 'e', name: 'apple pie' },
          { id: 'b', name: 'banana_split' },
        ]);
      });
    });

    describe('count', () => {
      it('counts every record without a filter', async () => {
        expect(await ctx.ds.count(ITEM, undefined)).to.equal(5);
      });

      it('counts the records a filter matches', async () => {
        expect(await ctx.ds.count(ITEM, { field: 'active', op: 'eq', value: false })).to.equal(3);
        expect(await ctx.ds.count(ITEM, { field: 'tags', op: 'eq', value: 'fruit' })).to.equal(3);
        expect(
          await ctx.ds.count(ITEM, {
            or: [
              { field: 'qty', op: 'isnull', value: true },
              { field: 'name', op: 'like', value: 'd%' },
            ],
          }),
        ).to.equal(2);
      });

      it('counts zero when nothing matches', async () => {
        expect(await ctx.ds.count(ITEM, { field: 'qty', op: 'gt', value: 100 })).to.equal(0);
      });

      it('counts an empty object', async () => {
        expect(await ctx.ds.count('tck_owner', undefined)).to.equal(0);
      });
    });
  });
}
