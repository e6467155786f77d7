/**
 * The statement cache (drivers/sql/statements.ts): a query shape is compiled by knex once and
 * reused with other values, on every engine; shapes knex does not compile value for value are
 * built by knex each time and still answer right; the cache is bounded; a transaction's
 * statements run on its connection; SQLite prepares a statement once per connection.
 */
import { expect } from 'chai';
import { knex as createKnex, type Knex } from 'knex';
import Database from 'better-sqlite3';
import { createSqlDatasource, type SqlDatasource } from '../../drivers/sql';
import type { SqlTransaction } from '../../drivers/sql/transaction';
import type { Transaction } from '../../kernel';
import type { Executed, SqlDialect } from '../../drivers/sql/dialects/base';
import { frag } from '../../drivers/sql/fragment';
import { paging } from '../../drivers/sql/query-sql';
import { ShapeParts } from '../../drivers/sql/shape';
import { Statements } from '../../drivers/sql/statements';
import { describeDialects } from './sql/helpers';
import { field, objectDef } from './sql/objects';

const ITEM = 'cache_item';

async function openWithRows(ds: SqlDatasource): Promise<void> {
  await ds.connect();
  await ds.syncSchema([objectDef(ITEM, [field('name', 'text'), field('rank', 'number'), field('team', 'select')])]);
  for (let i = 1; i <= 6; i++) await ds.create(ITEM, { id: `c${i}`, name: `n${i}`, rank: i, team: i % 2 ? 'odd' : 'even' });
}

