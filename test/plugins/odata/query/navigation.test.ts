/**
 * Navigation in the query options, parsed: paths through to-one navigation properties in $filter
 * and $orderby, lambdas over one-to-many navigation properties and over multiple-valued
 * properties, and $expand of one-to-many navigation properties with $skip and $count.
 */
import { expect } from 'chai';
import type { ObjectDefinition, RequestFilter } from '../../../../kernel';
import type { ODataQueryTarget } from '../../../../plugins/odata/query';
import { navigationLookup } from '../../../../plugins/odata/query/navigation';
import { CATEGORY, ITEM, ORG, OWNER, c, errorOf, parse, ref } from './helpers';

const OBJECTS = new Map([ITEM, OWNER, ORG, CATEGORY].map((o) => [o.name, o]));
const resolve = (name: string) => OBJECTS.get(name);
/** One-to-many navigation properties: item.owner → owner.items, owner.org → org.members. */
const REVERSE: Record<string, Array<{ name: string; target: string }>> = {
  owner: [{ name: 'items', target: 'item' }],
  org: [{ name: 'members', target: 'owner' }],
};
const fieldRule = navigationLookup({ resolve });

function target(object: ObjectDefinition): ODataQueryTarget {
  return {
    object,
    resolve,
    navigation: (of, name) => {
      const reverse = REVERSE[of.name]?.find((r) => r.name === name);
      return reverse ? { name, relation: name, kind: 'reverse', target: resolve(reverse.target)! } : fieldRule(of, name);
    },
  };
}

const filterOn = (object: ObjectDefinition, expression: string, settings = {}): RequestFilter | undefined =>
  parse(`$filter=${encodeURIComponent(expression)}`, settings, target(object)).find.filter;
const errorOn = (object: ObjectDefinition, expression: string, settings = {}) => errorOf(() => filterOn(object, expression, settings));
const any = (relation: string, filter?: RequestFilter): RequestFilter => ({ relation, quantifier: 'any', ...(filter ? { filter } : {}) });
const all = (relation: string, filter: RequestFilter): RequestFilter => ({ relation, quantifier: 'all', filter });

