/** $select, $orderby, $top, $skip, $count, the assembled find options and the policy on other options. */
import { expect } from 'chai';
import { c, errorOf, parse } from './helpers';

describe('OData query: options', () => {
  describe('the whole query', () => {
    it('gives empty find options and no count without options', () => {
      expect(parse('')).to.deep.equal({ find: {}, count: false });
    });

    it('assembles every option into find options', () => {
      const query = parse(
        '$select=name,qty&$filter=qty gt 1&$search=apple&$orderby=qty desc,name&$top=10&$skip=20&$count=true&$expand=owner',
      );
      expect(query).to.deep.equal({
        find: {
          fields: ['id', 'name', 'qty'],
          filter: {
            and: [
              c('qty', 'gt', 1),
              { or: ['name', 'notes', 'email'].map((f) => c(f, 'contains', 'apple')).concat([c('status', 'contains', 'apple')]) },
            ],
          },
          sort: [
            { field: 'qty', dir: 'desc' },
            { field: 'name', dir: 'asc' },
          ],
          top: 10,
          skip: 20,
          expand: { owner: {} },
        },
        count: true,
        select: ['name', 'qty'],
        expand: ['owner'],
      });
    });

    it('reads percent-encoded values as URLSearchParams decodes them', () => {
      const query = parse('%24filter=name%20eq%20%27a%2Bb%27&%24top=5');
      expect(query.find).to.deep.equal({ filter: c('name', 'eq', 'a+b'), top: 5 });
      // A literal '+' in a query string is a space.
      expect(parse("$filter=name+eq+'a'").find.filter).to.deep.equal(c('name', 'eq', 'a'));
    });
  });

  describe('$select', () => {
    it('fetches the named fields and id, and keeps the names as written for the context URL', () => {
      expect(parse('$select=name')).to.deep.include({ select: ['name'], find: { fields: ['id', 'name'] } });
      expect(parse('$select= name , qty ,name')).to.deep.include({ select: ['name', 'qty'], find: { fields: ['id', 'name', 'qty'] } });
      expect(parse('$select=id,name')).to.deep.include({ select: ['id', 'name'], find: { fields: ['id', 'name'] } });
      expect(parse('$select=owner')).to.deep.include({ select: ['owner'], find: { fields: ['id', 'owner'] } });
    });

    it("reads '*' as every field", () => {
      expect(parse('$select=*')).to.deep.equal({ find: {}, count: false, select: ['*'] });
      expect(parse('$select=name,*')).to.deep.equal({ find: {}, count: false, select: ['name', '*'] });
    });

    it('refuses unknown properties, paths, functions and malformed lists', () => {
      const unknown = errorOf(() => parse('$select=name,nosuch'));
      expect(unknown.message).to.equal("$select: unknown property 'nosuch' on 'item' at position 5");
      expect(unknown.details[0].target).to.equal('nosuch');
      expect(errorOf(() => parse('$select=owner/name')).message).to.equal(
        "$select: navigation paths such as 'owner/name' are not supported at position 0; select the navigation property's fields inside $expand",
      );
      expect(errorOf(() => parse('$select=')).message).to.equal("$select: expected a property or '*', got the end at position 0");
      expect(errorOf(() => parse('$select=name,')).message).to.equal("$select: expected a property or '*', got the end at position 5");
      expect(errorOf(() => parse('$select=name qty')).message).to.equal("$select: expected ',' or the end, got 'qty' at position 5");
      expect(errorOf(() => parse('$select=,name')).message).to.equal("$select: expected a property or '*', got ',' at position 0");
      expect(errorOf(() => parse('$select=Ns.Action')).message).to.equal("$select: unexpected character '.' at position 2");
      expect(errorOf(() => parse('$select=length(name)')).message).to.contain("'length(' is not a property");
      expect(errorOf(() => parse('$select=name&$select=qty')).message).to.equal('$select is given more than once; give it once');
    });
  });

  describe('$orderby', () => {
    it('reads properties with optional asc / desc', () => {
      expect(parse('$orderby=name').find.sort).to.deep.equal([{ field: 'name', dir: 'asc' }]);
      expect(parse('$orderby=name desc').find.sort).to.deep.equal([{ field: 'name', dir: 'desc' }]);
      expect(parse('$orderby=qty desc, name asc,due').find.sort).to.deep.equal([
        { field: 'qty', dir: 'desc' },
        { field: 'name', dir: 'asc' },
        { field: 'due', dir: 'asc' },
      ]);
      expect(parse('$orderby=name DESC').find.sort).to.deep.equal([{ field: 'name', dir: 'desc' }]);
    });

    it('refuses unknown properties, paths, functions and malformed lists', () => {
      const unknown = errorOf(() => parse('$orderby=qty desc,nosuch'));
      expect(unknown.message).to.equal("$orderby: unknown property 'nosuch' on 'item' at position 9");
      expect(unknown.details[0].target).to.equal('nosuch');
      expect(errorOf(() => parse('$orderby=name/x')).message).to.equal(
        "$orderby: 'name' is not a navigation property of 'item', so no path can go through it at position 0",
      );
      expect(errorOf(() => parse('$orderby=length(name)')).message).to.equal(
        "$orderby: ordering by a function ('length(...)') is not supported at position 0; order by properties",
      );
      expect(errorOf(() => parse('$orderby=name up')).message).to.equal(
        "$orderby: expected 'asc', 'desc', ',' or the end after 'name', got 'up' at position 5",
      );
      expect(errorOf(() => parse('$orderby=name desc desc')).message).to.equal(
        "$orderby: expected ',' or the end, got 'desc' at position 10",
      );
      expect(errorOf(() => parse('$orderby=')).message).to.equal('$orderby: expected a property, got the end at position 0');
      expect(errorOf(() => parse('$orderby=name,')).message).to.equal('$orderby: expected a property, got the end at position 5');
    });
  });

  describe('$top, $skip and $count', () => {
    it('reads non-negative integers and true / false', () => {
      expect(parse('$top=0&$skip=0').find).to.deep.equal({ top: 0, skip: 0 });
      expect(parse('$top=100&$skip=123456789').find).to.deep.equal({ top: 100, skip: 123456789 });
      expect(parse('$count=true').count).to.equal(true);
      expect(parse('$count=false').count).to.equal(false);
    });

    it('refuses anything else, naming the option as target', () => {
      for (const [query, message] of [
        ['$top=-1', "$top must be a non-negative integer, got '-1'"],
        ['$top=1.5', "$top must be a non-negative integer, got '1.5'"],
        ['$top=ten', "$top must be a non-negative integer, got 'ten'"],
        ['$top=', "$top must be a non-negative integer, got ''"],
        ['$top=1e2', "$top must be a non-negative integer, got '1e2'"],
        ['$skip=-5', "$skip must be a non-negative integer, got '-5'"],
        ['$skip=99999999999999999999', "$skip must be a non-negative integer, got '99999999999999999999'"],
        ['$count=TRUE', "$count must be true or false, got 'TRUE'"],
        ['$count=1', "$count must be true or false, got '1'"],
        ['$count=', "$count must be true or false, got ''"],
      ]) {
        const error = errorOf(() => parse(query));
        expect(error.message, query).to.equal(message);
        expect(error.details[0].target).to.equal(query.split('=')[0]);
      }
    });

    it('refuses $top above maxTop, naming the limit', () => {
      expect(parse('$top=100').find.top).to.equal(100);
      expect(errorOf(() => parse('$top=101')).message).to.equal('$top may be at most 100, got 101');
      expect(errorOf(() => parse('$top=6', { maxTop: 5 })).message).to.equal('$top may be at most 5, got 6');
    });
  });

  describe('other query options', () => {
    it('ignores custom query options (no $), as OData specifies', () => {
      expect(parse('debug=1&x-trace=abc&@p=1&filter=whatever')).to.deep.equal({ find: {}, count: false });
    });

    it('lets $format, $apply and $compute through for the service', () => {
      expect(parse('$format=json&$top=1').find).to.deep.equal({ top: 1 });
      expect(parse('$apply=groupby((name))&$compute=qty mul 2 as q&$top=1').find).to.deep.equal({ top: 1 });
    });

    it('refuses unknown system query options, naming them and hinting at the case', () => {
      const foo = errorOf(() => parse('$foo=1'));
      expect(foo.message).to.equal(
        '$foo is not a system query option; the options are $filter, $select, $orderby, $top, $skip, $count, $expand, $search, $format, $apply, $compute',
      );
      expect(foo.details[0].target).to.equal('$foo');
      expect(errorOf(() => parse('$Filter=x')).message).to.equal(
        '$Filter is not a system query option (option names are case-sensitive: did you mean $filter?); the options are $filter, $select, $orderby, $top, $skip, $count, $expand, $search, $format, $apply, $compute',
      );
      expect(errorOf(() => parse('$=1')).message).to.contain('$ is not a system query option');
    });

    it('refuses OData options this service does not implement', () => {
      for (const option of ['$skiptoken', '$deltatoken', '$levels', '$index', '$schemaversion', '$id']) {
        expect(errorOf(() => parse(`${option}=x`)).message).to.equal(`${option} is not supported by this service`);
      }
    });

    it('refuses an option given twice', () => {
      expect(errorOf(() => parse('$top=1&$top=1')).message).to.equal('$top is given more than once; give it once');
      expect(errorOf(() => parse('$filter=qty eq 1&$filter=qty eq 2')).details[0].target).to.equal('$filter');
    });
  });
});
