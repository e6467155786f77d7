import { expect } from 'chai';
import { ObjectQLError } from '../../kernel/errors';
import { ITEM, OWNER, type TckContext } from './fixtures';

/** Awaits a promise that must reject with an ObjectQLError of code CONFLICT. */
export async function expectConflict(promise: Promise<unknown>): Promise<ObjectQLError> {
  let error: unknown;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  expect(error, 'expected a CONFLICT error').to.be.instanceOf(ObjectQLError);
  expect((error as ObjectQLError).code).to.equal('CONFLICT');
  return error as ObjectQLError;
}

export function defineConstraintTests(ctx: TckContext): void {
  describe('unique constraints', () => {
    it('rejects a duplicate value of a unique field on create', async () => {
      await ctx.ds.create(ITEM, { name: 'first', code: 'U-1' });
      const error = await expectConflict(ctx.ds.create(ITEM, { name: 'second', code: 'U-1' }));
      expect(error.status).to.equal(409);
      expect(await ctx.ds.count(ITEM, undefined)).to.equal(1);
    });

    it('compares unique values exactly', async () => {
      await ctx.ds.create(ITEM, { name: 'first', code: 'U-1' });
      await ctx.ds.create(ITEM, { name: 'second', code: 'U-2' });
      expect(await ctx.ds.count(ITEM, undefined)).to.equal(2);
    });

    it('rejects a duplicate value of a unique field on update and keeps the record', async () => {
      await ctx.ds.create(ITEM, { id: 'u1', name: 'first', code: 'U-1' });
      await ctx.ds.create(ITEM, { id: 'u2', name: 'second', code: 'U-2' });
      await expectConflict(ctx.ds.update(ITEM, 'u2', { name: 'renamed', code: 'U-1' }));
      const [u2] = await ctx.ds.find(ITEM, { filter: { field: 'id', op: 'eq', value: 'u2' } });
      expect(u2).to.deep.include({ name: 'second', code: 'U-2' });
    });

    it('lets a record keep its own unique value on update', async () => {
      await ctx.ds.create(ITEM, { id: 'u1', name: 'first', code: 'U-1' });
      const updated = await ctx.ds.update(ITEM, 'u1', { name: 'renamed', code: 'U-1' });
      expect(updated).to.deep.include({ id: 'u1', name: 'renamed', code: 'U-1' });
    });

    it('frees a unique value when its record is deleted or changed', async () => {
      await ctx.ds.create(ITEM, { id: 'u1', code: 'U-1' });
      await ctx.ds.create(ITEM, { id: 'u2', code: 'U-2' });
      await ctx.ds.delete(ITEM, 'u1');
      await ctx.ds.update(ITEM, 'u2', { code: 'U-3' });
      await ctx.ds.create(ITEM, { id: 'u4', code: 'U-1' });
      await ctx.ds.create(ITEM, { id: 'u5', code: 'U-2' });
      expect(await ctx.ds.count(ITEM, undefined)).to.equal(3);
    });

    it('never treats null values as duplicates', async () => {
      await ctx.ds.create(ITEM, { name: 'a', code: null });
      await ctx.ds.create(ITEM, { name: 'b', code: null });
      await ctx.ds.create(ITEM, { name: 'c' });
      const d = await ctx.ds.create(ITEM, { name: 'd', code: 'U-1' });
      await ctx.ds.update(ITEM, String(d.id), { code: null });
      expect(await ctx.ds.count(ITEM, { field: 'code', op: 'isnull', value: true })).to.equal(4);
    });

    it('rejects a duplicate id', async () => {
      await ctx.ds.create(ITEM, { id: 'dup', name: 'first' });
      await expectConflict(ctx.ds.create(ITEM, { id: 'dup', name: 'second' }));
      const found = await ctx.ds.find(ITEM, {});
      expect(found.map((r) => r.name)).to.deep.equal(['first']);
    });

    it('enforces a unique index over several fields', async () => {
      await ctx.ds.create(OWNER, { name: 'p', org: 'x', email: 'p@example.com' });
      await ctx.ds.create(OWNER, { name: 'p', org: 'y', email: 'p@example.com' });
      await ctx.ds.create(OWNER, { name: 'q', org: 'x', email: 'q@example.com' });
      await expectConflict(ctx.ds.create(OWNER, { name: 'p2', org: 'x', email: 'p@example.com' }));
      expect(await ctx.ds.count(OWNER, undefined)).to.equal(3);
    });

    it('does not apply a unique index when one of its fields is null', async () => {
      await ctx.ds.create(OWNER, { name: 'p', org: null, email: 'p@example.com' });
      await ctx.ds.create(OWNER, { name: 'p', org: null, email: 'p@example.com' });
      expect(await ctx.ds.count(OWNER, undefined)).to.equal(2);
    });
  });
}
