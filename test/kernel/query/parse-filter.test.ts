import { expect } from 'chai';
import { ObjectQLError } from '../../../kernel';
import { parseFilter } from '../../../kernel/query/parse-filter';

function fails(input: unknown, pattern: RegExp, limits?: { maxDepth: number; maxConditions: number }) {
  try {
    parseFilter(input, limits);
  } catch (err) {
    expect(err).to.be.instanceOf(ObjectQLError);
    expect((err as ObjectQLError).code).to.equal('INVALID_REQUEST');
    expect((err as Error).message).to.match(pattern);
    return;
  }
  expect.fail(`expected ${JSON.stringify(input)} to be rejected`);
}

describe('parseFilter', () => {
  it('reads a single condition and every spec operator', () => {
    const ops: Record<string, string> = {
      '=': 'eq',
      '!=': 'ne',
      '>': 'gt',
      '>=': 'ge',
      '<': 'lt',
      '<=': 'le',
      like: 'like',
      startswith: 'startswith',
      endswith: 'endswith',
      contains: 'contains',
    };
    for (const [spec, ast] of Object.entries(ops))
      expect(parseFilter([['a', spec, 'x']])).to.deep.equal({ field: 'a', op: ast, value: 'x' });
    expect(parseFilter(['a', 'in', [1, 2]])).to.deep.equal({ field: 'a', op: 'in', value: [1, 2] });
    expect(parseFilter(['a', 'not in', [1]])).to.deep.equal({ field: 'a', op: 'nin', value: [1] });
    expect(parseFilter(['a', 'between', [1, 2]])).to.deep.equal({ field: 'a', op: 'between', value: [1, 2] });
  });

  it('turns = null and != null into null tests', () => {
    expect(parseFilter([['a', '=', null]])).to.deep.equal({ field: 'a', op: 'isnull', value: true });
    expect(parseFilter([['a', '!=', null]])).to.deep.equal({ field: 'a', op: 'isnull', value: false });
  });

  it('binds and tighter than or, and reads adjacent conditions as and', () => {
    const a = ['a', '=', 1];
    const b = ['b', '=', 2];
    const c = ['c', '=', 3];
    expect(parseFilter([a, 'or', b, 'and', c])).to.deep.equal({
      or: [
        { field: 'a', op: 'eq', value: 1 },
        {
          and: [
            { field: 'b', op: 'eq', value: 2 },
            { field: 'c', op: 'eq', value: 3 },
          ],
        },
      ],
    });
    expect(parseFilter([a, b])).to.deep.equal({
      and: [
        { field: 'a', op: 'eq', value: 1 },
        { field: 'b', op: 'eq', value: 2 },
      ],
    });
    expect(parseFilter([[a, 'or', b], 'and', c])).to.deep.equal({
      and: [
        {
          or: [
            { field: 'a', op: 'eq', value: 1 },
            { field: 'b', op: 'eq', value: 2 },
          ],
        },
        { field: 'c', op: 'eq', value: 3 },
      ],
    });
    expect(parseFilter(['not', [a]])).to.deep.equal({ not: { field: 'a', op: 'eq', value: 1 } });
  });

  it('reads the map form and field references', () => {
    expect(parseFilter({ status: 'open', amount: ['>', 5] })).to.deep.equal({
      and: [
        { field: 'status', op: 'eq', value: 'open' },
        { field: 'amount', op: 'gt', value: 5 },
      ],
    });
    expect(parseFilter([['cost', '>', { $field: 'budget' }]])).to.deep.equal({ field: 'cost', op: 'gt', ref: 'budget' });
  });

  it('rejects what it cannot read, naming the place', () => {
    fails([['a', 'equals', 1]], /Unknown filter operator "equals" at filters\[0\]/);
    fails([['a', 'in', 1]], /'in' on 'a' needs an array/);
    fails([['a', 'between', [1]]], /between.*\[low, high\]/);
    fails([['a', '=', 1], 'and'], /ends with a joiner/);
    fails(['and', ['a', '=', 1]], /Unexpected 'and'/);
    fails([['a', '=', 1], 'x'], /Invalid filter at filters\[1\]/);
    fails('status = 1', /must be an array/);
    fails({ a: ['=', 1, 2] }, /Invalid filter for 'a'/);
  });

  it('bounds nesting depth and the number of conditions', () => {
    let deep: unknown = ['a', '=', 1];
    for (let i = 0; i < 40; i++) deep = [deep];
    fails(deep, /nested deeper than 16 levels/);
    fails(
      Array.from({ length: 5 }, (_, i) => [`f${i}`, '=', i]),
      /more than 4 conditions/,
      { maxDepth: 16, maxConditions: 4 },
    );
  });
});