describeDialects('sql driver: statement cache', (ns, label) => {
  let ds: SqlDatasource;
  beforeEach(async () => {
    ds = ns().make();
    await openWithRows(ds);
  });
  afterEach(async () => {
    await ds.disconnect();
  });

  it('reuses a find shape with other values and returns their rows', async () => {
    const byRank = (rank: number, top: number) =>
      ds.find(ITEM, {
        filter: { field: 'rank', op: 'ge', value: rank },
        sort: [{ field: 'rank', dir: 'asc' }],
        top,
        fields: ['name'],
      });
    expect(await byRank(2, 2)).to.deep.equal([
      { id: 'c2', name: 'n2' },
      { id: 'c3', name: 'n3' },
    ]);
    const compiled = ds.statementStats().compiled;
    expect(await byRank(5, 3)).to.deep.equal([
      { id: 'c5', name: 'n5' },
      { id: 'c6', name: 'n6' },
    ]);
    expect(await byRank(1, 1)).to.deep.equal([{ id: 'c1', name: 'n1' }]);
    expect(ds.statementStats().compiled).to.equal(compiled);
  });

  it('reuses count, aggregate, paging per group, update and delete shapes with other values', async () => {
    expect(await ds.count(ITEM, { field: 'team', op: 'eq', value: 'odd' })).to.equal(3);
    const sum = (team: string) =>
      ds.aggregate(ITEM, { filter: { field: 'team', op: 'eq', value: team }, aggregate: [{ func: 'sum', field: 'rank', alias: 's' }] });
    expect(await sum('odd')).to.deep.equal([{ s: 9 }]);
    const perGroup = (skip: number) =>
      ds.find(ITEM, { sort: [{ field: 'rank', dir: 'desc' }], perGroup: { field: 'team', top: 1, skip }, fields: ['rank'] });
    expect((await perGroup(0)).map((r) => r.rank)).to.deep.equal([6, 5]);
    await ds.update(ITEM, 'c1', { name: 'first' });
    await ds.delete(ITEM, 'c6');
    const compiled = ds.statementStats().compiled;

    expect(await ds.count(ITEM, { field: 'team', op: 'eq', value: 'even' })).to.equal(2);
    expect(await sum('even')).to.deep.equal([{ s: 6 }]);
    expect((await perGroup(1)).map((r) => r.rank)).to.deep.equal([3, 2]);
    expect(await ds.update(ITEM, 'c2', { name: 'second' })).to.include({ id: 'c2', name: 'second' });
    expect(await ds.update(ITEM, 'nope', { name: 'x' })).to.equal(null);
    expect(await ds.delete(ITEM, 'c5')).to.equal(true);
    expect(await ds.delete(ITEM, 'c5')).to.equal(false);
    expect(ds.statementStats().compiled).to.equal(compiled);
    expect((await ds.find(ITEM, { sort: [{ field: 'rank', dir: 'asc' }] })).map((r) => r.name)).to.deep.equal([
      'first',
      'second',
      'n3',
      'n4',
    ]);
  });

  it('answers right for a value knex would bind differently (a list, an offset without limit)', async () => {
    const inList = (values: number[]) =>
      ds.find(ITEM, { filter: { field: 'rank', op: 'in', value: values }, sort: [{ field: 'rank', dir: 'asc' }] });
    expect((await inList([1, 3])).map((r) => r.id)).to.deep.equal(['c1', 'c3']);
    expect((await inList([4, 6])).map((r) => r.id)).to.deep.equal(['c4', 'c6']);
    const from = (skip: number) => ds.find(ITEM, { sort: [{ field: 'rank', dir: 'asc' }], skip });
    expect((await from(4)).map((r) => r.id)).to.deep.equal(['c5', 'c6']);
    expect((await from(5)).map((r) => r.id)).to.deep.equal(['c6']);
  });

  it("runs a transaction's statements on its connection", async () => {
    const knex = (ds as unknown as { knex: Knex }).knex;
    const seen: Array<{ sql: string; tx?: string }> = [];
    const listener = (q: { sql: string; __knexTxId?: string }) => seen.push({ sql: q.sql, tx: q.__knexTxId });
    knex.on('query', listener);
    try {
      await ds.transaction(async (tx) => {
        await ds.create(ITEM, { id: 't1', name: 'inside', rank: 7, team: 'odd' }, tx);
        expect(await ds.find(ITEM, { filter: { field: 'id', op: 'eq', value: 't1' } }, tx)).to.have.length(1);
        expect(await ds.count(ITEM, undefined, tx)).to.equal(7);
        // Another connection does not see the uncommitted row.
        expect(await ds.count(ITEM, undefined)).to.equal(6);
      });
    } finally {
      knex.removeListener('query', listener);
    }
    const ours = seen.filter((q) => q.sql.includes(ITEM));
    expect(ours).to.have.length(4);
    expect(ours.slice(0, 3).every((q) => typeof q.tx === 'string' && q.tx.length > 0)).to.equal(true);
    expect(ours[3].tx).to.equal(undefined);
    expect(await ds.count(ITEM, undefined)).to.equal(7);
  });

  if (label === 'postgres') {
    /** The statements this datasource prepared on the connection of a transaction, read on that connection. */
    async function preparedOnConnection(source: SqlDatasource, run: (tx: Transaction) => Promise<void>): Promise<string[]> {
      return source.transaction(async (tx) => {
        await run(tx);
        // The transaction's own connection (knex's raw would take another from the pool).
        const conn = (await (tx as SqlTransaction).trx.client.acquireConnection()) as {
          query(sql: string): Promise<{ rows: Array<{ statement: string }> }>;
        };
        const result = await conn.query('SELECT statement FROM pg_prepared_statements');
        return result.rows.map((r) => r.statement).filter((text) => text.includes(ITEM));
      });
    }

    it('runs a kept statement as a prepared statement, prepared once per connection', async () => {
      const prepared = await preparedOnConnection(ds, async (tx) => {
        for (let i = 1; i <= 4; i++) {
          expect(await ds.find(ITEM, { filter: { field: 'id', op: 'eq', value: `c${i}` }, top: 1 }, tx)).to.have.length(1);
        }
      });
      const selects = prepared.filter((text) => text.startsWith('select'));
      expect(selects).to.have.length(1);
      expect(selects[0]).to.match(/limit \$2$/);
    });

    it('keeps at most statementCacheSize prepared statements per connection', async () => {
      const small = createSqlDatasource(
        'small',
        { ...ns().config(), statementCacheSize: 2, pool: { min: 0, max: 1 } },
        {
          baseDir: process.cwd(),
        },
      );
      await small.connect();
      await small.syncSchema([objectDef(ITEM, [field('name', 'text'), field('rank', 'number'), field('team', 'select')])]);
      try {
        const fields = [['name'], ['rank'], ['team'], ['name', 'rank']];
        for (const round of [1, 2]) {
          for (const f of fields) expect(await small.find(ITEM, { fields: f, top: round }), f.join()).to.have.length(round);
        }
        const prepared = await preparedOnConnection(small, () => Promise.resolve());
        expect(prepared.length).to.be.within(1, 2);
        expect(await small.count(ITEM, undefined)).to.equal(6);
      } finally {
        await small.disconnect();
      }
    });
  }

  if (label === 'sqlite') {
    it('prepares a statement once per connection', async () => {
      const proto = Database.prototype as unknown as { prepare: (sql: string) => unknown };
      const prepare = proto.prepare;
      const prepared: string[] = [];
      proto.prepare = function (this: unknown, sql: string) {
        prepared.push(sql);
        return prepare.call(this, sql);
      };
      try {
        for (let i = 1; i <= 6; i++) expect(await ds.find(ITEM, { filter: { field: 'id', op: 'eq', value: `c${i}` } })).to.have.length(1);
      } finally {
        proto.prepare = prepare;
      }
      // At most one prepare per pooled connection (two at most), not one per query.
      expect(prepared.length).to.be.within(1, 2);
    });
  }
});