describe('OData query: navigation paths and lambdas', () => {
  describe('paths through to-one navigation properties in $filter', () => {
    const cases: Array<[string, RequestFilter]> = [
      ["owner/name eq 'x'", any('owner', c('name', 'eq', 'x'))],
      ["'x' eq owner/name", any('owner', c('name', 'eq', 'x'))],
      ["owner/org/name eq 'x'", any('owner', any('org', c('name', 'eq', 'x')))],
      ["owner/name in ('a', 'b')", any('owner', c('name', 'in', ['a', 'b']))],
      ['owner/name eq null', any('owner', c('name', 'isnull', true))],
      ["contains(owner/name, 'x')", any('owner', c('name', 'contains', 'x'))],
      ["not startswith(owner/org/name, 'x')", { not: any('owner', any('org', c('name', 'startswith', 'x'))) }],
      ['length(owner/city) gt 3', any('owner', { field: 'city', op: 'gt', value: 3, fn: 'length' })],
      ['owner/city eq owner/name', any('owner', ref('city', 'eq', 'name'))],
      ['category/rank gt 2 and qty gt 1', { and: [any('category', c('rank', 'gt', 2)), c('qty', 'gt', 1)] }],
    ];
    for (const [expression, expected] of cases) {
      it(expression, () => expect(filterOn(ITEM, expression)).to.deep.equal(expected));
    }

    it('refuses unknown segments, plain properties used as navigation, collections and too deep paths, naming them', () => {
      const unknown = errorOn(ITEM, 'owner/nosuch eq 1');
      expect(unknown.message).to.equal("$filter: unknown property 'nosuch' on 'owner' at position 6");
      expect(unknown.details[0].target).to.equal('nosuch');
      expect(errorOn(ITEM, "nosuch/name eq 'x'").message).to.equal("$filter: unknown navigation property 'nosuch' on 'item' at position 0");
      expect(errorOn(ITEM, "name/x eq 'x'").message).to.equal(
        "$filter: 'name' is not a navigation property of 'item', so no path can go through it at position 0",
      );
      expect(errorOn(OWNER, 'items/qty gt 1').message).to.equal(
        "$filter: 'items' is a collection of item records at position 0; use items/any(x: ...) or items/all(x: ...) to test its records",
      );
      expect(errorOn(ITEM, "owner/org/parent/parent/name eq 'x'").message).to.equal(
        "$filter: the path follows more than 3 navigation properties (the service's maxExpandDepth) at position 17",
      );
      expect(errorOn(ITEM, "owner/name eq 'x'", { maxExpandDepth: 0 }).message).to.contain('follows more than 0 navigation properties');
      expect(errorOn(ITEM, 'name eq owner/name').message).to.equal(
        "$filter: 'name' and 'owner/name' belong to different records at position 5; a condition can compare properties of one record only",
      );
      expect(errorOn(ITEM, "owner/name/any(x: x eq 'a')").details[0].target).to.equal('name');
    });
  });

  describe('lambdas over one-to-many navigation properties', () => {
    const cases: Array<[string, RequestFilter]> = [
      ['items/any(i: i/qty gt 5)', any('items', c('qty', 'gt', 5))],
      ["items/all(i: i/status eq 'open')", all('items', c('status', 'eq', 'open'))],
      ['items/any()', any('items')],
      ['not items/any()', { not: any('items') }],
      ['items/any() eq false', { not: any('items') }],
      [
        "items/any(i: i/qty gt 5 and i/category/label eq 'x')",
        any('items', { and: [c('qty', 'gt', 5), any('category', c('label', 'eq', 'x'))] }),
      ],
      [
        "org/name eq 'o' and items/any(i: contains(i/name, 'x'))",
        { and: [any('org', c('name', 'eq', 'o')), any('items', c('name', 'contains', 'x'))] },
      ],
      // Through a to-one navigation property first, and nested.
      ['org/members/any(m: m/city eq null)', any('org', any('members', c('city', 'isnull', true)))],
    ];
    for (const [expression, expected] of cases) {
      it(expression, () => expect(filterOn(OWNER, expression)).to.deep.equal(expected));
    }

    it('nests lambdas, each with its own variable', () => {
      expect(filterOn(ORG, "members/any(m: m/items/all(i: i/name ne 'x'))")).to.deep.equal(
        any('members', all('items', c('name', 'ne', 'x'))),
      );
    });

    it('refuses properties not written through the variable, reused variables and bad forms, naming them', () => {
      expect(errorOn(OWNER, 'items/any(i: qty gt 1)').message).to.equal(
        "$filter: inside a lambda, properties are written through its variable ('i/qty') at position 13; conditions on the outer record go outside the lambda",
      );
      expect(errorOn(ORG, "members/any(m: m/items/any(i: m/name eq 'x'))").message).to.equal(
        "$filter: 'm' is the variable of an enclosing lambda at position 30; a condition inside a lambda can only use its own variable 'i'",
      );
      expect(errorOn(ORG, 'members/any(m: m/items/any(m: m/qty gt 1))').message).to.equal(
        "$filter: the variable 'm' is already used by an enclosing lambda at position 27; give this one another name",
      );
      expect(errorOn(OWNER, "items/any(i: i eq 'x')").message).to.equal(
        "$filter: 'i' stands for a item record: compare one of its properties (i/<property>) at position 13",
      );
      expect(errorOn(OWNER, "org/any(o: o/name eq 'x')").message).to.equal(
        "$filter: 'org' is a single org record, not a collection: compare its properties as org/<property>, without any() at position 0",
      );
      expect(errorOn(OWNER, 'items/all()').message).to.equal('$filter: all() needs a condition: all(x: <condition on x>) at position 6');
      expect(errorOn(OWNER, 'items/any(i: i/nosuch eq 1)').message).to.equal("$filter: unknown property 'nosuch' on 'item' at position 15");
      expect(errorOn(OWNER, 'items/any(i i/qty gt 1)').message).to.equal(
        "$filter: expected ':' after the lambda's variable 'i', got 'i' at position 12",
      );
      expect(errorOn(OWNER, 'nosuch/any()').message).to.equal("$filter: unknown navigation property 'nosuch' on 'owner' at position 0");
      expect(errorOn(OWNER, 'name eq items/any()').message).to.contain(
        'any(...) is a condition at position 14; it cannot be compared or used as a value',
      );
      expect(errorOn(ORG, 'members/any(m: m/items/any())', { maxExpandDepth: 1 }).message).to.contain(
        'follows more than 1 navigation properties',
      );
    });
  });

  describe('lambdas over a multiple-valued property: membership', () => {
    const cases: Array<[string, RequestFilter]> = [
      ["tags/any(t: t eq 'red')", c('tags', 'eq', 'red')],
      ["tags/any(t: t eq 'red' or t eq 'green')", c('tags', 'in', ['red', 'green'])],
      ["tags/any(t: t in ('red', 'green') or t eq 'red')", c('tags', 'in', ['red', 'green'])],
      ["tags/all(t: t ne 'red')", c('tags', 'ne', 'red')],
      ["tags/all(t: t ne 'red' and not (t eq 'green'))", c('tags', 'nin', ['red', 'green'])],
      ["tags/all(t: not (t in ('red', 'green')))", c('tags', 'nin', ['red', 'green'])],
      ['tags/any()', c('tags', 'isnull', false)],
      ["not tags/any(t: t eq 'red')", { not: c('tags', 'eq', 'red') }],
    ];
    for (const [expression, expected] of cases) {
      it(expression, () => expect(filterOn(ITEM, expression)).to.deep.equal(expected));
    }

    it('refuses conditions that are not membership, and single values', () => {
      const other = errorOn(ITEM, "tags/any(t: t gt 'a')");
      expect(other.message).to.equal(
        "$filter: tags/any(...) over a multiple-valued property takes t eq <value> and t in (...) joined with 'or' only at position 5; the values are tested for membership",
      );
      expect(other.details[0].target).to.equal('tags');
      expect(errorOn(ITEM, "tags/all(t: t eq 'red')").message).to.contain(
        'tags/all(...) over a multiple-valued property takes t ne <value>',
      );
      expect(errorOn(ITEM, "tags/any(t: contains(t, 'r'))").message).to.contain('tags/any(...) over a multiple-valued property');
      expect(errorOn(ITEM, 'tags/any(t: t eq 5)').message).to.contain(
        "'tags' is a string property and cannot be compared with the number 5",
      );
      expect(errorOn(ITEM, "tags/any(t: t/x eq 'a')").message).to.contain("'t' stands for one value of 'tags' and has no properties");
      expect(errorOn(ITEM, "name/any(t: t eq 'a')").message).to.equal(
        "$filter: 'name' is a single value, not a collection: any() applies to collection navigation properties and multiple-valued properties at position 0",
      );
    });
  });

  describe('$orderby through to-one navigation properties', () => {
    it('sorts by the related record: the kernel key relation.field', () => {
      expect(parse('$orderby=owner/name desc,qty', {}, target(ITEM)).find.sort).to.deep.equal([
        { field: 'owner.name', dir: 'desc' },
        { field: 'qty', dir: 'asc' },
      ]);
      expect(parse('$orderby=owner/org/name', {}, target(ITEM)).find.sort).to.deep.equal([{ field: 'owner.org.name', dir: 'asc' }]);
    });

    it('refuses collections, unknown properties and too deep paths', () => {
      expect(errorOf(() => parse('$orderby=items/qty', {}, target(OWNER))).message).to.contain("'items' is a collection of item records");
      expect(errorOf(() => parse('$orderby=owner/nosuch', {}, target(ITEM))).message).to.equal(
        "$orderby: unknown property 'nosuch' on 'owner' at position 6",
      );
      expect(errorOf(() => parse('$orderby=owner/org/name', { maxExpandDepth: 1 }, target(ITEM))).message).to.contain(
        'follows more than 1 navigation properties',
      );
    });
  });

  describe('$expand of one-to-many navigation properties', () => {
    const expandOn = (object: ObjectDefinition, value: string) =>
      parse(`$expand=${encodeURIComponent(value)}`, {}, target(object)).find.expand;

    it('reads $filter, $orderby, $top, $skip, $count, $select and $expand inside', () => {
      expect(
        expandOn(
          OWNER,
          "items($filter=qty gt 1 and owner/name eq 'x';$orderby=qty desc;$top=2;$skip=1;$count=true;$select=name;$expand=category)",
        ),
      ).to.deep.equal({
        items: {
          filter: { and: [c('qty', 'gt', 1), any('owner', c('name', 'eq', 'x'))] },
          sort: [{ field: 'qty', dir: 'desc' }],
          top: 2,
          skip: 1,
          count: true,
          fields: ['id', 'name'],
          expand: { category: {} },
        },
      });
      expect(expandOn(ORG, 'members($expand=items($count=false))')).to.deep.equal({ members: { expand: { items: { count: false } } } });
    });

    it('refuses a bad $skip or $count, and both on a to-one navigation property', () => {
      expect(errorOf(() => expandOn(OWNER, 'items($count=yes)')).message).to.equal(
        "$expand: in 'items', $count: must be true or false, got 'yes' at position 13",
      );
      expect(errorOf(() => expandOn(OWNER, 'items($skip=-1)')).message).to.contain('must be a non-negative integer');
      expect(errorOf(() => expandOn(OWNER, 'org($skip=1)')).message).to.contain(
        "$skip is not supported inside $expand of 'org' (a single record)",
      );
    });
  });
});
