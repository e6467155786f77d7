/**
 * The mongo driver's translation, without a server: query documents, regular expressions, sort
 * documents, aggregation pipelines, id mapping and error mapping. The documents are asserted
 * exactly; what each means on the server is argued in the comments of drivers/mongo/*.ts. Regular
 * expressions, the one part JavaScript can run, are also checked against compileLike.
 */
import { expect } from 'chai';
import { Decimal128 } from 'mongodb';
import { ObjectQLError, compileLike, evaluateFilter } from '../../kernel';
import type { AggregateQuery, Filter } from '../../kernel';
import { finishAggregate, toPipeline } from '../../drivers/mongo/aggregate-mongo';
import { duplicateFields, toStoreError } from '../../drivers/mongo/errors';
import { MATCH_ALL, matchNone, toMongoFilter } from '../../drivers/mongo/filter-mongo';
import { escapedInPipeline } from '../../drivers/mongo/ref-mongo';
import { LIKE_OPTIONS, TEXT_OPTIONS, escapePcre, likeToPcre } from '../../drivers/mongo/regex';
import { toMongoSort } from '../../drivers/mongo/sort-mongo';
import { fieldPath, fromDocument, toDocument, toPatch, toProjection } from '../../drivers/mongo/values';
import { SEED } from '../tck/fixtures';

const c = (field: string, op: string, value: unknown): Filter => ({ field, op, value }) as Filter;
const ref = (field: string, op: string, other: string): Filter => ({ field, op, ref: other }) as Filter;
const NONE = { _id: { $exists: false } };

function invalid(fn: () => unknown): ObjectQLError {
  try {
    fn();
  } catch (e) {
    expect(e).to.be.instanceOf(ObjectQLError);
    return e as ObjectQLError;
  }
  throw new Error('expected an ObjectQLError');
}

/**
 * PCRE source as produced by regex.ts → an equivalent JavaScript RegExp: `\A` → `^`, `\z` → `$`
 * (JavaScript's `$` without the m flag is the very end), an atomic group `(?>X)` → `(?=(X))\k`
 * (a lookahead is atomic in JavaScript). Other escapes mean the same in both.
 */
function pcreToJs(source: string, options: string): RegExp {
  let out = '';
  let groups = 0;
  const open: number[] = [];
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === '\\') {
      const next = source[++i];
      out += next === 'A' ? '^' : next === 'z' ? '$' : `\\${next}`;
    } else if (source.startsWith('(?>', i)) {
      open.push(++groups);
      out += `(?=(?<g${groups}>`;
      i += 2;
    } else if (ch === ')') {
      out += `))\\k<g${open.pop()}>`;
    } else {
      out += ch;
    }
  }
  return new RegExp(out, options);
}

function regexOf(doc: Record<string, unknown>, field: string): RegExp {
  const test = doc[field] as { $regex: string; $options: string };
  return pcreToJs(test.$regex, test.$options);
}

