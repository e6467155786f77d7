/** $expand: items, nested options, nesting depth and errors. */
import { expect } from 'chai';
import { c, errorOf, parse } from './helpers';

const expandOf = (value: string, settings = {}) => parse(`$expand=${encodeURIComponent(value)}`, settings);

describe('OData query: $expand', () => {
  it('expands comma-separated navigation properties with no options', () => {
    expect(expandOf('owner')).to.deep.equal({ find: { expand: { owner: {} } }, count: false, expand: ['owner'] });
    expect(expandOf(' owner , category ')).to.deep.include({
      expand: ['owner', 'category'],
      find: { expand: { owner: {}, category: {} } },
    });
    expect(expandOf('owner()').find.expand).to.deep.equal({ owner: {} });
  });

  it('reads $select, $filter, $orderby, $top and $expand inside parentheses, separated by semicolons', () => {
    const query = expandOf(
      "owner($select=name,city;$filter=city eq 'Oslo' and not contains(name,'x');$orderby=name desc;$top=5;$expand=org($select=name))",
    );
    expect(query.find.expand).to.deep.equal({
      owner: {
        fields: ['id', 'name', 'city'],
        filter: { and: [c('city', 'eq', 'Oslo'), { not: c('name', 'contains', 'x') }] },
        sort: [{ field: 'name', dir: 'desc' }],
        top: 5,
        expand: { org: { fields: ['id', 'name'] } },
      },
    });
    expect(query.expand).to.deep.equal(['owner']);
  });

  it("keeps ';', ')', '(' and ',' inside string literals, and '' quotes", () => {
    const query = expandOf("owner($filter=name eq 'a;b)c(d,e''f';$select=name),category");
    expect(query.find.expand).to.deep.equal({ owner: { filter: c('name', 'eq', "a;b)c(d,e'f"), fields: ['id', 'name'] }, category: {} });
  });

  it('nests to maxExpandDepth, each level with its own options', () => {
    const query = expandOf('owner($expand=org($expand=parent($select=name;$top=1)))');
    expect(query.find.expand).to.deep.equal({ owner: { expand: { org: { expand: { parent: { fields: ['id', 'name'], top: 1 } } } } } });
    expect(expandOf('owner($expand=org),category($select=label;$orderby=rank)').find.expand).to.deep.equal({
      owner: { expand: { org: {} } },
      category: { fields: ['id', 'label'], sort: [{ field: 'rank', dir: 'asc' }] },
    });
    expect(expandOf('owner($select=*;$filter=org eq null)').find.expand).to.deep.equal({ owner: { filter: c('org', 'isnull', true) } });
  });

  it('refuses nesting deeper than maxExpandDepth with EXPAND_DEPTH_EXCEEDED naming the maximum', () => {
    const deep = errorOf(() => expandOf('owner($expand=org($expand=parent($expand=parent)))'), 'EXPAND_DEPTH_EXCEEDED');
    expect(deep.message).to.equal("$expand: 'owner/org/parent/parent' is nested 4 levels deep; the maximum expand depth is 3");
    expect(deep.status).to.equal(400);
    expect(deep.details).to.deep.equal([{ code: 'EXPAND_DEPTH_EXCEEDED', message: deep.message, target: '$expand' }]);
    expect(errorOf(() => expandOf('owner($expand=org)', { maxExpandDepth: 1 }), 'EXPAND_DEPTH_EXCEEDED').message).to.equal(
      "$expand: 'owner/org' is nested 2 levels deep; the maximum expand depth is 1",
    );
    expect(errorOf(() => expandOf('owner', { maxExpandDepth: 0 }), 'EXPAND_DEPTH_EXCEEDED').message).to.contain(
      'the maximum expand depth is 0',
    );
    expect(expandOf('owner($expand=org)', { maxExpandDepth: 2 }).find.expand).to.deep.equal({ owner: { expand: { org: {} } } });
  });

  it('checks each level against its own object', () => {
    const filter = errorOf(() => expandOf("owner($filter=label eq 'x')"));
    expect(filter.message).to.equal("$expand: in 'owner', $filter: unknown property 'label' on 'owner' at position 14");
    expect(filter.details[0].target).to.equal('label');
    expect(errorOf(() => expandOf('category($select=name)')).message).to.equal(
      "$expand: in 'category', $select: unknown property 'name' on 'category' at position 17",
    );
    expect(errorOf(() => expandOf('owner($orderby=rank)')).message).to.equal(
      "$expand: in 'owner', $orderby: unknown property 'rank' on 'owner' at position 15",
    );
    expect(errorOf(() => expandOf('owner($expand=category)')).message).to.equal(
      "$expand: in 'owner': 'category' is not a navigation property of 'owner' at position 14",
    );
  });

  it('refuses what is not a navigation property: unknown, not a relation, hidden, or with an unknown target', () => {
    for (const name of ['nosuch', 'name', 'ghost', 'constructor']) {
      const error = errorOf(() => expandOf(name));
      expect(error.message).to.equal(`$expand: '${name}' is not a navigation property of 'item' at position 0`);
      expect(error.details[0].target).to.equal(name);
    }
  });

  it('gives positions from the start of the $expand value, nested errors included', () => {
    const cases: Array<[string, string]> = [
      ['owner($filter=name eq )', "$expand: in 'owner', $filter: expected a property or a value after 'eq', got the end at position 22"],
      [
        "category,owner($select=name;$filter=name eq 'a' and)",
        "$expand: in 'owner', $filter: expected a property or a value, got the end at position 51",
      ],
      ['owner($top=-1)', "$expand: in 'owner', $top: must be a non-negative integer, got '-1' at position 11"],
      ['owner($top=101)', "$expand: in 'owner', $top: may be at most 100, got 101 at position 11"],
      ['owner($expand=org($filter=nope eq 1))', "$expand: in 'owner/org', $filter: unknown property 'nope' on 'org' at position 26"],
      ['owner($select=name', "$expand: '(' is not closed at position 5"],
      ["owner($filter=name eq 'a)", '$expand: unterminated string literal at position 22'],
      ['owner,', '$expand: expected a navigation property, got the end at position 6'],
      ['', '$expand: expected a navigation property, got the end at position 0'],
      [',owner', "$expand: expected a navigation property, got ',' at position 0"],
      ['owner category', "$expand: expected ',' or '(' after 'owner', got 'c' at position 6"],
      ['owner,owner', "$expand: 'owner' is expanded twice at position 6; expand it once"],
      ['*', "$expand: '*' is not supported at position 0; name the navigation properties to expand"],
      [
        'owner/$ref',
        "$expand: paths such as 'owner/…' ($ref, $count, casts, deeper properties) are not supported at position 0; nest $expand inside 'owner(…)'",
      ],
      [
        'owner/org',
        "$expand: paths such as 'owner/…' ($ref, $count, casts, deeper properties) are not supported at position 0; nest $expand inside 'owner(…)'",
      ],
      [
        'owner($skip=1)',
        "$expand: in 'owner': $skip is not supported inside $expand of 'owner' (a single record) at position 6; the options there are $select, $filter, $orderby, $top and $expand, and $skip and $count on one-to-many navigation properties",
      ],
      [
        'owner($count=true)',
        "$expand: in 'owner': $count is not supported inside $expand of 'owner' (a single record) at position 6; the options there are $select, $filter, $orderby, $top and $expand, and $skip and $count on one-to-many navigation properties",
      ],
      [
        'owner($search=x)',
        "$expand: in 'owner': $search is not supported inside $expand at position 6; the options there are $select, $filter, $orderby, $top and $expand",
      ],
      [
        'owner($levels=2)',
        "$expand: in 'owner': $levels is not supported inside $expand at position 6; the options there are $select, $filter, $orderby, $top and $expand",
      ],
      [
        'owner($foo=1)',
        "$expand: in 'owner': unknown option '$foo' at position 6; the options inside $expand are $select, $filter, $orderby, $top and $expand",
      ],
      [
        'owner(select=name)',
        "$expand: in 'owner': unknown option 'select' at position 6; the options inside $expand are $select, $filter, $orderby, $top and $expand",
      ],
      ['owner($select)', "$expand: in 'owner': expected '$option=value', got '$select' at position 6"],
      ['owner($top=1;$top=2)', "$expand: in 'owner': $top is given twice at position 13"],
      ['owner($top=1;)', "$expand: in 'owner': empty option between ';' at position 13"],
      ['owner($top=1;;$select=name)', "$expand: in 'owner': empty option between ';' at position 13"],
    ];
    for (const [value, message] of cases) {
      const error = errorOf(() => expandOf(value));
      expect(error.message, value).to.equal(message);
    }
  });

  it("gives '$expand' as the target of nested syntax errors", () => {
    expect(errorOf(() => expandOf('owner($filter=name eq )')).details[0].target).to.equal('$expand');
    expect(errorOf(() => expandOf('owner($top=x)')).details[0].target).to.equal('$expand');
  });
});
