/**
 * Conditions through relations and one-to-many expand, end to end over JSON-RPC and through the
 * engine's AST, against test/fixtures/relations-app: book → author (related_name books), book →
 * editor (default name book_by_editor), review → book (reviews), book → vault (admins only).
 */
import { expect } from 'chai';
import { resolve } from 'node:path';
import type { FindOptions, User } from '../../../kernel';
import { driverCalls } from '../../helpers/driver-calls';
import { startServer, type TestServer } from '../../helpers/server';

const APP = resolve(__dirname, '../../fixtures/relations-app');
const ADMIN: User = { id: 'root', roles: ['admin'] };
const READER: User = { id: 'r', roles: ['reader'] };
type Row = Record<string, any>;

describe('JSON-RPC: conditions through relations and one-to-many expand', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ metadata: [APP], security: { allowBodyUser: true } });
  });
  after(async () => {
    await s?.stop();
  });

  async function rpc(op: string, object: string, args: Record<string, unknown>, user: User = ADMIN) {
    return s.rpc({ op, object, args, user });
  }
  async function ids(object: string, args: Record<string, unknown>, user: User = ADMIN): Promise<string[]> {
    const res = await rpc('find', object, args, user);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.items.map((r: Row) => r.id).sort();
  }
  async function engineIds(object: string, options: FindOptions, user: User = ADMIN): Promise<string[]> {
    const { items } = await s.kernel.engine.repo(object, { user }).find(options);
    return items.map((r) => r.id as string).sort();
  }
  async function refused(object: string, args: Record<string, unknown>, user: User, status: number, code: string, mention: string) {
    const res = await rpc('find', object, args, user);
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    expect(res.body.error.code).to.equal(code);
    expect(res.body.error.message).to.contain(mention);
  }
  describe('conditions through relations', () => {
    it('follows a lookup with a dotted path in the spec filter, to any depth the limit allows', async () => {
      expect(await ids('book', { filters: [['author.name', '=', 'Ann']] })).to.deep.equal(['b1', 'b2', 'b3']);
      expect(await ids('review', { filters: [['book.author.country', '=', 'SE']] })).to.deep.equal(['r4', 'r5']);
      expect(await ids('book', { filters: [['author.name', '=', 'Ann'], 'or', ['price', '>', 45]] })).to.deep.equal([
        'b1',
        'b2',
        'b3',
        'b5',
      ]);
      expect(await ids('book', { filters: [['author.name', '=', 'Nobody']] })).to.deep.equal([]);
    });

    it('counts and aggregates through relations', async () => {
      const count = await rpc('count', 'book', { filters: [['author.country', '=', 'NO']] });
      expect(count.body).to.deep.include({ count: 3 });
      const groups = await rpc('find', 'book', {
        filters: [['author.country', '=', 'NO']],
        groupBy: ['genre'],
        aggregate: [{ func: 'sum', field: 'price', alias: 'total' }],
        sort: [['genre', 'asc']],
      });
      expect(groups.status, JSON.stringify(groups.body)).to.equal(200);
      const rows = groups.body.items ?? groups.body;
      expect(rows.map((r: Row) => [r.genre, r.total])).to.deep.equal([
        ['crime', 30],
        ['sf', 30],
      ]);
    });

    it('tests one-to-many relations with any and all (the AST protocols build)', async () => {
      const crime = { field: 'genre', op: 'eq', value: 'crime' } as const;
      expect(await engineIds('author', { filter: { relation: 'books', quantifier: 'any', filter: crime } })).to.deep.equal(['a1', 'a2']);
      expect(await engineIds('author', { filter: { relation: 'books', quantifier: 'any' } })).to.deep.equal(['a1', 'a2']);
      // all: every book cheaper than 35, and an author with no books qualifies.
      const cheap = { field: 'price', op: 'lt', value: 35 } as const;
      expect(await engineIds('author', { filter: { relation: 'books', quantifier: 'all', filter: cheap } })).to.deep.equal(['a1', 'a3']);
      expect(await engineIds('author', { filter: { not: { relation: 'books', quantifier: 'any' } } })).to.deep.equal(['a3']);
      // The default name of a relation without related_name.
      expect(await engineIds('author', { filter: { relation: 'book_by_editor', quantifier: 'any' } })).to.deep.equal(['a1', 'a2']);
      // Nested: authors with a book that has a five-star review.
      const fiveStars = { relation: 'reviews', quantifier: 'any', filter: { field: 'stars', op: 'eq', value: 5 } } as const;
      expect(await engineIds('author', { filter: { relation: 'books', quantifier: 'any', filter: fiveStars } })).to.deep.equal([
        'a1',
        'a2',
      ]);
      expect(s.kernel.engine.relations('author').map((r) => [r.name, r.kind, r.target, r.field])).to.deep.equal([
        ['books', 'reverse', 'book', 'author'],
        ['book_by_editor', 'reverse', 'book', 'editor'],
      ]);
    });

    it('reads related records as the caller sees them: no leak by inference', async () => {
      await refused(
        'book',
        { filters: [['author.secret', '=', 's1']] },
        READER,
        400,
        'INVALID_REQUEST',
        "unknown field 'secret' on object 'author'",
      );
      await refused('book', { filters: [['vault.name', '=', 'Deep']] }, READER, 403, 'FORBIDDEN', 'vault');
      await refused(
        'book',
        { filters: [['writer.name', '=', 'Ann']] },
        READER,
        400,
        'INVALID_REQUEST',
        "unknown relation 'writer' on object 'book'",
      );
      // A scoped reader sees only their own books (b1, b3, b5): b4 (crime, by a2) does not make a2 match.
      const scoped: User = { id: 'u1', roles: ['scoped'] };
      const crime = { field: 'genre', op: 'eq', value: 'crime' } as const;
      expect(await engineIds('author', { filter: { relation: 'books', quantifier: 'any', filter: crime } }, scoped)).to.deep.equal(['a1']);
    });

    it('refuses a condition whose related records exceed limits.maxRelatedRecords, naming the relation', async () => {
      const small = await startServer({ metadata: [APP], security: { allowBodyUser: true }, limits: { maxRelatedRecords: 4 } });
      try {
        // Five books match: over the limit of 4.
        const res = await small.rpc({ op: 'find', object: 'review', args: { filters: [['book.price', '>', 0]] }, user: ADMIN });
        expect(res.status).to.equal(400);
        expect(res.body.error.code).to.equal('INVALID_REQUEST');
        expect(res.body.error.message).to.contain("through 'book'").and.contain('limits.maxRelatedRecords');
        const fewer = await small.rpc({ op: 'find', object: 'review', args: { filters: [['book.price', '>', 25]] }, user: ADMIN });
        expect(fewer.body.items.map((r: Row) => r.id).sort()).to.deep.equal(['r4', 'r5']);
      } finally {
        await small.stop();
      }
    });

    it('refuses conditions through relations where they cannot run (in-memory matching)', () => {
      const visibility = s.kernel.engine.repo('book', { user: ADMIN }).visibility();
      expect(() => visibility.matches({ id: 'b1' }, [['author.name', '=', 'Ann']])).to.throw('not available here');
    });
  });

  describe('one-to-many expand', () => {
    it('adds each parent its related records, paged per parent, with their count', async () => {
      const res = await rpc('find', 'author', {
        sort: [['name', 'asc']],
        expand: { books: { fields: ['title', 'price'], sort: [['price', 'desc']], top: 2, count: true } },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const byId = Object.fromEntries(res.body.items.map((a: Row) => [a.id, a]));
      expect(byId.a1.books.map((b: Row) => b.id)).to.deep.equal(['b3', 'b2']);
      expect(byId.a1['books@count']).to.equal(3);
      expect(byId.a2.books.map((b: Row) => b.id)).to.deep.equal(['b4']);
      expect(byId.a3.books).to.deep.equal([]);
      expect(byId.a3['books@count']).to.equal(0);
      const skipped = await s.kernel.engine
        .repo('author', { user: ADMIN })
        .find({ filter: { field: 'id', op: 'eq', value: 'a1' }, expand: { books: { sort: 'price', skip: 1, top: 1 } } });
      expect((skipped.items[0].books as Row[]).map((b) => b.id)).to.deep.equal(['b2']);
      // Sorted through the books' own relation: editors Bob (b1, b2), none (b3) — nulls first ascending.
      const byEditor = await rpc('find', 'author', { filters: [['id', '=', 'a1']], expand: { books: { sort: '-editor.name, title' } } });
      expect(byEditor.status, JSON.stringify(byEditor.body)).to.equal(200);
      expect(byEditor.body.items[0].books.map((b: Row) => b.id)).to.deep.equal(['b1', 'b2', 'b3']);
    });

    it('groups the related records by their lookup even when that lookup is expanded back', async () => {
      const res = await rpc('find', 'author', {
        filters: [['id', '=', 'a1']],
        expand: { books: { sort: 'title', expand: { author: { fields: ['name'] } } } },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const books = res.body.items[0].books as Row[];
      expect(books.map((b) => b.id)).to.deep.equal(['b1', 'b3', 'b2']);
      expect(books[0].author).to.deep.equal({ id: 'a1', name: 'Ann' });
    });

    it("puts a lookup's record under a key of its own for protocols ('into'), never from a client's map", async () => {
      const { items } = await s.kernel.engine.repo('book', { user: READER }).find({
        filter: { field: 'id', op: 'in', value: ['b1', 'b5'] },
        sort: 'id',
        expand: { author: { fields: ['name'], into: 'author_record' } },
      });
      expect(items.map((b) => [b.author, b.author_record])).to.deep.equal([
        ['a1', { id: 'a1', name: 'Ann' }],
        [null, null],
      ]);
      const refused = await rpc('find', 'book', { expand: { author: { into: 'x' } } });
      expect(refused.status).to.equal(400);
      expect(refused.body.error.message).to.contain("unknown option 'into'");
    });

    it('runs one query per relation and level, whatever the number of parents', async () => {
      const calls = await driverCalls(s, () =>
        rpc('find', 'author', { expand: { books: { count: true, expand: { reviews: { top: 1 }, editor: {} } } } }),
      );
      // authors (find + count), books (find), its count (aggregate), reviews (find), editors (find).
      expect(calls).to.deep.equal({ find: 4, count: 1, aggregate: 1 });
    });

    it('applies the related object’s permissions, fields and limits', async () => {
      const res = await rpc('find', 'author', { expand: { books: { expand: { vault: {} } } } }, READER);
      expect(res.status).to.equal(403);
      const bad = await rpc('find', 'author', { expand: { books: { top: 5000 } } });
      expect(bad.status).to.equal(400);
      expect(bad.body.error.message).to.contain("expand.books: 'top' may be at most");
      const unknown = await rpc('find', 'book', { expand: { author: { skip: 1 } } });
      expect(unknown.status).to.equal(400);
      expect(unknown.body.error.message).to.contain("unknown option 'skip'");
    });
  });
});
