/** $filter → the kernel's filter AST: grammar, precedence, literals, functions and errors with positions. */
import { expect } from 'chai';
import type { Filter } from '../../../../kernel';
import { parseFilterExpression } from '../../../../plugins/odata/query';
import { ITEM, c, filterError, filterOf, parse, ref, errorOf } from './helpers';

const NOTHING: Filter = { or: [] };

describe('OData query: $filter', () => {
  describe('comparisons', () => {
    const cases: Array<[string, Filter]> = [
      ["name eq 'Apple'", c('name', 'eq', 'Apple')],
      ["name ne 'Apple'", c('name', 'ne', 'Apple')],
      ['qty gt 5', c('qty', 'gt', 5)],
      ['qty ge 5', c('qty', 'ge', 5)],
      ['qty lt 5', c('qty', 'lt', 5)],
      ['qty le 5', c('qty', 'le', 5)],
      // A value on the left: the comparison is turned around.
      ['5 lt qty', c('qty', 'gt', 5)],
      ['5 le qty', c('qty', 'ge', 5)],
      ['5 gt qty', c('qty', 'lt', 5)],
      ['5 ge qty', c('qty', 'le', 5)],
      ["'x' eq name", c('name', 'eq', 'x')],
      ["'x' ne name", c('name', 'ne', 'x')],
      // Whitespace is free around tokens.
      ["   name    eq\t'a'  ", c('name', 'eq', 'a')],
      ["(name eq 'a')", c('name', 'eq', 'a')],
      ["((((name eq 'a'))))", c('name', 'eq', 'a')],
    ];
    for (const [expression, expected] of cases) {
      it(expression, () => expect(filterOf(expression)).to.deep.equal(expected));
    }
  });

  describe('and, or, not: precedence and parentheses', () => {
    const a = c('name', 'eq', 'a');
    const b = c('qty', 'gt', 1);
    const d = c('price', 'lt', 2);
    const e = c('status', 'eq', 'open');
    const cases: Array<[string, Filter]> = [
      ["name eq 'a' and qty gt 1", { and: [a, b] }],
      ["name eq 'a' or qty gt 1", { or: [a, b] }],
      // and binds tighter than or, on either side.
      ["name eq 'a' or qty gt 1 and price lt 2", { or: [a, { and: [b, d] }] }],
      ["name eq 'a' and qty gt 1 or price lt 2", { or: [{ and: [a, b] }, d] }],
      ["name eq 'a' and qty gt 1 or price lt 2 and status eq 'open'", { or: [{ and: [a, b] }, { and: [d, e] }] }],
      // Parentheses override it.
      ["(name eq 'a' or qty gt 1) and price lt 2", { and: [{ or: [a, b] }, d] }],
      ["name eq 'a' and (qty gt 1 or price lt 2)", { and: [a, { or: [b, d] }] }],
      ["((name eq 'a' or qty gt 1) and (price lt 2 or status eq 'open'))", { and: [{ or: [a, b] }, { or: [d, e] }] }],
      // Chains stay flat.
      ["name eq 'a' and qty gt 1 and price lt 2 and status eq 'open'", { and: [a, b, d, e] }],
      ["name eq 'a' or qty gt 1 or price lt 2", { or: [a, b, d] }],
      // not binds tightest, and takes the comparison after it.
      ["not name eq 'a'", { not: a }],
      ["not name eq 'a' and qty gt 1", { and: [{ not: a }, b] }],
      ["not (name eq 'a' and qty gt 1)", { not: { and: [a, b] } }],
      ["not (name eq 'a') or qty gt 1", { or: [{ not: a }, b] }],
      ["not not name eq 'a'", { not: { not: a } }],
      ["qty gt 1 and not (name eq 'a' or price lt 2)", { and: [b, { not: { or: [a, d] } }] }],
    ];
    for (const [expression, expected] of cases) {
      it(expression, () => expect(filterOf(expression)).to.deep.equal(expected));
    }

    it('reads a boolean property alone as a condition, and true / false as constants', () => {
      expect(filterOf('active')).to.deep.equal(c('active', 'eq', true));
      expect(filterOf('not active')).to.deep.equal({ not: c('active', 'eq', true) });
      expect(filterOf("active and name eq 'a'")).to.deep.equal({ and: [c('active', 'eq', true), c('name', 'eq', 'a')] });
      expect(filterOf('(active)')).to.deep.equal(c('active', 'eq', true));
      expect(filterOf('true')).to.deep.equal({ and: [] });
      expect(filterOf('false')).to.deep.equal(NOTHING);
      expect(filterOf('active eq false')).to.deep.equal(c('active', 'eq', false));
    });
  });

  describe('literals', () => {
    it('reads strings, a quote inside written twice', () => {
      expect(filterOf("name eq 'O''Neil'")).to.deep.equal(c('name', 'eq', "O'Neil"));
      expect(filterOf("name eq ''''")).to.deep.equal(c('name', 'eq', "'"));
      expect(filterOf("name eq ''")).to.deep.equal(c('name', 'eq', ''));
      expect(filterOf("name eq 'a and b or not (c)'")).to.deep.equal(c('name', 'eq', 'a and b or not (c)'));
      expect(filterOf('name eq \'Ünïcødé 😀, 100% _x_ \\ "q"\'')).to.deep.equal(c('name', 'eq', 'Ünïcødé 😀, 100% _x_ \\ "q"'));
    });

    it('reads integers, negative numbers, decimals and exponents', () => {
      expect(filterOf('qty eq 0')).to.deep.equal(c('qty', 'eq', 0));
      expect(filterOf('qty eq 42')).to.deep.equal(c('qty', 'eq', 42));
      expect(filterOf('qty eq -42')).to.deep.equal(c('qty', 'eq', -42));
      expect(filterOf('qty eq +42')).to.deep.equal(c('qty', 'eq', 42));
      expect(filterOf('price eq 2.25')).to.deep.equal(c('price', 'eq', 2.25));
      expect(filterOf('price gt -0.5')).to.deep.equal(c('price', 'gt', -0.5));
      expect(filterOf('price lt 1.5e3')).to.deep.equal(c('price', 'lt', 1500));
      expect(filterOf('price lt 2E-2')).to.deep.equal(c('price', 'lt', 0.02));
      expect(filterOf('seq eq 7')).to.deep.equal(c('seq', 'eq', 7));
    });

    it('reads true, false and null', () => {
      expect(filterOf('active eq true')).to.deep.equal(c('active', 'eq', true));
      expect(filterOf('active ne false')).to.deep.equal(c('active', 'ne', false));
      expect(filterOf('qty eq null')).to.deep.equal(c('qty', 'isnull', true));
      expect(filterOf('qty ne null')).to.deep.equal(c('qty', 'isnull', false));
      expect(filterOf('null eq qty')).to.deep.equal(c('qty', 'isnull', true));
      expect(filterOf('null ne name')).to.deep.equal(c('name', 'isnull', false));
      expect(filterOf('meta eq null')).to.deep.equal(c('meta', 'isnull', true));
    });

    it('reads dates, date-times with a zone and times of day', () => {
      expect(filterOf('due eq 2024-01-31')).to.deep.equal(c('due', 'eq', '2024-01-31'));
      expect(filterOf('due ge 2024-02-29')).to.deep.equal(c('due', 'ge', '2024-02-29'));
      expect(filterOf('at lt 2024-01-31T10:00:00Z')).to.deep.equal(c('at', 'lt', '2024-01-31T10:00:00Z'));
      expect(filterOf('at lt 2024-01-31T10:00Z')).to.deep.equal(c('at', 'lt', '2024-01-31T10:00Z'));
      expect(filterOf('at gt 2024-01-31T10:00:00.123+02:00')).to.deep.equal(c('at', 'gt', '2024-01-31T10:00:00.123+02:00'));
      expect(filterOf('at gt 2024-01-31T10:00:00-05:30')).to.deep.equal(c('at', 'gt', '2024-01-31T10:00:00-05:30'));
      // A date against a date-time property: midnight UTC (the engine's reading).
      expect(filterOf('at ge 2024-01-31')).to.deep.equal(c('at', 'ge', '2024-01-31'));
      expect(filterOf('opens lt 09:30')).to.deep.equal(c('opens', 'lt', '09:30'));
      expect(filterOf('opens eq 09:30:15.5')).to.deep.equal(c('opens', 'eq', '09:30:15.5'));
    });

    it('reads a GUID as a string', () => {
      expect(filterOf('id eq 01234567-89ab-cdef-0123-456789ABCDEF')).to.deep.equal(c('id', 'eq', '01234567-89ab-cdef-0123-456789ABCDEF'));
      expect(filterOf('owner eq deadbeef-0000-4000-8000-000000000000')).to.deep.equal(
        c('owner', 'eq', 'deadbeef-0000-4000-8000-000000000000'),
      );
    });

    it("checks each literal against the property's type", () => {
      const cases: Array<[string, string, number]> = [
        ["qty eq '5'", "'qty' is a number property and cannot be compared with the string '5'", 7],
        ['name eq 5', "'name' is a string property and cannot be compared with the number 5", 8],
        ["active eq 'true'", "'active' is a boolean property and cannot be compared with the string 'true'", 10],
        ['active eq 1', "'active' is a boolean property and cannot be compared with the number 1", 10],
        ["due eq '2024-01-31'", "'due' is a date property and cannot be compared with the string '2024-01-31'", 7],
        ['due eq 2024-01-31T10:00:00Z', "'due' is a date property and cannot be compared with the date-time 2024-01-31T10:00:00Z", 7],
        ['opens eq 2024-01-31', "'opens' is a time of day property and cannot be compared with the date 2024-01-31", 9],
        ['status eq true', "'status' is a string property and cannot be compared with the boolean true", 10],
        ["status in ('open', 3)", "'status' is a string property and cannot be compared with the number 3", 19],
      ];
      for (const [expression, problem, pos] of cases) {
        const error = filterError(expression);
        expect(error.message, expression).to.equal(`$filter: ${problem} at position ${pos}`);
        expect(error.target, expression).to.equal(expression.split(' ')[0]);
      }
    });
  });

  describe('in', () => {
    it('makes a membership test of a list of values', () => {
      expect(filterOf("status in ('open','closed')")).to.deep.equal(c('status', 'in', ['open', 'closed']));
      expect(filterOf("status in ( 'open' , 'closed' )")).to.deep.equal(c('status', 'in', ['open', 'closed']));
      expect(filterOf("status in ('open')")).to.deep.equal(c('status', 'in', ['open']));
      expect(filterOf('qty in (1, 2, 2, -3.5)')).to.deep.equal(c('qty', 'in', [1, 2, -3.5]));
      expect(filterOf("name in ('a') and qty in (1)")).to.deep.equal({ and: [c('name', 'in', ['a']), c('qty', 'in', [1])] });
      expect(filterOf("not status in ('open')")).to.deep.equal({ not: c('status', 'in', ['open']) });
    });

    it('turns a null in the list into a null test', () => {
      expect(filterOf("status in ('open', null)")).to.deep.equal({ or: [c('status', 'in', ['open']), c('status', 'isnull', true)] });
      expect(filterOf('status in (null)')).to.deep.equal(c('status', 'isnull', true));
    });

    it('refuses an empty list, properties in the list and a value on the left', () => {
      expect(filterError('status in ()').message).to.equal("$filter: expected a value in the list after 'in', got ')' at position 11");
      expect(filterError('qty in (target)').message).to.equal(
        "$filter: expected a value in the list after 'in', got 'target' at position 8",
      );
      expect(filterError("status in 'open'").message).to.equal(
        "$filter: expected '(' and a list of values after 'in', got ''open'' at position 10",
      );
      expect(filterError("'a' in ('a')").message).to.equal("$filter: 'in' needs a property on its left, not the string 'a' at position 4");
      expect(filterError("status in ('open'").message).to.equal(
        "$filter: expected ',' or ')' in the list of values, got the end at position 17",
      );
    });
  });

  describe('comparing two properties', () => {
    it('makes a field reference', () => {
      expect(filterOf('qty gt target')).to.deep.equal(ref('qty', 'gt', 'target'));
      expect(filterOf('qty eq target')).to.deep.equal(ref('qty', 'eq', 'target'));
      expect(filterOf('target le qty')).to.deep.equal(ref('target', 'le', 'qty'));
      expect(filterOf('contains(name, email)')).to.deep.equal(ref('name', 'contains', 'email'));
      expect(filterOf('startswith(name,notes)')).to.deep.equal(ref('name', 'startswith', 'notes'));
      expect(filterOf('endswith(name, notes) eq false')).to.deep.equal({ not: ref('name', 'endswith', 'notes') });
    });

    it('refuses function results on either side', () => {
      expect(filterError('length(name) eq length(notes)').message).to.equal(
        '$filter: cannot compare length(name) with length(notes): a function result can only be compared with a value at position 13',
      );
      expect(filterError('length(name) gt qty').message).to.contain('cannot compare length(name) with');
      expect(filterError('contains(tolower(name), notes)').message).to.contain('compares two properties only without functions');
    });
  });

  describe('functions', () => {
    it('maps contains, startswith and endswith to the kernel operators of the same name', () => {
      expect(filterOf("contains(name,'pp')")).to.deep.equal(c('name', 'contains', 'pp'));
      expect(filterOf("startswith(name, 'Ap')")).to.deep.equal(c('name', 'startswith', 'Ap'));
      expect(filterOf("endswith( name , 'le' )")).to.deep.equal(c('name', 'endswith', 'le'));
      expect(filterOf("contains(name,'100% _x_')")).to.deep.equal(c('name', 'contains', '100% _x_'));
      expect(filterOf("contains(status,'op')")).to.deep.equal(c('status', 'contains', 'op'));
    });

    it('takes an optional comparison with true or false after them', () => {
      const hit = c('name', 'contains', 'a');
      expect(filterOf("contains(name,'a') eq true")).to.deep.equal(hit);
      expect(filterOf("contains(name,'a') ne false")).to.deep.equal(hit);
      expect(filterOf("contains(name,'a') eq false")).to.deep.equal({ not: hit });
      expect(filterOf("contains(name,'a') ne true")).to.deep.equal({ not: hit });
      expect(filterOf("not contains(name,'a')")).to.deep.equal({ not: hit });
      expect(filterOf("contains(name,'a') and startswith(notes,'b') or endswith(email,'.org')")).to.deep.equal({
        or: [{ and: [hit, c('notes', 'startswith', 'b')] }, c('email', 'endswith', '.org')],
      });
      expect(filterError("contains(name,'a') eq 1").message).to.equal(
        '$filter: contains() can only be compared with eq or ne and true or false at position 19',
      );
      expect(filterError("contains(name,'a') gt true").message).to.contain('contains() can only be compared with eq or ne');
    });

    it('maps length(p) compared with a number to a condition with fn: length', () => {
      const len = (op: string, value: number): Filter => ({ field: 'name', op, value, fn: 'length' }) as Filter;
      for (const op of ['eq', 'ne', 'gt', 'ge', 'lt', 'le']) expect(filterOf(`length(name) ${op} 5`)).to.deep.equal(len(op, 5));
      expect(filterOf('3 lt length(name)')).to.deep.equal(len('gt', 3));
      expect(filterOf('length(name) gt 2.5')).to.deep.equal(len('gt', 2.5));
      expect(filterOf('length(name) in (1, 3)')).to.deep.equal({ or: [len('eq', 1), len('eq', 3)] });
      expect(filterOf('length(name) in (4)')).to.deep.equal(len('eq', 4));
      expect(filterOf('length(status) eq 4')).to.deep.equal({ field: 'status', op: 'eq', value: 4, fn: 'length' });
      expect(filterOf('not length(name) lt 4')).to.deep.equal({ not: len('lt', 4) });
    });

    it('refuses length() of a non-text property, with other values than numbers, and with the wrong arity', () => {
      expect(filterError('length(qty) gt 1')).to.deep.equal({
        message: "$filter: length() applies to text properties at position 7; 'qty' is not one",
        target: 'qty',
      });
      expect(filterError("length(name) eq '5'").message).to.equal(
        "$filter: length(name) must be compared with a number, not the string '5' at position 16",
      );
      expect(filterError('length(name) eq null').message).to.equal(
        '$filter: length(name) must be compared with a number, not null at position 16',
      );
      expect(filterError('length(name, notes) eq 1').message).to.equal('$filter: length() takes 1 argument, got 2 at position 0');
      expect(filterError('length() eq 1').message).to.equal('$filter: length() takes 1 argument, got 0 at position 0');
      expect(filterError("length('abc') eq 3").message).to.equal(
        "$filter: the argument of length() must be a property, not the string 'abc' at position 7",
      );
      expect(filterError('length(tolower(name)) eq 3').message).to.equal(
        '$filter: the argument of length() must be a property, not tolower(name) at position 15',
      );
    });

    it('reads tolower / toupper compared with eq or ne as a case-insensitive match, exact when the value is in that case', () => {
      expect(filterOf("tolower(name) eq 'apple'")).to.deep.equal(c('name', 'like', 'apple'));
      expect(filterOf("toupper(name) eq 'APPLE'")).to.deep.equal(c('name', 'like', 'APPLE'));
      expect(filterOf("'apple' eq tolower(name)")).to.deep.equal(c('name', 'like', 'apple'));
      expect(filterOf("tolower(name) ne 'apple'")).to.deep.equal({ not: c('name', 'like', 'apple') });
      // like's wildcards are escaped: the value matches literally.
      expect(filterOf("tolower(name) eq '100%_a\\b'")).to.deep.equal(c('name', 'like', '100\\%\\_a\\\\b'));
      // tolower(x) is never 'Apple': nothing matches (and everything differs).
      expect(filterOf("tolower(name) eq 'Apple'")).to.deep.equal(NOTHING);
      expect(filterOf("tolower(name) ne 'Apple'")).to.deep.equal({ not: NOTHING });
      expect(filterOf("toupper(name) eq 'apple'")).to.deep.equal(NOTHING);
      expect(filterOf("tolower(name) in ('a', 'B')")).to.deep.equal({ or: [c('name', 'like', 'a'), NOTHING] });
    });

    it('reads tolower / toupper inside contains, startswith and endswith', () => {
      expect(filterOf("contains(tolower(name),'app')")).to.deep.equal(c('name', 'contains', 'app'));
      expect(filterOf("startswith(toupper(name),'AP')")).to.deep.equal(c('name', 'startswith', 'AP'));
      expect(filterOf("endswith(tolower(name),'LE')")).to.deep.equal(NOTHING);
    });

    it('refuses tolower / toupper with other comparisons, other values and non-text properties', () => {
      expect(filterError("tolower(name) gt 'a'").message).to.equal(
        '$filter: tolower(name) can only be compared with eq or ne, or used in contains, startswith and endswith at position 14',
      );
      expect(filterError('toupper(name) eq 1').message).to.equal(
        '$filter: toupper(name) must be compared with a string, not the number 1 at position 17',
      );
      expect(filterError("tolower(qty) eq 'a'").target).to.equal('qty');
    });

    it('checks the arguments of contains, startswith and endswith', () => {
      expect(filterError('contains(name)').message).to.equal('$filter: contains() takes 2 arguments, got 1 at position 0');
      expect(filterError("contains(name, 'a', 'b')").message).to.equal('$filter: contains() takes 2 arguments, got 3 at position 0');
      expect(filterError("contains('abc', name)").message).to.equal(
        "$filter: the first argument of contains() must be a property (or tolower/toupper of one), not the string 'abc' at position 9",
      );
      expect(filterError('contains(name, 5)').message).to.equal(
        '$filter: the second argument of contains() must be a string or a property, not the number 5 at position 15',
      );
      expect(filterError('startswith(name, null)').message).to.contain(
        'the second argument of startswith() must be a string or a property, not null',
      );
      expect(filterError("contains(length(name), '1')").message).to.contain('the first argument of contains() must be a property');
      expect(filterError("contains(name 'a')").message).to.equal(
        "$filter: expected ',' or ')' in the arguments of contains(), got ''a'' at position 14",
      );
    });

    it('refuses other functions, naming them and the supported ones', () => {
      for (const fn of ['year', 'indexof', 'substring', 'concat', 'trim', 'now', 'round', 'cast', 'matchesPattern']) {
        expect(filterError(`${fn}(due) eq 1`).message).to.equal(
          `$filter: function '${fn}' is not supported at position 0; the functions are contains, startswith, endswith, length, tolower and toupper`,
        );
      }
      expect(filterError("contains(name,'a') eq contains(name,'b')").message).to.contain(
        'contains() can only be compared with eq or ne and true or false',
      );
      expect(filterError("qty eq contains(name,'b')").message).to.equal(
        '$filter: contains() is a condition and cannot be compared with a value other than true or false at position 7',
      );
    });
  });

  describe('properties', () => {
    it('refuses an unknown property, naming it as the target', () => {
      expect(filterError('nosuch eq 1')).to.deep.equal({
        message: "$filter: unknown property 'nosuch' on 'item' at position 0",
        target: 'nosuch',
      });
      expect(filterError("name eq 'a' and constructor eq 1")).to.deep.equal({
        message: "$filter: unknown property 'constructor' on 'item' at position 16",
        target: 'constructor',
      });
      expect(filterError('__proto__ eq 1').target).to.equal('__proto__');
      expect(filterError('qty gt nosuch').message).to.equal("$filter: unknown property 'nosuch' on 'item' at position 7");
    });

    it('reads a property the caller may not read (absent from the target object) exactly as an unknown one', () => {
      const { qty, ...visible } = ITEM.fields;
      expect(qty).not.to.equal(undefined);
      const view = { ...ITEM, fields: visible };
      const hidden = errorOf(() => parse('$filter=qty gt 1', {}, { object: view, resolve: () => undefined }));
      const unknown = errorOf(() => parse('$filter=qtx gt 1', {}, { object: view, resolve: () => undefined }));
      expect(hidden.message.replace('qty', 'NAME')).to.equal(unknown.message.replace('qtx', 'NAME'));
      expect(hidden.details[0].target).to.equal('qty');
    });

    it('refuses navigation paths and lambdas where no navigation lookup is given', () => {
      const bare = (expression: string) =>
        errorOf(() =>
          parseFilterExpression({ text: expression, where: '$filter', target: '$filter' }, ITEM, { maxDepth: 16, maxConditions: 200 }),
        ).message;
      expect(bare("owner/name eq 'x'")).to.equal(
        "$filter: navigation paths such as 'owner/…' are not supported here at position 0; filter on this object's own properties",
      );
      expect(bare("contains(owner/name, 'x')")).to.contain("navigation paths such as 'owner/…' are not supported here");
    });

    it('refuses a property that is not boolean where a condition is expected', () => {
      expect(filterError('name')).to.deep.equal({
        message: "$filter: 'name' is not a condition: compare it with eq, ne, gt, ge, lt, le or in at position 0",
        target: 'name',
      });
      expect(filterError("qty and name eq 'a'").target).to.equal('qty');
      expect(filterError('length(name)').message).to.contain('length(name) is not a condition');
      expect(filterError("'abc'").message).to.equal(
        "$filter: the string 'abc' is not a condition at position 0; compare it with a property",
      );
    });
  });

  describe('errors name the position (0-based) of the offending character', () => {
    const cases: Array<[string, string]> = [
      ["name eq 'Apple' and qty eq", "$filter: expected a property or a value after 'eq', got the end at position 26"],
      ['name eq ', "$filter: expected a property or a value after 'eq', got the end at position 8"],
      ['', '$filter: expected an expression, got nothing at position 0'],
      ['   ', '$filter: expected an expression, got nothing at position 3'],
      ["name eq 'abc", "$filter: unterminated string literal at position 8; close it with ', and write a quote inside it as ''"],
      ["name eq 'it''s", "$filter: unterminated string literal at position 8; close it with ', and write a quote inside it as ''"],
      ["(name eq 'a'", "$filter: expected ')' to close the '(' at position 0, got the end at position 12"],
      ["name eq 'a')", "$filter: expected 'and', 'or' or the end of the expression, got a ')' without its '(' at position 11"],
      ["name eq 'a' qty eq 1", "$filter: expected 'and', 'or' or the end of the expression, got 'qty' at position 12"],
      ["name eq 'a' and", '$filter: expected a property or a value, got the end at position 15'],
      ["name eq 'a' or or qty eq 1", "$filter: expected a property or a value, got 'or' at position 15"],
      ["name eqq 'a'", "$filter: expected an operator (eq, ne, gt, ge, lt, le, in) after 'name', got 'eqq' at position 5"],
      ["name EQ 'a'", "$filter: expected an operator (eq, ne, gt, ge, lt, le, in) after 'name', got 'EQ' at position 5"],
      ["name == 'a'", "$filter: unexpected character '=' at position 5"],
      ['qty add 1 eq 2', "$filter: operator 'add' is not supported at position 4; use eq, ne, gt, ge, lt, le, in, and, or, not"],
      ['tags has 1', "$filter: operator 'has' is not supported at position 5; use eq, ne, gt, ge, lt, le, in, and, or, not"],
      ['qty gt 5 eq true', "$filter: expected 'and', 'or' or the end of the expression, got 'eq' at position 9"],
      ["'a' eq 'b'", "$filter: 'eq' compares two values ('a', 'b') at position 4; one side must be a property"],
      ['qty gt null', "$filter: null can only be compared with eq or ne, not 'gt' at position 4"],
      ['due eq 2024-13-01', "$filter: invalid date '2024-13-01' at position 7"],
      ['due eq 2023-02-29', "$filter: invalid date '2023-02-29' at position 7"],
      ['at eq 2024-01-31T25:00:00Z', "$filter: invalid date-time '2024-01-31T25:00:00Z' at position 6"],
      [
        'at eq 2024-01-31T10:00:00',
        "$filter: invalid date-time '2024-01-31T10:00:00' at position 6; write it as 2024-01-31T10:00:00Z (the zone, Z or +hh:mm, is required)",
      ],
      ['opens eq 24:00', "$filter: invalid time of day '24:00' at position 9"],
      ['qty eq 5abc', "$filter: invalid literal '5abc' at position 7"],
      ['qty eq 1.', "$filter: invalid literal '1.' at position 7"],
      ['qty eq 1e999', "$filter: number '1e999' is out of range at position 7"],
      ['qty eq @p', "$filter: unexpected character '@' at position 7; parameter aliases are not supported"],
      ['$it/qty eq 1', "$filter: unexpected character '$' at position 0; $it, $root and other $-names are not supported"],
      [
        "name eq 'a' and qty eq 1 and name eq 'b",
        "$filter: unterminated string literal at position 37; close it with ', and write a quote inside it as ''",
      ],
      ['name eq "a"', "$filter: unexpected character '\"' at position 8"],
      ["name.first eq 'a'", "$filter: unexpected character '.' at position 4"],
    ];
    for (const [expression, message] of cases) {
      it(JSON.stringify(expression), () => {
        const error = filterError(expression);
        expect(error.message).to.equal(message);
      });
    }

    it('gives syntax errors the option as target', () => {
      expect(filterError('name eq ').target).to.equal('$filter');
    });
  });

  describe('limits', () => {
    it('refuses nesting deeper than maxFilterDepth (parentheses and not), before the stack could', () => {
      const nested = (n: number) => `${'('.repeat(n)}qty eq 1${')'.repeat(n)}`;
      expect(filterOf(nested(16))).to.deep.equal(c('qty', 'eq', 1));
      expect(errorOf(() => filterOf(nested(17))).message).to.equal(
        '$filter: the expression is nested deeper than 16 levels at position 16',
      );
      expect(errorOf(() => filterOf(`${'not '.repeat(5)}active`, { maxFilterDepth: 4 })).message).to.equal(
        '$filter: the expression is nested deeper than 4 levels at position 16',
      );
      expect(errorOf(() => filterOf(nested(100000))).message).to.contain('nested deeper than 16 levels');
    });

    it('refuses more conditions than maxFilterConditions', () => {
      const many = (n: number) => Array.from({ length: n }, (_, i) => `qty eq ${i}`).join(' or ');
      expect((filterOf(many(200)) as { or: Filter[] }).or).to.have.lengthOf(200);
      expect(errorOf(() => filterOf(many(201))).message).to.match(
        /^\$filter: the expression has more than 200 conditions at position \d+$/,
      );
      expect(errorOf(() => filterOf(many(3), { maxFilterConditions: 2 })).message).to.contain('more than 2 conditions');
    });
  });
});