describe('mongo driver: translation', () => {
  describe('ids and values', () => {
    it('stores the id as _id and reads it back as id', () => {
      expect(toDocument({ id: 'a', name: 'x', qty: 1 })).to.deep.equal({ _id: 'a', name: 'x', qty: 1 });
      expect(fromDocument({ _id: 'a', name: 'x', qty: 1 })).to.deep.equal({ id: 'a', name: 'x', qty: 1 });
      expect(toDocument({ id: 42 })._id).to.equal('42');
      // A field named __proto__ stays a field (an own property), never the prototype.
      const odd = toDocument(JSON.parse('{"id": "p", "__proto__": {"polluted": true}}'));
      expect(Object.getOwnPropertyDescriptor(odd, '__proto__')?.value).to.deep.equal({ polluted: true });
      expect(Object.getPrototypeOf(odd)).to.equal(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(fromDocument(odd), '__proto__')?.value).to.deep.equal({ polluted: true });
    });

    it('generates a string id when none is given and leaves out undefined values', () => {
      const doc = toDocument({ name: 'x', qty: undefined, note: null });
      expect(doc._id).to.be.a('string').with.length(36);
      expect(doc).to.deep.equal({ _id: doc._id, name: 'x', note: null });
      expect(toDocument({ id: null })._id)
        .to.be.a('string')
        .with.length(36);
    });

    it('copies values, so the caller keeps its own objects', () => {
      const meta = { deep: { n: 1 } };
      const doc = toDocument({ meta });
      meta.deep.n = 2;
      expect(doc.meta).to.deep.equal({ deep: { n: 1 } });
    });

    it('never sets _id in an update and keeps nulls', () => {
      expect(toPatch({ id: 'x', qty: null, name: 'n', skip: undefined })).to.deep.equal({ qty: null, name: 'n' });
      expect(toPatch({ id: 'x' })).to.deep.equal({});
    });

    it('reads an ObjectId written by another tool as its hex string', () => {
      const oid = { toString: () => '65f0c0ffee00000000000001' };
      expect(fromDocument({ _id: oid, n: 1 })).to.deep.equal({ id: '65f0c0ffee00000000000001', n: 1 });
    });

    it('maps field names to paths and refuses names that are not identifiers', () => {
      expect(fieldPath('id')).to.equal('_id');
      expect(fieldPath('due_date')).to.equal('due_date');
      for (const bad of ['a.b', '$where', '_id', '', '1a', 'a b']) {
        expect(invalid(() => fieldPath(bad)).code, bad).to.equal('INVALID_REQUEST');
      }
      expect(invalid(() => toDocument({ 'meta.x': 1 })).code).to.equal('INVALID_REQUEST');
      expect(invalid(() => toPatch({ $set: 1 })).code).to.equal('INVALID_REQUEST');
      expect(invalid(() => toMongoFilter(c('a.b', 'eq', 1))).code).to.equal('INVALID_REQUEST');
    });

    it('projects the requested fields and always the id', () => {
      expect(toProjection(undefined)).to.equal(undefined);
      expect(toProjection([])).to.equal(undefined);
      expect(toProjection(['name', 'qty'])).to.deep.equal({ _id: 1, name: 1, qty: 1 });
      expect(toProjection(['id', 'name'])).to.deep.equal({ _id: 1, name: 1 });
    });
  });

  describe('comparison operators', () => {
    const cases: Array<[string, Filter, unknown]> = [
      ['eq', c('name', 'eq', 'Apple'), { name: { $eq: 'Apple' } }],
      ['eq on id', c('id', 'eq', 'a'), { _id: { $eq: 'a' } }],
      ['eq takes an object literally, never as operators', c('meta', 'eq', { $gt: 1 }), { meta: { $eq: { $gt: 1 } } }],
      ['eq with a list value compares it with each element', c('tags', 'eq', ['a', 'b']), { tags: { $elemMatch: { $eq: ['a', 'b'] } } }],
      ['eq null matches nothing', c('qty', 'eq', null), NONE],
      ['ne', c('status', 'ne', 'open'), { status: { $ne: 'open' } }],
      ['ne null keeps everything but lists holding a null', c('qty', 'ne', null), { $nor: [{ qty: { $elemMatch: { $eq: null } } }] }],
      ['ne with a list value', c('tags', 'ne', ['a']), { $nor: [{ tags: { $elemMatch: { $eq: ['a'] } } }] }],
      ['gt', c('qty', 'gt', 5), { qty: { $gt: 5 } }],
      ['ge', c('qty', 'ge', 5), { qty: { $gte: 5 } }],
      ['lt', c('due', 'lt', '2024-02-01'), { due: { $lt: '2024-02-01' } }],
      ['le', c('price', 'le', 1.5), { price: { $lte: 1.5 } }],
      ['gt null matches nothing', c('qty', 'gt', null), NONE],
      ['in', c('status', 'in', ['open', 'draft']), { status: { $in: ['open', 'draft'] } }],
      ['in drops nulls, which equal nothing', c('status', 'in', ['open', null]), { status: { $in: ['open'] } }],
      ['in with nothing matches nothing', c('status', 'in', []), NONE],
      ['in of only null matches nothing', c('status', 'in', [null]), NONE],
      [
        'in with a list item',
        c('tags', 'in', ['red', ['x']]),
        { $or: [{ tags: { $in: ['red'] } }, { tags: { $elemMatch: { $eq: ['x'] } } }] },
      ],
      ['nin', c('status', 'nin', ['open']), { status: { $nin: ['open'] } }],
      ['nin with nothing matches everything', c('status', 'nin', []), {}],
      [
        'nin with a null keeps null fields and leaves out lists holding a null',
        c('status', 'nin', ['open', null]),
        { $and: [{ status: { $nin: ['open'] } }, { $nor: [{ status: { $elemMatch: { $eq: null } } }] }] },
      ],
      ['between is inclusive', c('qty', 'between', [5, 10]), { qty: { $gte: 5, $lte: 10 } }],
      ['between with a null low bound', c('qty', 'between', [null, 10]), { qty: { $lte: 10 } }],
      ['between with a null high bound matches nothing', c('qty', 'between', [5, null]), NONE],
      ['isnull true: null, missing or an empty list', c('tags', 'isnull', true), { tags: { $in: [null, []] } }],
      ['isnull false', c('tags', 'isnull', false), { tags: { $nin: [null, []] } }],
    ];
    for (const [title, filter, expected] of cases) {
      it(`${title}: ${JSON.stringify(filter)}`, () => {
        expect(toMongoFilter(filter)).to.deep.equal(expected);
      });
    }

    it('refuses an unknown operator and a malformed list', () => {
      expect(invalid(() => toMongoFilter(c('qty', 'regex', 'x'))).code).to.equal('INVALID_REQUEST');
      expect(invalid(() => toMongoFilter(c('qty', 'in', 5))).code).to.equal('INVALID_REQUEST');
      expect(invalid(() => toMongoFilter(c('qty', 'between', [1]))).code).to.equal('INVALID_REQUEST');
    });

    it('matches everything without a filter', () => {
      expect(toMongoFilter(undefined)).to.equal(MATCH_ALL);
      expect(toMongoFilter(undefined)).to.deep.equal({});
      expect(matchNone()).to.deep.equal(NONE);
    });
  });

  describe('null tests on attachment fields (file, multiple image)', () => {
    // `{$in: [null, []]}` matches a missing or null field and one equal to []. An attachment
    // object is neither, and a list of attachment objects holds no null and no [] element (the
    // engine refuses null items), so exactly "no attachment" matches; `$nin` is its negation.
    const none = { $in: [null, []] };
    const some = { $nin: [null, []] };
    const cases: Array<[string, Filter, unknown]> = [
      ['file = null', c('contract', 'isnull', true), { contract: none }],
      ['file != null', c('contract', 'isnull', false), { contract: some }],
      ['multiple image = null', c('photos', 'isnull', true), { photos: none }],
      ['multiple image != null', c('photos', 'isnull', false), { photos: some }],
      [
        'both present',
        { and: [c('contract', 'isnull', false), c('photos', 'isnull', false)] },
        { $and: [{ contract: some }, { photos: some }] },
      ],
      ['not file = null', { not: c('contract', 'isnull', true) }, { $nor: [{ contract: none }] }],
    ];
    for (const [title, filter, expected] of cases) {
      it(`${title}: ${JSON.stringify(filter)}`, () => {
        expect(toMongoFilter(filter)).to.deep.equal(expected);
      });
    }

    it('stores attachments as given and an update to null as null, which `= null` matches', () => {
      const file = { id: 'f-1', name: 'a.pdf', url: '/f/1', size: 3, type: 'application/pdf' };
      const photo = { name: 'p.png', url: '/f/2', size: 4, type: 'image/png', variants: { small: '/f/2/s' } };
      expect(toDocument({ id: 'x', contract: file, photos: [photo, photo] })).to.deep.equal({
        _id: 'x',
        contract: file,
        photos: [photo, photo],
      });
      expect(toDocument({ id: 'y', photos: [] })).to.deep.equal({ _id: 'y', photos: [] });
      expect(toPatch({ contract: null, photos: null })).to.deep.equal({ contract: null, photos: null });
    });
  });

  describe('text operators', () => {
    it('translates like, contains, startswith and endswith to escaped case-insensitive expressions', () => {
      expect(toMongoFilter(c('name', 'like', 'app%'))).to.deep.equal({ name: { $regex: '\\Aapp', $options: 'is' } });
      expect(toMongoFilter(c('name', 'like', '%PIE'))).to.deep.equal({ name: { $regex: '\\A.*PIE\\z', $options: 'is' } });
      expect(toMongoFilter(c('name', 'like', 'Duria_'))).to.deep.equal({ name: { $regex: '\\ADuria.\\z', $options: 'is' } });
      expect(toMongoFilter(c('name', 'contains', 'a.b'))).to.deep.equal({ name: { $regex: 'a\\.b', $options: 'i' } });
      expect(toMongoFilter(c('name', 'startswith', 'b_n'))).to.deep.equal({ name: { $regex: '\\Ab_n', $options: 'i' } });
      expect(toMongoFilter(c('name', 'endswith', '(x)'))).to.deep.equal({ name: { $regex: '\\(x\\)\\z', $options: 'i' } });
      expect(LIKE_OPTIONS).to.equal('is');
      expect(TEXT_OPTIONS).to.equal('i');
      for (const op of ['like', 'contains', 'startswith', 'endswith']) expect(toMongoFilter(c('name', op, null))).to.deep.equal(NONE);
    });

    it('places each middle piece of a like pattern atomically, so no pattern backtracks', () => {
      expect(likeToPcre('a%b%c')).to.equal('\\Aa(?>.*?b).*c\\z');
      expect(likeToPcre('%a%a%a%')).to.equal('\\A(?>.*?a)(?>.*?a)(?>.*?a)');
      expect(likeToPcre('%%x%%')).to.equal('\\A(?>.*?x)');
      expect(likeToPcre('%')).to.equal('\\A');
      expect(likeToPcre('')).to.equal('\\A\\z');
      expect(likeToPcre('100\\%')).to.equal('\\A100%\\z');
      expect(likeToPcre('a\\_b')).to.equal('\\Aa_b\\z');
      expect(likeToPcre('a\\\\b')).to.equal('\\Aa\\\\b\\z');
      expect(likeToPcre('ends with \\')).to.equal('\\Aends with \\\\\\z');
    });

    const SPECIALS = '.*+?^$()[]{}|\\#';

    it('escapes every regular-expression metacharacter, so such a value matches literally', () => {
      expect(escapePcre(SPECIALS)).to.equal('\\.\\*\\+\\?\\^\\$\\(\\)\\[\\]\\{\\}\\|\\\\\\#');
      expect(escapePcre('nul\0')).to.equal('nul\\x00');
      for (const op of ['contains', 'startswith', 'endswith']) {
        const re = regexOf(toMongoFilter(c('name', op, SPECIALS)), 'name');
        expect(re.test(SPECIALS), op).to.equal(true);
        expect(re.test(`x${SPECIALS}x`), op).to.equal(op === 'contains');
        expect(re.test('.'), op).to.equal(false);
        expect(re.test('aaaa'), op).to.equal(false);
      }
      const like = regexOf(toMongoFilter(c('name', 'like', SPECIALS.replace('\\', '\\\\'))), 'name');
      expect(like.test(SPECIALS)).to.equal(true);
      expect(like.test(`${SPECIALS}x`)).to.equal(false);
      expect(like.test('.**+?^$()[]{}|\\#')).to.equal(false);
    });

    it('anchors with \\A and \\z, so a value ending in a newline does not pass for one without', () => {
      const re = regexOf(toMongoFilter(c('name', 'like', 'abc')), 'name');
      expect(re.test('abc')).to.equal(true);
      expect(re.test('abc\n')).to.equal(false);
      expect(regexOf(toMongoFilter(c('name', 'like', 'a%c')), 'name').test('a\nb\nc')).to.equal(true);
    });

    it('agrees with compileLike on random patterns and values', () => {
      let seed = 20240611;
      const random = () => {
        seed = (seed + 0x6d2b79f5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
      const pick = (chars: string, max: number) =>
        Array.from({ length: Math.floor(random() * (max + 1)) }, () => chars[Math.floor(random() * chars.length)]).join('');
      let matched = 0;
      for (let i = 0; i < 3000; i++) {
        const pattern = pick('aAb%_\\.*()[$^?\n#é', 7);
        const re = pcreToJs(likeToPcre(pattern), LIKE_OPTIONS);
        const like = compileLike(pattern);
        for (let j = 0; j < 6; j++) {
          const value = j === 0 ? pattern.replace(/[%\\]/g, '').replace(/_/g, 'a') : pick('aAbB%_\\.*()[$^?\n#éÉ', 9);
          const expected = like(value);
          if (expected) matched += 1;
          expect(re.test(value), `${JSON.stringify(pattern)} on ${JSON.stringify(value)}`).to.equal(expected);
        }
      }
      expect(matched).to.be.greaterThan(500);
    });
  });

  describe('and / or / not', () => {
    const open = c('status', 'eq', 'open');
    const qtyLow = c('qty', 'lt', 6);

    it('nests and, or and not as $and, $or and $nor', () => {
      expect(toMongoFilter({ and: [open, c('active', 'eq', true)] })).to.deep.equal({
        $and: [{ status: { $eq: 'open' } }, { active: { $eq: true } }],
      });
      expect(toMongoFilter({ or: [open, qtyLow] })).to.deep.equal({ $or: [{ status: { $eq: 'open' } }, { qty: { $lt: 6 } }] });
      expect(toMongoFilter({ not: qtyLow })).to.deep.equal({ $nor: [{ qty: { $lt: 6 } }] });
      expect(toMongoFilter({ and: [{ or: [open, c('status', 'eq', 'draft')] }, { not: qtyLow }] })).to.deep.equal({
        $and: [{ $or: [{ status: { $eq: 'open' } }, { status: { $eq: 'draft' } }] }, { $nor: [{ qty: { $lt: 6 } }] }],
      });
      expect(toMongoFilter({ not: { or: [open, c('status', 'isnull', true)] } })).to.deep.equal({
        $nor: [{ $or: [{ status: { $eq: 'open' } }, { status: { $in: [null, []] } }] }],
      });
      expect(toMongoFilter({ not: { not: c('code', 'eq', 'B-1') } })).to.deep.equal({ $nor: [{ $nor: [{ code: { $eq: 'B-1' } }] }] });
    });

    it('handles empty and single-element groups and constant parts', () => {
      expect(toMongoFilter({ and: [] })).to.deep.equal({});
      expect(toMongoFilter({ or: [] })).to.deep.equal(NONE);
      expect(toMongoFilter({ not: { and: [] } })).to.deep.equal(NONE);
      expect(toMongoFilter({ not: { or: [] } })).to.deep.equal({});
      expect(toMongoFilter({ and: [open] })).to.deep.equal({ status: { $eq: 'open' } });
      expect(toMongoFilter({ and: [open, c('qty', 'in', [])] })).to.deep.equal(NONE);
      expect(toMongoFilter({ or: [open, c('qty', 'in', [])] })).to.deep.equal({ status: { $eq: 'open' } });
      expect(toMongoFilter({ or: [open, { and: [] }] })).to.deep.equal({});
    });
  });

  describe('length()', () => {
    const len = (field: string, op: string, value: unknown): Filter => ({ field, op, value, fn: 'length' }) as Filter;

    /** Runs the aggregation expressions a length condition uses, as the server would (errors included). */
    function run(expr: unknown, doc: Record<string, unknown>): unknown {
      if (typeof expr === 'string' && expr.startsWith('$')) return doc[expr.slice(1)];
      if (expr === null || typeof expr !== 'object') return expr;
      const [op, arg] = Object.entries(expr)[0] as [string, unknown];
      const args = arg as unknown[];
      switch (op) {
        case '$cond':
          return run(args[0], doc) ? run(args[1], doc) : run(args[2], doc);
        case '$type': {
          const v = run(arg, doc);
          return v === undefined ? 'missing' : v === null ? 'null' : typeof v === 'string' ? 'string' : typeof v;
        }
        case '$strLenCP': {
          const v = run(arg, doc);
          if (typeof v !== 'string') throw new Error(`$strLenCP requires a string argument, found: ${String(v)}`);
          return [...v].length;
        }
        default: {
          const [a, b] = args.map((x) => run(x, doc)) as [number, number];
          return { $eq: a === b, $ne: a !== b, $gt: a > b, $gte: a >= b, $lt: a < b, $lte: a <= b }[op];
        }
      }
    }

    it('compares $strLenCP of string values inside $expr, never calling it on anything else', () => {
      const name = '$name';
      expect(toMongoFilter(len('name', 'gt', 3))).to.deep.equal({
        $expr: { $cond: [{ $eq: [{ $type: name }, 'string'] }, { $gt: [{ $strLenCP: name }, 3] }, false] },
      });
      expect(toMongoFilter(len('name', 'ne', 3))).to.deep.equal({
        $expr: { $cond: [{ $eq: [{ $type: name }, 'string'] }, { $ne: [{ $strLenCP: name }, 3] }, true] },
      });
      expect(toMongoFilter(len('id', 'eq', 3))).to.deep.equal({
        $expr: { $cond: [{ $eq: [{ $type: '$_id' }, 'string'] }, { $eq: [{ $strLenCP: '$_id' }, 3] }, false] },
      });
      expect(toMongoFilter({ not: len('name', 'lt', 3) })).to.deep.equal({ $nor: [toMongoFilter(len('name', 'lt', 3))] });
    });

    it('agrees with the memory evaluator on the suite records, nulls and non-BMP characters included', () => {
      const records = [...SEED, { id: 'u', name: 'Café 😀', code: undefined }];
      for (const op of ['eq', 'ne', 'gt', 'ge', 'lt', 'le']) {
        for (const value of [0, 3, 5, 6, 6.5, 12]) {
          for (const field of ['name', 'code', 'status']) {
            const filter = len(field, op, value);
            const expr = (toMongoFilter(filter) as { $expr: unknown }).$expr;
            for (const record of records) {
              expect(run(expr, record), `${JSON.stringify(filter)} on ${String(record.id)}`).to.equal(evaluateFilter(filter, record));
            }
          }
        }
      }
    });

    it('refuses operators other than comparisons and unknown functions', () => {
      expect(invalid(() => toMongoFilter(len('name', 'in', [1, 2]))).code).to.equal('INVALID_REQUEST');
      expect(invalid(() => toMongoFilter({ field: 'name', op: 'eq', value: 1, fn: 'upper' } as unknown as Filter)).code).to.equal(
        'INVALID_REQUEST',
      );
    });
  });

  describe('comparisons with another field', () => {
    const A = { $ifNull: ['$qty', null] };
    const B = { $ifNull: ['$target', null] };
    const present = (test: unknown) => ({ $and: [{ $not: [{ $in: [A, [null, []]] }] }, { $ne: [B, null] }, test] });

    it('compares with $expr, false when either side is null', () => {
      expect(toMongoFilter(ref('qty', 'gt', 'target'))).to.deep.equal({ $expr: present({ $gt: [A, B] }) });
      expect(toMongoFilter(ref('qty', 'ge', 'target'))).to.deep.equal({ $expr: present({ $gte: [A, B] }) });
      expect(toMongoFilter(ref('qty', 'lt', 'target'))).to.deep.equal({ $expr: present({ $lt: [A, B] }) });
      expect(toMongoFilter(ref('qty', 'le', 'target'))).to.deep.equal({ $expr: present({ $lte: [A, B] }) });
      expect(toMongoFilter(ref('qty', 'eq', 'target'))).to.deep.equal({
        $expr: present({ $cond: [{ $isArray: A }, { $in: [B, A] }, { $eq: [A, B] }] }),
      });
    });

    it('makes ne true when the field is null, and maps id to _id', () => {
      expect(toMongoFilter(ref('qty', 'ne', 'target'))).to.deep.equal({
        $expr: { $cond: [{ $isArray: A }, { $not: [{ $in: [B, A] }] }, { $or: [{ $eq: [A, null] }, { $ne: [A, B] }] }] },
      });
      const byId = toMongoFilter(ref('name', 'eq', 'id')) as { $expr: { $and: unknown[] } };
      expect(JSON.stringify(byId)).to.contain('"$_id"');
    });

    it('matches text case-insensitively against the other field escaped inside the pipeline', () => {
      const N = { $ifNull: ['$name', null] };
      const C = { $ifNull: ['$code', null] };
      const strings = { $and: [{ $eq: [{ $type: N }, 'string'] }, { $eq: [{ $type: C }, 'string'] }] };
      expect(toMongoFilter(ref('name', 'contains', 'code'))).to.deep.equal({
        $expr: { $cond: [strings, { $regexMatch: { input: N, regex: escapedInPipeline(C), options: 'i' } }, false] },
      });
      expect(toMongoFilter(ref('name', 'startswith', 'code'))).to.deep.equal({
        $expr: { $cond: [strings, { $regexMatch: { input: N, regex: { $concat: ['\\A', escapedInPipeline(C)] }, options: 'i' } }, false] },
      });
      expect(toMongoFilter(ref('name', 'endswith', 'code'))).to.deep.equal({
        $expr: { $cond: [strings, { $regexMatch: { input: N, regex: { $concat: [escapedInPipeline(C), '\\z'] }, options: 'i' } }, false] },
      });
    });

    it('escapes in the pipeline the same characters as escapePcre, the backslash first', () => {
      // Replays the $replaceAll chain in JavaScript.
      const replay = (expr: unknown, value: string): string => {
        if (expr === '$v') return value;
        const { input, find, replacement } = (expr as { $replaceAll: { input: unknown; find: unknown; replacement: string } }).$replaceAll;
        const literal = typeof find === 'string' ? find : (find as { $literal: string }).$literal;
        return replay(input, value).split(literal).join(replacement);
      };
      const chain = escapedInPipeline('$v');
      for (const value of ['.*+?^$()[]{}|\\#', 'a\\.b', 'plain', 'nul\0', '\\\\'])
        expect(replay(chain, value), value).to.equal(escapePcre(value));
      // A string starting with $ inside an expression is a field path: each character to find is a $literal.
      expect(JSON.stringify(chain)).to.contain('{"$literal":"$"}');
    });

    it('refuses an operator that cannot compare two fields', () => {
      expect(invalid(() => toMongoFilter(ref('qty', 'between', 'target'))).code).to.equal('INVALID_REQUEST');
    });
  });

  describe('sort', () => {
    it('maps directions and fields, nulls ordered by MongoDB itself', () => {
      expect(toMongoSort(undefined)).to.equal(undefined);
      expect(toMongoSort([])).to.equal(undefined);
      expect(
        toMongoSort(
          [
            { field: 'status', dir: 'asc' },
            { field: 'qty', dir: 'desc' },
          ],
          fieldPath,
        ),
      ).to.deep.equal({ status: 1, qty: -1 });
      expect(
        Object.keys(
          toMongoSort(
            [
              { field: 'status', dir: 'asc' },
              { field: 'qty', dir: 'desc' },
            ],
            fieldPath,
          )!,
        ),
      ).to.deep.equal(['status', 'qty']);
      expect(toMongoSort([{ field: 'id', dir: 'desc' }], fieldPath)).to.deep.equal({ _id: -1 });
    });

    it('keeps the first of repeated keys, in place', () => {
      const sort = toMongoSort([
        { field: 'a', dir: 'asc' },
        { field: 'b', dir: 'desc' },
        { field: 'a', dir: 'desc' },
      ]);
      expect(Object.entries(sort!)).to.deep.equal([
        ['a', 1],
        ['b', -1],
      ]);
    });
  });

  describe('aggregation pipeline', () => {
    const STATS: AggregateQuery['aggregate'] = [
      { func: 'count', alias: 'n' },
      { func: 'count', field: 'qty', alias: 'nq' },
      { func: 'sum', field: 'qty', alias: 'total' },
      { func: 'avg', field: 'price', alias: 'avgp' },
      { func: 'min', field: 'qty', alias: 'minq' },
      { func: 'max', field: 'qty', alias: 'maxq' },
    ];
    const present = (f: string) => ({ $cond: [{ $eq: [{ $ifNull: [`$${f}`, null] }, null] }, 0, 1] });

    it('groups, accumulates, flattens, sorts and pages', () => {
      const plan = toPipeline({
        filter: c('active', 'eq', false),
        groupBy: ['status', 'active'],
        aggregate: STATS,
        sort: [{ field: 'total', dir: 'desc' }],
        skip: 1,
        top: 2,
      });
      expect(plan.none).to.equal(false);
      expect(plan.single).to.equal(undefined);
      expect(plan.pipeline).to.deep.equal([
        { $match: { active: { $eq: false } } },
        {
          $group: {
            _id: { g0: { $ifNull: ['$status', null] }, g1: { $ifNull: ['$active', null] } },
            a0: { $sum: 1 },
            a1: { $sum: present('qty') },
            a2: { $sum: '$qty' },
            a3: { $avg: '$price' },
            a4: { $min: '$qty' },
            a5: { $max: '$qty' },
            n2: { $sum: present('qty') },
          },
        },
        {
          $project: {
            _id: 0,
            status: '$_id.g0',
            active: '$_id.g1',
            n: '$a0',
            nq: '$a1',
            total: { $cond: [{ $eq: ['$n2', 0] }, null, '$a2'] },
            avgp: '$a3',
            minq: '$a4',
            maxq: '$a5',
          },
        },
        { $sort: { total: -1, status: 1, active: 1 } },
        { $skip: 1 },
        { $limit: 2 },
      ]);
      expect(Object.keys(plan.pipeline[3].$sort)).to.deep.equal(['total', 'status', 'active']);
    });

    it('sorts groups by their fields when no sort is given, and ignores sort keys that name nothing', () => {
      const plan = toPipeline({
        groupBy: ['status'],
        aggregate: [{ func: 'count', alias: 'n' }],
        sort: [
          { field: 'nope', dir: 'desc' },
          { field: 'n', dir: 'desc' },
        ],
      });
      expect(plan.pipeline).to.deep.equal([
        { $group: { _id: { g0: { $ifNull: ['$status', null] } }, a0: { $sum: 1 } } },
        { $project: { _id: 0, status: '$_id.g0', n: '$a0' } },
        { $sort: { n: -1, status: 1 } },
      ]);
    });

    it('groups by id through _id, and lets an alias be named _id', () => {
      const plan = toPipeline({ groupBy: ['id'], aggregate: [{ func: 'max', field: 'qty', alias: '_id' }] });
      expect(plan.pipeline).to.deep.equal([
        { $group: { _id: { g0: { $ifNull: ['$_id', null] } }, a0: { $max: '$qty' } } },
        { $project: { id: '$_id.g0', _id: '$a0' } },
        { $sort: { id: 1 } },
      ]);
    });

    it('aggregates everything into one group without groupBy and pages that one row itself', () => {
      const plan = toPipeline({
        aggregate: [
          { func: 'count', alias: 'n' },
          { func: 'sum', field: 'qty', alias: 'total' },
        ],
        sort: [{ field: 'n', dir: 'asc' }],
        skip: 0,
        top: 5,
      });
      expect(plan.pipeline).to.deep.equal([
        { $group: { _id: null, a0: { $sum: 1 }, a1: { $sum: '$qty' }, n1: { $sum: present('qty') } } },
        { $project: { _id: 0, n: '$a0', total: { $cond: [{ $eq: ['$n1', 0] }, null, '$a1'] } } },
      ]);
      expect(plan.single).to.deep.equal({ empty: { n: 0, total: null }, skip: 0, top: 5 });
      expect(finishAggregate([{ n: 3, total: 9 }], plan)).to.deep.equal([{ n: 3, total: 9 }]);
    });

    it('adds a decimal field (currency, or a declared scale) as Decimal128 and averages its exact sum over the count', () => {
      const plan = toPipeline(
        {
          groupBy: ['kind'],
          aggregate: [
            { func: 'sum', field: 'amount', alias: 'total' },
            { func: 'avg', field: 'amount', alias: 'mean' },
            { func: 'avg', field: 'weight', alias: 'w' },
          ],
        },
        new Set(['amount']),
      );
      expect(plan.pipeline.slice(0, 2)).to.deep.equal([
        {
          $group: {
            _id: { g0: { $ifNull: ['$kind', null] } },
            a0: { $sum: { $toDecimal: '$amount' } },
            a1: { $sum: { $toDecimal: '$amount' } },
            a2: { $avg: '$weight' },
            n0: { $sum: present('amount') },
            n1: { $sum: present('amount') },
          },
        },
        {
          $project: {
            _id: 0,
            kind: '$_id.g0',
            total: { $cond: [{ $eq: ['$n0', 0] }, null, '$a0'] },
            mean: { $cond: [{ $eq: ['$n1', 0] }, null, { $divide: ['$a1', '$n1'] }] },
            w: '$a2',
          },
        },
      ]);
      const rows = [{ kind: 'in', total: Decimal128.fromString('0.3'), mean: Decimal128.fromString('0.15'), w: 0.15000000000000002 }];
      expect(finishAggregate(rows, plan)).to.deep.equal([{ kind: 'in', total: 0.3, mean: 0.15, w: 0.15000000000000002 }]);
    });

    it('returns exactly one row without groupBy over no documents: count 0, null elsewhere', () => {
      const plan = toPipeline({
        filter: c('qty', 'gt', 100),
        aggregate: [
          { func: 'count', alias: 'n' },
          { func: 'count', field: 'qty', alias: 'nq' },
          { func: 'sum', field: 'qty', alias: 'total' },
          { func: 'avg', field: 'qty', alias: 'mean' },
          { func: 'min', field: 'qty', alias: 'low' },
          { func: 'max', field: 'qty', alias: 'high' },
        ],
      });
      expect(finishAggregate([], plan)).to.deep.equal([{ n: 0, nq: 0, total: null, mean: null, low: null, high: null }]);
      expect(finishAggregate([], toPipeline({ aggregate: [{ func: 'count', alias: 'n' }], skip: 1 }))).to.deep.equal([]);
      expect(toPipeline({ aggregate: [{ func: 'count', alias: 'n' }], top: 0 }).none).to.equal(true);
    });

    it('runs nothing for top 0, which $limit refuses', () => {
      const plan = toPipeline({ groupBy: ['status'], aggregate: [{ func: 'count', alias: 'n' }], top: 0 });
      expect(plan.none).to.equal(true);
      expect(plan.pipeline.some((stage) => '$limit' in stage)).to.equal(false);
    });
  });

  describe('store errors', () => {
    const logged: unknown[] = [];
    const ctx = {
      datasource: 'default',
      object: 'tck_item',
      operation: 'create',
      logger: { error: (...args: unknown[]) => logged.push(args) },
    };
    beforeEach(() => {
      logged.length = 0;
    });

    it('turns a duplicate key (E11000) into CONFLICT naming the field from keyPattern', () => {
      const err = Object.assign(
        new Error('E11000 duplicate key error collection: db.tck_item index: oql_uq_code dup key: { code: "U-1" }'),
        {
          code: 11000,
          keyPattern: { code: 1 },
          keyValue: { code: 'U-1' },
        },
      );
      const mapped = toStoreError(err, ctx);
      expect(mapped.code).to.equal('CONFLICT');
      expect(mapped.status).to.equal(409);
      expect(mapped.message).to.equal("Duplicate value for field 'code' of object 'tck_item'");
      expect(mapped.details).to.deep.equal({ object: 'tck_item', fields: ['code'] });
      expect(mapped.message).to.not.contain('E11000');
      expect(logged).to.have.length(0);
    });

    it('names several fields, and the id for a duplicate _id', () => {
      const pair = toStoreError({ code: 11000, keyPattern: { org: 1, email: 1 } }, { ...ctx, object: 'tck_owner' });
      expect(pair.message).to.equal("Duplicate value for fields (org, email) of object 'tck_owner'");
      expect(pair.details).to.deep.equal({ object: 'tck_owner', fields: ['org', 'email'] });
      const id = toStoreError({ code: 11000, keyPattern: { _id: 1 }, keyValue: { _id: 'dup' } }, ctx);
      expect(id.code).to.equal('CONFLICT');
      expect(id.message).to.equal("A record with id 'dup' already exists in object 'tck_item'");
      expect(id.details).to.deep.equal({ object: 'tck_item', fields: ['id'] });
    });

    it('finds the fields by index name when an older server sends no keyPattern', () => {
      const err = {
        code: 11000,
        errmsg: 'E11000 duplicate key error collection: db.tck_owner index: oql_idx_tck_owner_org_email dup key: { : "x", : "y" }',
      };
      const indexFields = (name: string) => (name === 'oql_idx_tck_owner_org_email' ? ['org', 'email'] : undefined);
      expect(duplicateFields(err, indexFields)).to.deep.equal(['org', 'email']);
      expect(duplicateFields({ code: 11000, errmsg: 'E11000 duplicate key error index: _id_ dup key: { : "a" }' })).to.deep.equal(['id']);
      expect(duplicateFields({ code: 11000, errorResponse: { keyPattern: { code: 1 } } })).to.deep.equal(['code']);
      const unknown = toStoreError({ code: 11000, errmsg: 'E11000 something else' }, ctx);
      expect(unknown.code).to.equal('CONFLICT');
      expect(unknown.details).to.deep.equal({ object: 'tck_item', fields: [] });
    });

    it('turns a write conflict inside a transaction into CONFLICT', () => {
      const mapped = toStoreError({ code: 112, codeName: 'WriteConflict', message: 'WriteConflict error: this operation conflicted' }, ctx);
      expect(mapped.code).to.equal('CONFLICT');
      expect(mapped.message).to.not.contain('WriteConflict');
    });

    it('turns anything else into DATABASE_ERROR without driver text, and logs the details', () => {
      const err = Object.assign(new Error('connection 4 to 10.0.0.7:27017 closed'), { code: 6 });
      const mapped = toStoreError(err, ctx);
      expect(mapped.code).to.equal('DATABASE_ERROR');
      expect(mapped.status).to.equal(500);
      expect(mapped.message).to.equal("Database error during create on object 'tck_item'");
      expect(mapped.details).to.equal(undefined);
      expect(logged).to.have.length(1);
      expect((logged[0] as [{ err: unknown; object: string }])[0]).to.include({
        err,
        object: 'tck_item',
        operation: 'create',
        datasource: 'default',
      });
      expect(toStoreError('weird', { ...ctx, object: '', operation: 'commit' }).message).to.equal('Database error during commit');
    });

    it('passes an ObjectQLError through', () => {
      const own = new ObjectQLError('INVALID_REQUEST', 'bad field');
      expect(toStoreError(own, ctx)).to.equal(own);
    });
  });
});
