/**
 * Nested relationships are batched: one driver query per relation and level, whatever the number
 * of parent rows, across two SQLite datasources (authors in one, books and shelves in the other),
 * counted by wrapping each datasource's find, count and aggregate; GraphQL over HTTP.
 */
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, USERS, type TestServer } from '../../helpers/server';
import { tempDir } from '../../drivers/sql/helpers';
import { gql } from './helpers';

function writeApp(dir: string): string {
  const meta = join(dir, 'meta');
  mkdirSync(meta, { recursive: true });
  writeFileSync(join(meta, 'author.object.yml'), 'datasource: warehouse\nfields:\n  name: {type: text, required: true}\n');
  writeFileSync(
    join(meta, 'book.object.yml'),
    'fields:\n  title: {type: text, required: true}\n' +
      '  author: {type: lookup, reference_to: author, related_name: books}\n  shelf: {type: lookup, reference_to: shelf}\n',
  );
  writeFileSync(join(meta, 'shelf.object.yml'), 'fields:\n  label: {type: text}\n');
  return meta;
}

type Calls = Record<'find' | 'count' | 'aggregate', number>;

describe('GraphQL relationships: one query per relation and level, across datasources', () => {
  let s: TestServer;
  const tmp = tempDir();
  const calls: Record<string, Calls> = {};

  before(async () => {
    const sqlite = (file: string) => ({ driver: 'sql', client: 'better-sqlite3', connection: { filename: join(tmp.dir, file) } }) as const;
    s = await startServer(
      {
        metadata: [writeApp(tmp.dir)],
        datasources: { default: sqlite('books.sqlite'), warehouse: sqlite('authors.sqlite') },
        plugins: { graphql: true },
      },
      { identityFromHeader: true },
    );
    await addAuthors(0, 10);
    for (const name of ['default', 'warehouse']) {
      const ds = s.kernel.resolve('datasources').get(name);
      const counted: Calls = { find: 0, count: 0, aggregate: 0 };
      calls[name] = counted;
      for (const op of ['find', 'count', 'aggregate'] as const) {
        const original = (ds[op] as (...args: unknown[]) => Promise<unknown>).bind(ds);
        (ds as any)[op] = (...args: unknown[]) => {
          counted[op] += 1;
          return original(...args);
        };
      }
    }
  });
  after(async () => {
    await s?.stop();
    tmp.remove();
  });

  /** Authors from..to-1, three books each on one of two shelves (written through the engine, before counting starts or between counts). */
  async function addAuthors(from: number, to: number): Promise<void> {
    const request = { user: USERS.admin };
    const engine = s.kernel.engine;
    if (from === 0)
      await engine.repo('shelf', request).createMany([
        { id: 'sh-a', label: 'A' },
        { id: 'sh-b', label: 'B' },
      ]);
    for (let i = from; i < to; i++) {
      await engine.repo('author', request).create({ id: `au-${String(i).padStart(2, '0')}`, name: `Author ${i}` });
      await engine
        .repo('book', request)
        .createMany(
          [0, 1, 2].map((j) => ({ title: `Book ${i}.${j}`, author: `au-${String(i).padStart(2, '0')}`, shelf: j % 2 ? 'sh-b' : 'sh-a' })),
        );
    }
  }

  /** Runs the query and answers the driver calls it made, by datasource. */
  async function measure(query: string): Promise<{ data: any; calls: Record<string, Calls> }> {
    for (const c of Object.values(calls)) c.find = c.count = c.aggregate = 0;
    const res = await gql(s, query, undefined, USERS.admin);
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    return { data: res.body.data, calls: JSON.parse(JSON.stringify(calls)) };
  }

  const REVERSE = `{ authorList(sort: "name", top: 100) {
    name
    books(sort: "-title", top: 2) { title shelf_record { label } author_record { name } }
    books_count
  } }`;
  const FORWARD = `{ bookList(sort: "title", top: 500) { title author_record { name books_count } shelf_record { label book_by_shelf_count } } }`;
  const ALIASES = `{ authorList(top: 100) { first: books(sort: "title", top: 1) { title } last: books(sort: "-title", top: 1) { title } } }`;

  it('reads a reverse list, its count and the lookups below it with one find per relation and level', async () => {
    const { data, calls: made } = await measure(REVERSE);
    expect(data.authorList).to.have.length(10);
    expect(data.authorList[0]).to.deep.equal({
      name: 'Author 0',
      books: [
        { title: 'Book 0.2', shelf_record: { label: 'A' }, author_record: { name: 'Author 0' } },
        { title: 'Book 0.1', shelf_record: { label: 'B' }, author_record: { name: 'Author 0' } },
      ],
      books_count: 3,
    });
    // Authors (warehouse), then books, then shelves (default) and authors again (warehouse).
    expect(made.warehouse.find).to.equal(2);
    expect(made.default.find).to.equal(2);
  });

  it('makes the same driver calls for 25 parents as for 10 (reverse, forward and aliases with other arguments)', async () => {
    const before = [await measure(REVERSE), await measure(FORWARD), await measure(ALIASES)];
    await addAuthors(10, 25);
    const after = [await measure(REVERSE), await measure(FORWARD), await measure(ALIASES)];
    expect(after[0].data.authorList).to.have.length(25);
    expect(after[1].data.bookList).to.have.length(75);
    expect(after[1].data.bookList[0]).to.deep.equal({
      title: 'Book 0.0',
      author_record: { name: 'Author 0', books_count: 3 },
      shelf_record: { label: 'A', book_by_shelf_count: 50 },
    });
    expect(after[2].data.authorList[24]).to.deep.include({ first: [{ title: 'Book 24.0' }], last: [{ title: 'Book 24.2' }] });
    expect(after.map((a) => a.calls)).to.deep.equal(before.map((b) => b.calls));
    // The second alias is read by the batch loader: the authors again, with that one relation expanded.
    expect(after[2].calls.warehouse.find).to.equal(2);
    expect(after[2].calls.default.find).to.equal(2);
  });
});
