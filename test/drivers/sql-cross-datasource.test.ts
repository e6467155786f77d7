/**
 * Several datasources at once: a SQLite object looking up a PostgreSQL one, served through one
 * kernel; and expand over SQL costs one query per relation level, however many rows.
 */
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, USERS, type TestServer } from '../helpers/server';
import { openNamespace, requireDialect, tempDir, type Namespace } from './sql/helpers';

function writeApp(dir: string): string {
  const meta = join(dir, 'meta');
  mkdirSync(meta, { recursive: true });
  writeFileSync(join(meta, 'author.object.yml'), 'datasource: warehouse\nfields:\n  name: {type: text, required: true}\n');
  writeFileSync(
    join(meta, 'book.object.yml'),
    'fields:\n  title: {type: text, required: true}\n  author: {type: lookup, reference_to: author}\n  shelf: {type: lookup, reference_to: shelf}\n',
  );
  writeFileSync(join(meta, 'shelf.object.yml'), 'fields:\n  label: {type: text}\n');
  return meta;
}

describe('SQL: a SQLite object looking up a PostgreSQL one', () => {
  let pg: Namespace;
  let s: TestServer;
  const tmp = tempDir();

  before(async function () {
    await requireDialect(this, 'postgres');
    pg = await openNamespace('postgres');
    s = await startServer({
      metadata: [writeApp(tmp.dir)],
      datasources: {
        default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: join(tmp.dir, 'app.sqlite') } },
        warehouse: pg.config(),
      },
      security: { allowBodyUser: true },
    });
  });
  after(async () => {
    await s?.stop();
    await pg?.drop();
    tmp.remove();
  });

  const rpc = async (op: string, object: string, args: unknown) => {
    const res = await s.rpc({ op, object, args, user: USERS.carol });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };

  it('stores each object in its own database and expands across them', async () => {
    await rpc('create', 'author', { id: 'a-1', name: 'Ursula' });
    await rpc('create', 'shelf', { id: 's-1', label: 'Fiction' });
    await rpc('create', 'book', { id: 'b-1', title: 'The Dispossessed', author: 'a-1', shelf: 's-1' });
    // The author row is in PostgreSQL, the book in SQLite.
    expect(await pg.admin()('author').select('id', 'name')).to.deep.equal([{ id: 'a-1', name: 'Ursula' }]);
    const { items } = await rpc('find', 'book', {
      fields: ['title'],
      expand: { author: { fields: ['name'] }, shelf: { fields: ['label'] } },
    });
    expect(items).to.deep.equal([
      { id: 'b-1', title: 'The Dispossessed', author: { id: 'a-1', name: 'Ursula' }, shelf: { id: 's-1', label: 'Fiction' } },
    ]);
  });

  it('checks a reference against the other database', async () => {
    const res = await s.rpc({ op: 'create', object: 'book', args: { title: 'Ghost', author: 'a-404' }, user: USERS.carol });
    expect(res.status).to.equal(400);
    expect(res.body.error.details.fields).to.have.property('author');
  });

  it('expands 50 rows with one query per relation and level, not one per row', async () => {
    for (let i = 0; i < 50; i++) await rpc('create', 'book', { id: `bulk-${i}`, title: `Book ${i}`, author: 'a-1', shelf: 's-1' });
    const counted = (name: string) => {
      const ds = s.kernel.resolve('datasources').get(name);
      const find = ds.find.bind(ds);
      const calls = { n: 0 };
      ds.find = async (...args: Parameters<typeof find>) => {
        calls.n += 1;
        return find(...args);
      };
      return calls;
    };
    const local = counted('default');
    const remote = counted('warehouse');
    const { items } = await rpc('find', 'book', { filters: [['id', 'startswith', 'bulk-']], top: 50, expand: { author: {}, shelf: {} } });
    expect(items).to.have.length(50);
    expect(items.every((b: any) => b.author.name === 'Ursula' && b.shelf.label === 'Fiction')).to.equal(true);
    // One for the books and one for the shelves (SQLite), one for the authors (PostgreSQL).
    expect(local.n).to.equal(2);
    expect(remote.n).to.equal(1);
  });

  it('sorts through a relation on the same datasource and refuses one across datasources', async () => {
    await rpc('create', 'shelf', { id: 's-2', label: 'Atlas' });
    await rpc('create', 'book', { id: 'sorted-1', title: 'Sorted one', shelf: 's-2' });
    const { items } = await rpc('find', 'book', { filters: [['title', 'startswith', 'Sorted']], sort: 'shelf.label' });
    expect(items.map((b: any) => b.id)).to.deep.equal(['sorted-1']);
    const first = await rpc('find', 'book', { fields: ['shelf'], sort: 'shelf.label,id', top: 1 });
    expect(first.items).to.deep.equal([{ id: 'sorted-1', shelf: 's-2' }]);
    const res = await s.rpc({ op: 'find', object: 'book', args: { sort: '-author.name' }, user: USERS.carol });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('INVALID_REQUEST');
    expect(res.body.error.message).to.equal("sorting through 'author' needs 'book' and 'author' on one datasource");
  });
});