/** A dialect that records what it is asked to run. */
function recordingDialect(runs: Array<{ sql: string; bindings: readonly unknown[] }>, literalPaging = false): SqlDialect {
  return {
    literalPaging,
    execute(_conn: unknown, sql: string, bindings: readonly unknown[]): Promise<Executed> {
      runs.push({ sql, bindings });
      return Promise.resolve({ rows: [], changes: 0 });
    },
  } as unknown as SqlDialect;
}

describe('sql driver: statement cache (compilation)', () => {
  // Compiling needs no connection; running goes to the recording dialect.
  function detached(k: Knex): Knex {
    const client = k.client as { acquireConnection: () => Promise<unknown>; releaseConnection: () => Promise<void> };
    client.acquireConnection = () => Promise.resolve({});
    client.releaseConnection = () => Promise.resolve();
    return k;
  }
  const db = detached(createKnex({ client: 'pg', pool: { min: 0, max: 1 } }));
  after(() => db.destroy());

  function byName(name: unknown, extra?: (qb: Knex.QueryBuilder) => Knex.QueryBuilder) {
    const parts = new ShapeParts('find', 't');
    const where = parts.frag(frag('?? = ?', ['name', name]));
    return parts.shape((v) => {
      const w = where(v)!;
      const qb = db('t')
        .select('id')
        .whereRaw(w.sql, w.bindings as Knex.RawBinding[]);
      return extra ? extra(qb) : qb;
    });
  }

  it('binds later values into the SQL knex wrote for the first', async () => {
    const runs: Array<{ sql: string; bindings: readonly unknown[] }> = [];
    const statements = new Statements(recordingDialect(runs), 10);
    await statements.run(db, byName('a'));
    await statements.run(db, byName('b'));
    expect(statements.compiled).to.equal(1);
    expect(runs).to.deep.equal([
      { sql: 'select "id" from "t" where "name" = $1', bindings: ['a'] },
      { sql: 'select "id" from "t" where "name" = $1', bindings: ['b'] },
    ]);
  });

  it('leaves to knex a shape whose bindings knex changes, and one with a value it could spread', async () => {
    const runs: Array<{ sql: string; bindings: readonly unknown[] }> = [];
    const statements = new Statements(recordingDialect(runs), 10);
    // knex adds a binding of its own: not compiled value for value.
    const withConstant = (name: string) => byName(name, (qb) => qb.where('kind', 'fixed'));
    await statements.run(db, withConstant('a'));
    await statements.run(db, withConstant('b'));
    // An array: knex spreads it, so this shape is never cached.
    const list = byName(['x', 'y']);
    expect(list.cacheable).to.equal(false);
    await statements.run(db, list);
    expect(statements.compiled).to.equal(1);
    expect(runs.map((r) => r.bindings)).to.deep.equal([['a', 'fixed'], ['b', 'fixed'], [['x', 'y']]]);
  });

  it('writes limits and offsets as literals where the dialect asks, other values still bound', async () => {
    const runs: Array<{ sql: string; bindings: readonly unknown[] }> = [];
    const statements = new Statements(recordingDialect(runs, true), 10);
    const lite = detached(createKnex({ client: 'better-sqlite3', useNullAsDefault: true, connection: { filename: ':memory:' } }));
    const page = (name: string, top: number, skip: number) => {
      const parts = new ShapeParts('find', 't');
      const where = parts.frag(frag('?? = ? and ?? is not null', ['name', name, 'odd?name']));
      const limit = paging(parts, { top, skip });
      return parts.shape((v) =>
        limit(
          lite('t')
            .select('id')
            .whereRaw(where(v)!.sql, where(v)!.bindings as Knex.RawBinding[]),
          v,
        ),
      );
    };
    try {
      await statements.run(lite, page('a', 20, 40));
      await statements.run(lite, page('b', 5, 10));
    } finally {
      await lite.destroy();
    }
    expect(statements.compiled).to.equal(1);
    expect(runs).to.deep.equal([
      { sql: 'select `id` from `t` where `name` = ? and `odd?name` is not null limit 20 offset 40', bindings: ['a'] },
      { sql: 'select `id` from `t` where `name` = ? and `odd?name` is not null limit 5 offset 10', bindings: ['b'] },
    ]);
  });

  it('keeps at most its size of shapes, the least recently used going first', async () => {
    const runs: Array<{ sql: string; bindings: readonly unknown[] }> = [];
    const statements = new Statements(recordingDialect(runs), 2);
    const shape = (column: string) => {
      const parts = new ShapeParts('find', 't');
      const where = parts.frag(frag('?? = ?', [column, 1]));
      return parts.shape((v) => db('t').whereRaw(where(v)!.sql, where(v)!.bindings as Knex.RawBinding[]));
    };
    for (const column of ['a', 'b', 'a', 'c', 'a', 'b']) await statements.run(db, shape(column));
    expect(statements.size).to.equal(2);
    // a, b, c compiled; a kept as the most recently used; b compiled again after c evicted it.
    expect(statements.compiled).to.equal(4);
  });
});
