/**
 * Attachment fields (spec "Attachment fields"): the value of a `file` / `image` field is an
 * attachment object, or with `multiple` a list of them; an empty attachment is null, and an empty
 * list counts as none. The engine turns `[f, '=', null]` into `isnull: true` and `[f, '!=', null]`
 * into `isnull: false`: every driver must answer both in the store, for objects and lists alike.
 */
import { expect } from 'chai';
import type { DbRecord } from '../../kernel/drivers';
import type { Filter } from '../../kernel/query/ast';
import { DOC, idsWhere, nullish, type TckContext } from './fixtures';

const CONTRACT = {
  id: 'f-1',
  name: 'contract.pdf',
  url: 'https://files.example.com/f-1',
  size: 48213,
  type: 'application/pdf',
  original_name: 'Vertrag – signiert (v2).pdf',
  uploaded_at: '2024-05-01T10:00:00.000Z',
  uploaded_by: 'alice',
};
const INVOICE = { id: 'f-2', name: 'invoice.pdf', url: '/api/files/f-2', size: 0, type: 'application/pdf' };
const FRONT = {
  id: 'i-1',
  name: 'front.jpg',
  url: '/api/files/i-1',
  size: 1024,
  type: 'image/jpeg',
  width: 640,
  height: 480,
  thumbnail_url: '/api/files/i-1/thumbnail',
  variants: { small: '/api/files/i-1/small', medium: '/api/files/i-1/medium', large: '/api/files/i-1/large' },
};
const BACK = { name: 'back.png', url: '/api/files/i-2', size: 2048, type: 'image/png', width: 1, height: 1 };
const SIDE = { id: 'i-3', name: 'side.webp', url: '/api/files/i-3', size: 77, type: 'image/webp' };

/** Every way a record can hold or lack an attachment (ids sort as listed). */
const RECORDS: DbRecord[] = [
  { id: 'both', name: 'both', contract: CONTRACT, photos: [FRONT, BACK] },
  { id: 'empty', name: 'an empty list', contract: INVOICE, photos: [] },
  { id: 'nulls', name: 'explicit nulls', contract: null, photos: null },
  { id: 'omitted', name: 'fields never given' },
  { id: 'one', name: 'one photo', photos: [SIDE] },
];

const isnull = (field: string, value: boolean): Filter => ({ field, op: 'isnull', value });

const CASES: Array<[title: string, filter: Filter, expected: string[]]> = [
  ['file = null: null and never given', isnull('contract', true), ['nulls', 'omitted', 'one']],
  ['file != null: an attachment object', isnull('contract', false), ['both', 'empty']],
  ['multiple image = null: null, never given and []', isnull('photos', true), ['empty', 'nulls', 'omitted']],
  ['multiple image != null: a list of one or more', isnull('photos', false), ['both', 'one']],
  ['both present', { and: [isnull('contract', false), isnull('photos', false)] }, ['both']],
  ['either missing', { or: [isnull('contract', true), isnull('photos', true)] }, ['empty', 'nulls', 'omitted', 'one']],
  ['not file = null', { not: isnull('contract', true) }, ['both', 'empty']],
  ['not multiple image != null', { not: isnull('photos', false) }, ['empty', 'nulls', 'omitted']],
  ['not both present', { not: { and: [isnull('contract', false), isnull('photos', false)] } }, ['empty', 'nulls', 'omitted', 'one']],
];

async function find(ctx: TckContext, id: string): Promise<DbRecord> {
  const found = await ctx.ds.find(DOC, { filter: { field: 'id', op: 'eq', value: id } });
  expect(found, `record ${id}`).to.have.length(1);
  return found[0];
}

export function defineAttachmentTests(ctx: TckContext): void {
  describe('attachment fields (file, multiple image)', () => {
    beforeEach(async () => {
      for (const record of RECORDS) await ctx.ds.create(DOC, structuredClone(record));
    });

    for (const [title, filter, expected] of CASES) {
      it(`${title}: ${JSON.stringify(filter)}`, async () => {
        expect(await idsWhere(ctx.ds, filter, DOC)).to.deep.equal(expected);
        expect(await ctx.ds.count(DOC, filter)).to.equal(expected.length);
      });
    }

    it('returns attachment objects and lists exactly as written, in order', async () => {
      const data = { name: 'fresh', contract: CONTRACT, photos: [BACK, FRONT, SIDE] };
      const created = await ctx.ds.create(DOC, structuredClone(data));
      expect(created).to.deep.include(data);
      expect(await find(ctx, String(created.id))).to.deep.include({ ...data, id: created.id });

      expect(await find(ctx, 'both')).to.deep.include({ contract: CONTRACT, photos: [FRONT, BACK] });
      expect(await find(ctx, 'empty')).to.deep.include({ contract: INVOICE, photos: [] });
      const one = await find(ctx, 'one');
      expect(one.photos).to.deep.equal([SIDE]);
      expect(nullish(one.contract)).to.equal(true);
      for (const id of ['nulls', 'omitted']) {
        const record = await find(ctx, id);
        expect(nullish(record.contract) && nullish(record.photos), id).to.equal(true);
      }
      const [projected] = await ctx.ds.find(DOC, { fields: ['contract', 'photos'], filter: { field: 'id', op: 'eq', value: 'both' } });
      expect(projected).to.deep.equal({ id: 'both', contract: CONTRACT, photos: [FRONT, BACK] });
    });

    it('clears an attachment updated to null (or to [] for the list) and sets one on a record that had none', async () => {
      const cleared = await ctx.ds.update(DOC, 'both', { contract: null, photos: null });
      expect(cleared).to.deep.include({ id: 'both', name: 'both', contract: null, photos: null });
      expect((await ctx.ds.update(DOC, 'one', { photos: [] }))?.photos).to.deep.equal([]);
      const set = await ctx.ds.update(DOC, 'nulls', structuredClone({ contract: INVOICE, photos: [SIDE, BACK] }));
      expect(set).to.deep.include({ contract: INVOICE, photos: [SIDE, BACK] });

      expect(await idsWhere(ctx.ds, isnull('contract', false), DOC)).to.deep.equal(['empty', 'nulls']);
      expect(await idsWhere(ctx.ds, isnull('contract', true), DOC)).to.deep.equal(['both', 'omitted', 'one']);
      expect(await idsWhere(ctx.ds, isnull('photos', false), DOC)).to.deep.equal(['nulls']);
      expect(await idsWhere(ctx.ds, isnull('photos', true), DOC)).to.deep.equal(['both', 'empty', 'omitted', 'one']);
      expect(await find(ctx, 'both')).to.deep.include({ contract: null, photos: null });
      expect(await find(ctx, 'nulls')).to.deep.include({ contract: INVOICE, photos: [SIDE, BACK] });
    });
  });
}
