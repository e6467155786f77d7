import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { knex } from 'knex';
import { runDriverSuite } from '../tck/driver-suite';
import { ITEM, tckObjects } from '../tck/fixtures';
import type { SqlDatasource, SqliteDialect } from '../../drivers/sql';
import { sqliteDatasource, tempDir } from './sql/helpers';
import { objectqlRejection as rejection } from '../helpers/rejection';

// A fresh ':memory:' database (a private temporary file) per test.
runDriverSuite('sql (sqlite)', () => sqliteDatasource(':memory:'));

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('sql driver on SQLite', () => {
  let tmp: ReturnType<typeof tempDir>;
  const open: SqlDatasource[] = [];
  async function connect(filename: string, name = 'default'): Promise<SqlDatasource> {
    const ds = sqliteDatasource(filename, tmp.dir, name);
    await ds.connect();
    await ds.syncSchema(tckObjects());
    open.push(ds);
    return ds;
  }
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(async () => {
    for (const ds of open.splice(0)) await ds.disconnect();
    tmp.remove();
  });

  describe('files', () => {
    it('resolves a relative filename against the config folder and creates missing folders', async () => {
      const ds = await connect('data/nested/app.sqlite');
      await ds.create(ITEM, { id: 'x', name: 'stored' });
      const file = join(tmp.dir, 'data/nested/app.sqlite');
      expect(existsSync(file)).to.equal(true);
      expect((ds.dialect as SqliteDialect).filename).to.equal(file);
    });

    it('keeps data in the file across connections', async () => {
      const first = await connect('app.sqlite');
      await first.create(ITEM, { id: 'x', name: 'stored', tags: ['red'] });
      await first.disconnect();
      const second = await connect('app.sqlite');
      expect(await second.find(ITEM, { fields: ['name', 'tags'] })).to.deep.equal([{ id: 'x', name: 'stored', tags: ['red'] }]);
    });

    it('runs the file in WAL mode', async () => {
      const ds = await connect('wal.sqlite');
      await ds.create(ITEM, { id: 'x' });
      const probe = knex({ client: 'better-sqlite3', connection: { filename: join(tmp.dir, 'wal.sqlite') }, useNullAsDefault: true });
      try {
        const [mode] = await probe.raw('PRAGMA journal_mode');
        expect(mode.journal_mode).to.equal('wal');
      } finally {
        await probe.destroy();
      }
    });

    it("serves ':memory:' from a private temporary file removed at disconnect", async () => {
      const one = await connect(':memory:');
      const two = await connect(':memory:');
      await one.create(ITEM, { id: 'x' });
      expect(await two.count(ITEM, undefined)).to.equal(0);
      const file = (one.dialect as SqliteDialect).filename;
      expect(existsSync(file)).to.equal(true);
      await one.disconnect();
      expect(existsSync(file)).to.equal(false);
      expect(existsSync(`${file}-wal`)).to.equal(false);
    });
  });

  describe('concurrency', () => {
    it('lets reads outside an open transaction through, and queues writes behind it', async () => {
      const ds = await connect(':memory:');
      await ds.create(ITEM, { id: 'a', qty: 1 });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let inside!: () => void;
      const started = new Promise<void>((resolve) => (inside = resolve));
      const running = ds.transaction(async (tx) => {
        await ds.update(ITEM, 'a', { qty: 2 }, tx);
        inside();
        await gate;
      });
      await started;
      expect((await ds.find(ITEM, {}))[0]).to.deep.include({ qty: 1 });
      let written = false;
      const outside = ds.create(ITEM, { id: 'b' }).then(() => (written = true));
      await tick();
      expect(written, 'a write waits for the open transaction').to.equal(false);
      release();
      await running;
      await outside;
      expect(await ds.count(ITEM, undefined)).to.equal(2);
      expect((await ds.find(ITEM, { filter: { field: 'id', op: 'eq', value: 'a' } }))[0]).to.deep.include({ qty: 2 });
    });

    it('serializes concurrent transactions', async () => {
      const ds = await connect(':memory:');
      const run = (label: string) =>
        ds.transaction(async (tx) => {
          const seen = await ds.count(ITEM, undefined, tx);
          await tick();
          await ds.create(ITEM, { id: label, qty: seen }, tx);
        });
      await Promise.all([run('t1'), run('t2'), run('t3')]);
      const rows = await ds.find(ITEM, { sort: [{ field: 'id', dir: 'asc' }], fields: ['qty'] });
      expect(rows).to.deep.equal([
        { id: 't1', qty: 0 },
        { id: 't2', qty: 1 },
        { id: 't3', qty: 2 },
      ]);
    });

    it('shares one file between two datasources (two kernels) without busy errors', async () => {
      const a = await connect('shared.sqlite', 'a');
      const b = await connect('shared.sqlite', 'b');
      const work = (ds: SqlDatasource, prefix: string) =>
        Promise.all(
          [0, 1, 2, 3].map((i) =>
            ds.transaction(async (tx) => {
              await ds.create(ITEM, { id: `${prefix}${i}` }, tx);
              await tick();
              await ds.update(ITEM, `${prefix}${i}`, { qty: i }, tx);
            }),
          ),
        );
      await Promise.all([work(a, 'a'), work(b, 'b'), ...[0, 1, 2].map((i) => a.create(ITEM, { id: `plain${i}` }))]);
      expect(await b.count(ITEM, undefined)).to.equal(11);
    });

    it('fails a write outside the transaction it runs inside instead of waiting forever', async () => {
      const ds = await connect(':memory:');
      const error = await rejection(ds.transaction(async () => ds.create(ITEM, { id: 'x' })));
      expect(error.code).to.equal('DATABASE_ERROR');
      expect(error.message).to.contain('pass the transaction');
      expect(await ds.count(ITEM, undefined)).to.equal(0);
    });
  });

  it('matches case-insensitively beyond ASCII, exactly as evaluate.ts', async () => {
    const ds = await connect(':memory:');
    await ds.create(ITEM, { id: 'a', name: 'ÄPFEL' });
    await ds.create(ITEM, { id: 'b', name: 'ΣΊΣΥΦΟΣ' });
    const ids = async (op: string, value: string) =>
      (await ds.find(ITEM, { filter: { field: 'name', op, value } as never })).map((r) => r.id);
    expect(await ids('contains', 'äpf')).to.deep.equal(['a']);
    expect(await ids('like', 'äpfel')).to.deep.equal(['a']);
    expect(await ids('like', '%σ')).to.deep.equal(['b']);
    expect(await ids('endswith', 'ς')).to.deep.equal(['b']);
  });
});
