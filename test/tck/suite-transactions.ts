import { expect } from 'chai';
import { ObjectQLError } from '../../kernel/errors';
import { ITEM, type TckContext } from './fixtures';
import { expectConflict } from './suite-constraints';

const byId = (id: string) => ({ filter: { field: 'id', op: 'eq' as const, value: id } });

export function defineTransactionTests(ctx: TckContext): void {
  describe('transactions', () => {
    beforeEach(async function () {
      if (!ctx.ds.capabilities.transactions) this.skip();
      await ctx.ds.create(ITEM, { id: 'keep', name: 'kept', qty: 1, code: 'K-1' });
      await ctx.ds.create(ITEM, { id: 'drop', name: 'dropped', qty: 2 });
    });

    it('commits every write when the function resolves, and returns its result', async () => {
      const result = await ctx.ds.transaction(async (tx) => {
        await ctx.ds.create(ITEM, { id: 'new', name: 'created', qty: 3 }, tx);
        await ctx.ds.update(ITEM, 'keep', { qty: 10 }, tx);
        await ctx.ds.delete(ITEM, 'drop', tx);
        return 'done';
      });
      expect(result).to.equal('done');
      const rows = await ctx.ds.find(ITEM, { sort: [{ field: 'id', dir: 'asc' }], fields: ['name', 'qty'] });
      expect(rows).to.deep.equal([
        { id: 'keep', name: 'kept', qty: 10 },
        { id: 'new', name: 'created', qty: 3 },
      ]);
    });

    it('reads its own writes inside the transaction', async () => {
      await ctx.ds.transaction(async (tx) => {
        await ctx.ds.create(ITEM, { id: 'new', name: 'created', qty: 3 }, tx);
        await ctx.ds.update(ITEM, 'keep', { qty: 10 }, tx);
        await ctx.ds.delete(ITEM, 'drop', tx);
        const ids = (await ctx.ds.find(ITEM, { sort: [{ field: 'id', dir: 'asc' }] }, tx)).map((r) => r.id);
        expect(ids).to.deep.equal(['keep', 'new']);
        expect(await ctx.ds.count(ITEM, { field: 'qty', op: 'ge', value: 3 }, tx)).to.equal(2);
        expect((await ctx.ds.find(ITEM, byId('keep'), tx))[0]).to.deep.include({ qty: 10 });
        expect(await ctx.ds.update(ITEM, 'drop', { qty: 9 }, tx)).to.equal(null);
        expect(await ctx.ds.delete(ITEM, 'drop', tx)).to.equal(false);
        expect(await ctx.ds.update(ITEM, 'new', { qty: 4 }, tx)).to.deep.include({ id: 'new', qty: 4 });
        if (ctx.ds.capabilities.aggregation) {
          const [totals] = await ctx.ds.aggregate(ITEM, { aggregate: [{ func: 'sum', field: 'qty', alias: 'total' }] }, tx);
          expect(totals.total).to.equal(14);
        }
      });
      expect((await ctx.ds.find(ITEM, byId('new')))[0]).to.deep.include({ qty: 4 });
    });

    it('rolls back every write and rethrows when the function throws', async () => {
      const boom = new ObjectQLError('VALIDATION_FAIL', 'boom');
      let caught: unknown;
      try {
        await ctx.ds.transaction(async (tx) => {
          await ctx.ds.create(ITEM, { id: 'new', name: 'created' }, tx);
          await ctx.ds.update(ITEM, 'keep', { qty: 10 }, tx);
          await ctx.ds.delete(ITEM, 'drop', tx);
          throw boom;
        });
      } catch (e) {
        caught = e;
      }
      expect(caught).to.be.instanceOf(ObjectQLError);
      expect((caught as ObjectQLError).code).to.equal('VALIDATION_FAIL');
      expect((caught as ObjectQLError).message).to.equal('boom');
      const rows = await ctx.ds.find(ITEM, { sort: [{ field: 'id', dir: 'asc' }], fields: ['qty'] });
      expect(rows).to.deep.equal([
        { id: 'drop', qty: 2 },
        { id: 'keep', qty: 1 },
      ]);
    });

    it('hides writes from calls outside the transaction until it commits', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let staged!: () => void;
      const written = new Promise<void>((resolve) => (staged = resolve));
      const running = ctx.ds.transaction(async (tx) => {
        await ctx.ds.create(ITEM, { id: 'new', name: 'created' }, tx);
        await ctx.ds.update(ITEM, 'keep', { qty: 10 }, tx);
        await ctx.ds.delete(ITEM, 'drop', tx);
        staged();
        await gate;
        return 'committed';
      });
      await Promise.race([written, running]);

      expect(await ctx.ds.find(ITEM, byId('new'))).to.deep.equal([]);
      expect((await ctx.ds.find(ITEM, byId('keep')))[0]).to.deep.include({ qty: 1 });
      expect(await ctx.ds.find(ITEM, byId('drop'))).to.have.length(1);
      expect(await ctx.ds.count(ITEM, undefined)).to.equal(2);

      release();
      expect(await running).to.equal('committed');
      expect(await ctx.ds.count(ITEM, undefined)).to.equal(2);
      expect((await ctx.ds.find(ITEM, byId('keep')))[0]).to.deep.include({ qty: 10 });
      expect(await ctx.ds.find(ITEM, byId('drop'))).to.deep.equal([]);
    });

    it('checks unique values against committed data and fails the transaction', async () => {
      await expectConflict(
        ctx.ds.transaction(async (tx) => {
          await ctx.ds.create(ITEM, { id: 'new', name: 'created' }, tx);
          await ctx.ds.create(ITEM, { id: 'dup', code: 'K-1' }, tx);
        }),
      );
      expect(await ctx.ds.count(ITEM, undefined)).to.equal(2);
    });

    it('checks unique values against its own staged writes', async () => {
      await expectConflict(
        ctx.ds.transaction(async (tx) => {
          await ctx.ds.create(ITEM, { id: 't1', code: 'T-1' }, tx);
          await ctx.ds.create(ITEM, { id: 't2', code: 'T-1' }, tx);
        }),
      );
      expect(await ctx.ds.count(ITEM, undefined)).to.equal(2);
    });

    it('frees a unique value deleted earlier in the same transaction', async () => {
      await ctx.ds.transaction(async (tx) => {
        await ctx.ds.delete(ITEM, 'keep', tx);
        await ctx.ds.create(ITEM, { id: 'again', code: 'K-1' }, tx);
      });
      const rows = await ctx.ds.find(ITEM, { filter: { field: 'code', op: 'eq', value: 'K-1' } });
      expect(rows.map((r) => r.id)).to.deep.equal(['again']);
    });
  });
}
