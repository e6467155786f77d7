import { expect } from 'chai';
import type { Filter } from '../../kernel/query/ast';
import { idsWhere, seedItems, type TckContext } from './fixtures';

type Case = [title: string, filter: Filter, expected: string[]];

const c = (field: string, op: string, value: unknown): Filter => ({ field, op, value }) as Filter;
const ref = (field: string, op: string, other: string): Filter => ({ field, op, ref: other }) as Filter;
const len = (field: string, op: string, value: unknown): Filter => ({ field, op, value, fn: 'length' }) as Filter;

/** Expected ids are against SEED (see fixtures.ts). */
const CASES: Record<string, Case[]> = {
  'comparison operators': [
    ['eq on text is case-sensitive', c('name', 'eq', 'Apple'), ['a']],
    ['eq on text does not fold case', c('name', 'eq', 'apple'), []],
    ['eq on number', c('qty', 'eq', 5), ['b', 'e']],
    ['eq on boolean true', c('active', 'eq', true), ['a']],
    ['eq on boolean false', c('active', 'eq', false), ['b', 'c', 'e']],
    ['eq on date', c('due', 'eq', '2024-01-31'), ['e']],
    ['ne matches nulls', c('status', 'ne', 'open'), ['b', 'd', 'e']],
    ['ne on number matches nulls', c('qty', 'ne', 5), ['a', 'c', 'd']],
    ['gt', c('qty', 'gt', 5), ['a', 'd']],
    ['ge', c('qty', 'ge', 5), ['a', 'b', 'd', 'e']],
    ['lt excludes nulls', c('qty', 'lt', 10), ['b', 'e']],
    ['le', c('qty', 'le', 10), ['a', 'b', 'e']],
    ['gt on decimals', c('price', 'gt', 2), ['b', 'c', 'e']],
    ['le on decimals', c('price', 'le', 1.5), ['a']],
    ['gt on date', c('due', 'gt', '2024-01-31'), ['b', 'd']],
    ['ge on date', c('due', 'ge', '2024-01-31'), ['b', 'd', 'e']],
    ['lt on datetime', c('at', 'lt', '2024-01-31T00:00:00.001Z'), ['a', 'e']],
    ['in on text', c('status', 'in', ['open', 'draft']), ['a', 'c', 'e']],
    ['in on number', c('qty', 'in', [5, 20]), ['b', 'd', 'e']],
    ['nin matches nulls', c('status', 'nin', ['open']), ['b', 'd', 'e']],
    ['nin with several values', c('status', 'nin', ['open', 'closed']), ['d', 'e']],
    ['between on number is inclusive', c('qty', 'between', [5, 10]), ['a', 'b', 'e']],
    ['between on decimals', c('price', 'between', [2.25, 3]), ['b', 'c']],
    ['between on date', c('due', 'between', ['2024-01-01', '2024-01-31']), ['a', 'e']],
    ['isnull true', c('qty', 'isnull', true), ['c']],
    ['isnull false', c('qty', 'isnull', false), ['a', 'b', 'd', 'e']],
    ['isnull on select', c('status', 'isnull', true), ['d']],
    ['isnull on boolean', c('active', 'isnull', true), ['d']],
  ],
  'text operators': [
    ['like with % is case-insensitive', c('name', 'like', 'app%'), ['a', 'e']],
    ['like is anchored', c('name', 'like', '%PIE'), ['e']],
    ['like _ matches one character', c('name', 'like', 'Duria_'), ['d']],
    ['like _ matches exactly one', c('name', 'like', 'Dur_'), []],
    ['like _ matches a space', c('name', 'like', 'apple_pie'), ['e']],
    ['like escaped \\_ is literal', c('name', 'like', 'apple\\_pie'), []],
    ['like escaped \\_ matches an underscore', c('name', 'like', 'banana\\_%'), ['b']],
    ['like escaped \\% is literal', c('name', 'like', '%\\%%'), ['c']],
    ['like escaped \\% in place', c('name', 'like', '100\\% cotton'), ['c']],
    ['startswith is case-insensitive', c('name', 'startswith', 'APP'), ['a', 'e']],
    ['startswith takes _ literally', c('name', 'startswith', 'b_n'), []],
    ['startswith with an underscore', c('name', 'startswith', 'banana_'), ['b']],
    ['endswith is case-insensitive', c('name', 'endswith', 'IAN'), ['d']],
    ['endswith', c('name', 'endswith', 'split'), ['b']],
    ['contains is case-insensitive', c('name', 'contains', 'COTTON'), ['c']],
    ['contains takes % literally', c('name', 'contains', '%'), ['c']],
    ['contains takes _ literally', c('name', 'contains', '_'), ['b']],
    ['contains in the middle', c('name', 'contains', 'an'), ['b', 'd']],
  ],
  'multiple (array) fields': [
    ['eq matches any element', c('tags', 'eq', 'fruit'), ['a', 'b', 'e']],
    ['eq on elements is case-sensitive', c('tags', 'eq', 'Fruit'), []],
    ['in matches any element', c('tags', 'in', ['red', 'yellow']), ['a', 'b']],
    ['ne matches when no element does (and empty/null)', c('tags', 'ne', 'fruit'), ['c', 'd']],
    ['nin matches when no element is listed', c('tags', 'nin', ['red', 'yellow']), ['c', 'd', 'e']],
    ['isnull true matches null and empty', c('tags', 'isnull', true), ['c', 'd']],
    ['isnull false', c('tags', 'isnull', false), ['a', 'b', 'e']],
  ],
  'field references': [
    ['eq another field', ref('qty', 'eq', 'target'), ['a', 'e']],
    ['gt another field', ref('qty', 'gt', 'target'), ['b']],
    ['lt another field', ref('qty', 'lt', 'target'), ['d']],
    ['ge another field', ref('qty', 'ge', 'target'), ['a', 'b', 'e']],
    ['le another field', ref('qty', 'le', 'target'), ['a', 'd', 'e']],
    ['ne another field matches a null side', ref('qty', 'ne', 'target'), ['b', 'c', 'd']],
  ],
  // Names: Apple (5), banana_split (12), 100% Cotton (11), Durian (6), apple pie (9); codes A-1, B-1, D-1 and two nulls.
  'length()': [
    ['length eq', len('name', 'eq', 5), ['a']],
    ['length gt', len('name', 'gt', 9), ['b', 'c']],
    ['length ge', len('name', 'ge', 9), ['b', 'c', 'e']],
    ['length lt', len('name', 'lt', 6), ['a']],
    ['length le', len('name', 'le', 6), ['a', 'd']],
    ['length ne matches nulls', len('code', 'ne', 3), ['c', 'e']],
    ['length eq leaves nulls out', len('code', 'eq', 3), ['a', 'b', 'd']],
    ['length gt leaves nulls out', len('code', 'gt', 0), ['a', 'b', 'd']],
    ['length on a select', len('status', 'ge', 5), ['b', 'e']],
    ['length compared with a decimal', len('name', 'gt', 8.5), ['b', 'c', 'e']],
    ['length le a decimal', len('name', 'le', 6.5), ['a', 'd']],
    ['length eq a decimal matches nothing', len('name', 'eq', 5.5), []],
    ['length ne a decimal matches everything', len('code', 'ne', 2.5), ['a', 'b', 'c', 'd', 'e']],
    ['length beyond any string', len('name', 'lt', 1e12), ['a', 'b', 'c', 'd', 'e']],
    ['length below zero', len('name', 'gt', -3), ['a', 'b', 'c', 'd', 'e']],
    ['not over length matches the null records', { not: len('code', 'lt', 4) }, ['c', 'e']],
    ['length in an or', { or: [len('name', 'eq', 6), len('code', 'gt', 5)] }, ['d']],
    ['length and a plain condition on the same field', { and: [len('name', 'gt', 5), c('name', 'contains', 'an')] }, ['b', 'd']],
  ],
  'and / or / not': [
    ['and', { and: [c('status', 'eq', 'open'), c('active', 'eq', true)] }, ['a']],
    ['or', { or: [c('status', 'eq', 'closed'), c('qty', 'gt', 10)] }, ['b', 'd']],
    ['not', { not: c('status', 'eq', 'open') }, ['b', 'd', 'e']],
    ['not over a comparison with null matches the null record', { not: c('qty', 'lt', 6) }, ['a', 'c', 'd']],
    [
      'and of or and not',
      { and: [{ or: [c('status', 'eq', 'open'), c('status', 'eq', 'draft')] }, { not: c('qty', 'lt', 6) }] },
      ['a', 'c'],
    ],
    ['or of and', { or: [{ and: [c('active', 'eq', false), c('qty', 'eq', 5)] }, c('name', 'eq', 'Durian')] }, ['b', 'd', 'e']],
    ['not of or', { not: { or: [c('status', 'eq', 'open'), c('status', 'isnull', true)] } }, ['b', 'e']],
    ['empty and matches everything', { and: [] }, ['a', 'b', 'c', 'd', 'e']],
    ['double not', { not: { not: c('code', 'eq', 'B-1') } }, ['b']],
  ],
};

export function defineFilterTests(ctx: TckContext): void {
  describe('filters', () => {
    beforeEach(() => seedItems(ctx.ds));

    for (const [group, cases] of Object.entries(CASES)) {
      describe(group, () => {
        for (const [title, filter, expected] of cases) {
          it(`${title}: ${JSON.stringify(filter)}`, async () => {
            expect(await idsWhere(ctx.ds, filter)).to.deep.equal(expected);
          });
        }
      });
    }

    it('length() counts characters (code points), not bytes or UTF-16 units', async () => {
      // 'Café 😀': 6 characters, 7 UTF-16 units, 10 bytes in UTF-8.
      await ctx.ds.create('tck_item', { id: 'u', name: 'Café 😀', code: 'Ü-9' });
      expect(await idsWhere(ctx.ds, len('name', 'eq', 6))).to.deep.equal(['d', 'u']);
      expect(await idsWhere(ctx.ds, len('code', 'eq', 3))).to.deep.equal(['a', 'b', 'd', 'u']);
      expect(await idsWhere(ctx.ds, len('name', 'gt', 6))).to.not.include('u');
    });

    it('returns every record without a filter', async () => {
      expect((await ctx.ds.find('tck_item', {})).map((r) => r.id).sort()).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
    });
  });
}
