/** $search: words, phrases, AND / OR / NOT, parentheses, over the object's text properties. */
import { expect } from 'chai';
import type { Filter } from '../../../../kernel';
import { ObjectQLError } from '../../../../kernel';
import { searchableFields } from '../../../../plugins/odata/query';
import { field, objectDef } from '../../../drivers/sql/objects';
import { ITEM, c, errorOf, parse } from './helpers';

const FIELDS = ['name', 'notes', 'email', 'status'];
const term = (text: string): Filter => ({ or: FIELDS.map((f) => c(f, 'contains', text)) });
const searchOf = (value: string, settings = {}) => parse(`$search=${encodeURIComponent(value)}`, settings).find.filter;

describe('OData query: $search', () => {
  it('searches the single-valued, non-system text properties (text, textarea, email, url, phone, select)', () => {
    expect(searchableFields(ITEM)).to.deep.equal(FIELDS);
    const all = objectDef('all', [
      field('a', 'text'),
      field('b', 'url'),
      field('p', 'phone'),
      field('n', 'number'),
      field('l', 'lookup', { reference_to: 'x' }),
      field('j', 'json'),
      field('m', 'text', { multiple: true }),
    ]);
    expect(searchableFields(all)).to.deep.equal(['a', 'b', 'p']);
  });

  it('makes each term an OR of contains (case-insensitive in the kernel) over those properties', () => {
    expect(searchOf('apple')).to.deep.equal(term('apple'));
    expect(searchOf('  Apple  ')).to.deep.equal(term('Apple'));
  });

  it('ands terms side by side, ors them with OR, negates with NOT, and reads AND explicitly', () => {
    expect(searchOf('apple pie')).to.deep.equal({ and: [term('apple'), term('pie')] });
    expect(searchOf('apple AND pie')).to.deep.equal({ and: [term('apple'), term('pie')] });
    expect(searchOf('apple OR pie')).to.deep.equal({ or: [term('apple'), term('pie')] });
    expect(searchOf('NOT apple')).to.deep.equal({ not: term('apple') });
    expect(searchOf('apple NOT pie')).to.deep.equal({ and: [term('apple'), { not: term('pie') }] });
    // NOT, then AND, then OR.
    expect(searchOf('a b OR c')).to.deep.equal({ or: [{ and: [term('a'), term('b')] }, term('c')] });
    expect(searchOf('a OR b c')).to.deep.equal({ or: [term('a'), { and: [term('b'), term('c')] }] });
    expect(searchOf('a OR b OR c')).to.deep.equal({ or: [term('a'), term('b'), term('c')] });
    expect(searchOf('(a OR b) c')).to.deep.equal({ and: [{ or: [term('a'), term('b')] }, term('c')] });
    expect(searchOf('NOT (a OR b)')).to.deep.equal({ not: { or: [term('a'), term('b')] } });
    // Operators are upper case: lower-case words are terms.
    expect(searchOf('apple or pie')).to.deep.equal({ and: [term('apple'), term('or'), term('pie')] });
  });

  it('reads quoted phrases as one term, with \\" and \\\\ inside', () => {
    expect(searchOf('"apple pie"')).to.deep.equal(term('apple pie'));
    expect(searchOf('"apple pie" OR banana')).to.deep.equal({ or: [term('apple pie'), term('banana')] });
    expect(searchOf('"say \\"hi\\"" "a\\\\b"')).to.deep.equal({ and: [term('say "hi"'), term('a\\b')] });
    expect(searchOf('"OR" "NOT"')).to.deep.equal({ and: [term('OR'), term('NOT')] });
    expect(searchOf("100% o'neil_x")).to.deep.equal({ and: [term('100%'), term("o'neil_x")] });
  });

  it('is and-ed with $filter', () => {
    expect(parse(`$filter=qty gt 1&$search=apple`).find.filter).to.deep.equal({ and: [c('qty', 'gt', 1), term('apple')] });
  });

  it('matches nothing on an object without text properties', () => {
    const numbers = objectDef('numbers', [field('n', 'number')]);
    expect(parse('$search=x', {}, { object: numbers, resolve: () => undefined }).find.filter).to.deep.equal({ or: [] });
    expect(parse('$search=NOT x', {}, { object: numbers, resolve: () => undefined }).find.filter).to.deep.equal({ not: { or: [] } });
  });

  it('leaves out properties the caller may not read (absent from the target object)', () => {
    const { notes, email, ...visible } = ITEM.fields;
    expect(notes && email).not.to.equal(undefined);
    const view = { ...ITEM, fields: visible };
    expect(parse('$search=x', {}, { object: view, resolve: () => undefined }).find.filter).to.deep.equal({
      or: [c('name', 'contains', 'x'), c('status', 'contains', 'x')],
    });
  });

  it('is refused when enableSearch is off', () => {
    const error = errorOf(() => parse('$search=apple', { enableSearch: false }));
    expect(error).to.be.instanceOf(ObjectQLError);
    expect(error.message).to.equal('$search is disabled on this service');
    expect(error.details[0].target).to.equal('$search');
  });

  it('gives syntax errors with positions', () => {
    const cases: Array<[string, string]> = [
      ['', '$search: expected a word or a "phrase", got nothing at position 0'],
      ['"apple', '$search: unterminated phrase at position 0; close it with ", and write a " inside it as \\"'],
      ['""', '$search: empty phrase at position 0'],
      ['a OR', '$search: expected a word or a "phrase", got the end at position 4'],
      ['a AND OR b', '$search: expected a word or a "phrase", got \'OR\' at position 6'],
      ['NOT', '$search: expected a word or a "phrase", got the end at position 3'],
      ['(a b', "$search: expected ')' to close the '(' at position 0, got the end at position 4"],
      ['a)', "$search: unexpected ')' at position 1"],
      ['()', '$search: expected a word or a "phrase", got \')\' at position 1'],
    ];
    for (const [value, message] of cases) expect(errorOf(() => searchOf(value)).message, value).to.equal(message);
  });

  it('limits the conditions a search makes and its nesting', () => {
    // 4 properties per term: 50 terms make 200 conditions.
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    expect((searchOf(words(50)) as { and: Filter[] }).and).to.have.lengthOf(50);
    expect(errorOf(() => searchOf(words(51))).message).to.equal(
      '$search: too many terms at position 190; each term is searched in 4 properties, and a search may make at most 200 conditions',
    );
    expect(errorOf(() => searchOf(`${'('.repeat(17)}a${')'.repeat(17)}`)).message).to.equal(
      '$search: the search is nested deeper than 16 levels at position 16',
    );
    expect(errorOf(() => searchOf(`${'NOT '.repeat(3)}a`, { maxFilterDepth: 2 })).message).to.equal(
      '$search: the search is nested deeper than 2 levels at position 8',
    );
  });
});
