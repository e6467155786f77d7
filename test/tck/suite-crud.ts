import { expect } from 'chai';
import type { DbRecord } from '../../kernel/drivers';
import { ITEM, OWNER, nullish, tckObjects, type TckContext } from './fixtures';

const FULL: DbRecord = {
  name: 'Widget',
  qty: 42,
  target: 0,
  price: 19.99,
  active: true,
  due: '2024-02-29',
  at: '2024-02-29T13:45:30.123Z',
  status: 'open',
  tags: ['red', 'yellow'],
  meta: { size: 'L', dims: [1, 2.5, 3], nested: { ok: true, none: null }, list: [{ k: 'v' }] },
  code: 'W-1',
};

export function defineCrudTests(ctx: TckContext): void {
  describe('create / read / update / delete', () => {
    it('creates a record with a generated id and reads it back with its types preserved', async () => {
      const created = await ctx.ds.create(ITEM, structuredClone(FULL));
      expect(created.id).to.be.a('string').and.not.equal('');
      expect(created).to.deep.include(FULL);

      const [found, ...rest] = await ctx.ds.find(ITEM, { filter: { field: 'id', op: 'eq', value: created.id } });
      expect(rest).to.have.length(0);
      expect(found).to.deep.include({ ...FULL, id: created.id });
      expect(found.qty).to.be.a('number').and.equal(42);
      expect(found.price).to.be.a('number').and.equal(19.99);
      expect(found.active).to.equal(true);
      expect(found.tags).to.be.an('array').that.deep.equals(['red', 'yellow']);
      expect(found.meta).to.deep.equal(FULL.meta);
    });

    it('preserves falsy values: 0, false, empty string and empty json', async () => {
      const data = { name: '', qty: 0, price: 0, active: false, meta: {}, tags: ['fruit'] };
      const created = await ctx.ds.create(ITEM, data);
      const [found] = await ctx.ds.find(ITEM, { filter: { field: 'id', op: 'eq', value: created.id } });
      expect(found).to.deep.include(data);
      expect(found.active).to.equal(false);
      expect(found.qty).to.equal(0);
    });

    it('stores null values and returns absent fields as null or not at all', async () => {
      const created = await ctx.ds.create(ITEM, { name: 'sparse', qty: null });
      const [found] = await ctx.ds.find(ITEM, { filter: { field: 'id', op: 'eq', value: created.id } });
      expect(found.name).to.equal('sparse');
      expect(found.qty).to.equal(null);
      expect(nullish(found.status)).to.equal(true);
      expect(nullish(found.meta)).to.equal(true);
    });

    it('creates a record with an explicit id', async () => {
      const created = await ctx.ds.create(ITEM, { id: 'explicit-1', name: 'given id' });
      expect(created.id).to.equal('explicit-1');
      const found = await ctx.ds.find(ITEM, { filter: { field: 'id', op: 'eq', value: 'explicit-1' } });
      expect(found.map((r) => r.name)).to.deep.equal(['given id']);
    });

    it('generates distinct ids', async () => {
      const one = await ctx.ds.create(ITEM, { name: 'one' });
      const two = await ctx.ds.create(ITEM, { name: 'two' });
      expect(one.id).to.not.equal(two.id);
      expect(await ctx.ds.count(ITEM, undefined)).to.equal(2);
    });

    it('updates part of a record and returns the whole record', async () => {
      const created = await ctx.ds.create(ITEM, structuredClone(FULL));
      const id = String(created.id);
      const updated = await ctx.ds.update(ITEM, id, { qty: 7, status: 'closed', tags: ['fruit'], meta: { v: 2 } });
      expect(updated).to.deep.include({ ...FULL, id, qty: 7, status: 'closed', tags: ['fruit'], meta: { v: 2 } });

      const [found] = await ctx.ds.find(ITEM, { filter: { field: 'id', op: 'eq', value: id } });
      expect(found).to.deep.include({ ...FULL, id, qty: 7, status: 'closed', tags: ['fruit'], meta: { v: 2 } });
    });

    it('updates a field to null', async () => {
      const created = await ctx.ds.create(ITEM, { name: 'x', qty: 3, code: 'NULL-ME' });
      const updated = await ctx.ds.update(ITEM, String(created.id), { qty: null, code: null });
      expect(updated).to.deep.include({ name: 'x', qty: null, code: null });
      expect(await ctx.ds.count(ITEM, { field: 'qty', op: 'isnull', value: true })).to.equal(1);
    });

    it('returns null when updating a missing id and creates nothing', async () => {
      expect(await ctx.ds.update(ITEM, 'no-such-id', { name: 'ghost' })).to.equal(null);
      expect(await ctx.ds.count(ITEM, undefined)).to.equal(0);
    });

    it('deletes by id and reports whether a record was deleted', async () => {
      const keep = await ctx.ds.create(ITEM, { name: 'keep' });
      const gone = await ctx.ds.create(ITEM, { name: 'gone' });
      expect(await ctx.ds.delete(ITEM, String(gone.id))).to.equal(true);
      expect(await ctx.ds.delete(ITEM, String(gone.id))).to.equal(false);
      expect(await ctx.ds.delete(ITEM, 'no-such-id')).to.equal(false);
      const left = await ctx.ds.find(ITEM, {});
      expect(left.map((r) => r.id)).to.deep.equal([keep.id]);
    });

    it('keeps objects apart', async () => {
      await ctx.ds.create(ITEM, { id: 'same', name: 'item' });
      await ctx.ds.create(OWNER, { id: 'same', name: 'owner', org: 'o' });
      expect((await ctx.ds.find(OWNER, {})).map((r) => r.name)).to.deep.equal(['owner']);
      expect(await ctx.ds.delete(OWNER, 'same')).to.equal(true);
      expect((await ctx.ds.find(ITEM, {})).map((r) => r.name)).to.deep.equal(['item']);
    });

    it('keeps data when syncSchema runs again', async () => {
      await ctx.ds.create(ITEM, { id: 'kept', name: 'survivor', qty: 1, tags: ['red'] });
      await ctx.ds.syncSchema(tckObjects());
      await ctx.ds.syncSchema(tckObjects());
      const found = await ctx.ds.find(ITEM, {});
      expect(found).to.have.length(1);
      expect(found[0]).to.deep.include({ id: 'kept', name: 'survivor', qty: 1, tags: ['red'] });
    });
  });
}
