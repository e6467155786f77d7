import { expect } from 'chai';
import { VALUE, idsWhere, type TckContext } from './fixtures';

/**
 * The edges of what the engine lets through to a driver (docs/security.md, "Values and query
 * inputs"): the engine refuses NUL characters, unpaired surrogates, numbers beyond 2^53, text
 * beyond limits.maxTextLength, JSON deeper than limits.maxJsonValueDepth (31: MariaDB's JSON check refuses more), like patterns beyond
 * limits.maxPatternLength and skips beyond limits.maxSkip. Everything up to those edges, every
 * driver stores, matches and pages alike.
 */
const MAX_TEXT = 65_536;
const MAX_PATTERN = 1000;
const MAX_SKIP = 100_000;
const MAX_JSON_DEPTH = 31;

function nestedJson(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = i % 2 ? { k: value } : [value];
  return value;
}

export function defineValueTests(ctx: TckContext): void {
  describe('values at the edges the engine allows', () => {
    it('stores and returns short text of 255 characters and long text of maxTextLength, astral characters included', async () => {
      const long = `${'é😀'.repeat(MAX_TEXT / 2 - 1)}ab`;
      const astral = `𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀 \u{10FFFF}${'😀'.repeat(255 - 11)}`;
      const a = await ctx.ds.create(VALUE, { note: long });
      const b = await ctx.ds.create(VALUE, { name: astral });
      const [readA] = await ctx.ds.find(VALUE, { filter: { field: 'id', op: 'eq', value: a.id } });
      const [readB] = await ctx.ds.find(VALUE, { filter: { field: 'id', op: 'eq', value: b.id } });
      expect(readA.note).to.equal(long);
      expect([...astral]).to.have.length(255);
      expect(readB.name).to.equal(astral);
      expect(await idsWhere(ctx.ds, { field: 'name', op: 'eq', value: astral }, VALUE)).to.deep.equal([b.id]);
      expect(await idsWhere(ctx.ds, { field: 'name', op: 'contains', value: '😀 \u{10FFFF}' }, VALUE)).to.deep.equal([b.id]);
    });

    it('stores and compares the largest exact integers, ±(2^53 − 1)', async () => {
      const big = Number.MAX_SAFE_INTEGER;
      const hi = await ctx.ds.create(VALUE, { name: 'hi', qty: big });
      const lo = await ctx.ds.create(VALUE, { name: 'lo', qty: -big });
      const [readHi] = await ctx.ds.find(VALUE, { filter: { field: 'id', op: 'eq', value: hi.id } });
      const [readLo] = await ctx.ds.find(VALUE, { filter: { field: 'id', op: 'eq', value: lo.id } });
      expect(readHi.qty).to.equal(big);
      expect(readLo.qty).to.equal(-big);
      expect(await idsWhere(ctx.ds, { field: 'qty', op: 'eq', value: big }, VALUE)).to.deep.equal([hi.id]);
      expect(await idsWhere(ctx.ds, { field: 'qty', op: 'lt', value: 0 }, VALUE)).to.deep.equal([lo.id]);
    });

    it(`stores and returns a JSON value ${MAX_JSON_DEPTH} levels deep`, async () => {
      const meta = nestedJson(MAX_JSON_DEPTH);
      const created = await ctx.ds.create(VALUE, { name: 'deep', meta });
      const [read] = await ctx.ds.find(VALUE, { filter: { field: 'id', op: 'eq', value: created.id } });
      expect(read.meta).to.deep.equal(meta);
    });

    it(`matches like patterns of maxPatternLength characters over values of maxTextLength alike`, async () => {
      const value = `${'ab'.repeat(MAX_TEXT / 2 - 1)}Zz`;
      const hit = await ctx.ds.create(VALUE, { note: value });
      await ctx.ds.create(VALUE, { note: 'ab'.repeat(MAX_TEXT / 2) });
      const like = (pattern: string) => {
        expect(pattern.length).to.be.at.most(MAX_PATTERN);
        return idsWhere(ctx.ds, { field: 'note', op: 'like', value: pattern }, VALUE);
      };
      const repeats = MAX_PATTERN / 2 - 2;
      expect(await like(`%${'AB'.repeat(repeats)}zZ`)).to.deep.equal([hit.id]);
      expect(await like(`%${'a_'.repeat(repeats)}z_`)).to.deep.equal([hit.id]);
      expect(await like(`%${'b_'.repeat(repeats)}X%`)).to.deep.equal([]);
      expect(await like(`${'_'.repeat(MAX_PATTERN - 2)}%z`)).to.deep.equal([hit.id]);
      const contains = 'BA'.repeat(MAX_PATTERN / 2 - 1) + 'bz';
      expect(await idsWhere(ctx.ds, { field: 'note', op: 'contains', value: contains }, VALUE)).to.deep.equal([hit.id]);
      expect(await idsWhere(ctx.ds, { field: 'note', op: 'endswith', value: 'b'.repeat(MAX_PATTERN) }, VALUE)).to.deep.equal([]);
    });

    it(`pages with a skip of maxSkip (${MAX_SKIP}): nothing past the end, the count unchanged`, async () => {
      await ctx.ds.create(VALUE, { name: 'one' });
      await ctx.ds.create(VALUE, { name: 'two' });
      expect(await ctx.ds.find(VALUE, { skip: MAX_SKIP })).to.deep.equal([]);
      expect(await ctx.ds.find(VALUE, { skip: MAX_SKIP, top: 10, sort: [{ field: 'name', dir: 'asc' }] })).to.deep.equal([]);
      expect(await ctx.ds.count(VALUE, undefined)).to.equal(2);
    });
  });
}
