/**
 * Numeric literal suffixes of OData V2 (D, F, M, L in either case), which the SAP Cloud SDK's typed
 * filter still sends on Edm.Double (`price gt 1000D`): read as the number, while every other
 * literal reads as before.
 */
import { expect } from 'chai';
import { c, filterError, filterOf } from './helpers';

describe('OData query: numeric literal suffixes', () => {
  const cases: Array<[string, number]> = [
    ['qty gt 1000D', 1000],
    ['qty gt 1000d', 1000],
    ['qty gt 10.5M', 10.5],
    ['qty gt 10m', 10],
    ['qty gt 1000L', 1000],
    ['qty gt 1000l', 1000],
    ['qty gt 1.5F', 1.5],
    ['qty gt 1.5f', 1.5],
    ['qty gt -2.5d', -2.5],
    ['qty gt 1e3D', 1000],
  ];
  for (const [expression, value] of cases) {
    it(expression, () => expect(filterOf(expression)).to.deep.equal(c('qty', 'gt', value)));
  }

  it('keeps every other literal as it was', () => {
    expect(filterOf('qty gt 1e3')).to.deep.equal(c('qty', 'gt', 1000));
    expect(filterOf('due eq 2024-01-31')).to.deep.equal(c('due', 'eq', '2024-01-31'));
    expect(filterOf('at lt 2024-01-31T10:00:00Z')).to.deep.equal(c('at', 'lt', '2024-01-31T10:00:00Z'));
    expect(filterOf('opens eq 10:30')).to.deep.equal(c('opens', 'eq', '10:30'));
    expect(filterOf("name eq '1000D'")).to.deep.equal(c('name', 'eq', '1000D'));
    expect(filterOf('name eq 01234567-89ab-cdef-0123-456789abcdef')).to.deep.equal(c('name', 'eq', '01234567-89ab-cdef-0123-456789abcdef'));
  });

  it('refuses what is still not a number', () => {
    for (const bad of ['qty gt 10X', 'qty gt 10DD', 'qty gt 10D5', 'qty gt 1.D', 'qty gt D10']) {
      const { message } = filterError(bad);
      expect(message, bad).to.match(/invalid literal|unknown property|expected/);
    }
  });
});
