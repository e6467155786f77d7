/**
 * transaction(fn, {durable: false}) (kernel/drivers.ts, TransactionOptions): commits and rolls back
 * as any transaction does; on PostgreSQL its commit does not wait for the disk
 * (synchronous_commit = off for that transaction alone). A column whose default is the setting
 * shows what each transaction ran with.
 */
import { expect } from 'chai';
import type { SqlDatasource } from '../../drivers/sql';
import { describeDialects } from './sql/helpers';
import { field, objectDef } from './sql/objects';

const MARK = 'commit_mark';
const mark = objectDef(MARK, [field('note', 'text'), field('sync', 'text')]);

describeDialects('sql driver: transactions that need not be durable', (ns, label) => {
  let ds: SqlDatasource;
  beforeEach(async () => {
    ds = ns().make();
    await ds.connect();
    await ds.syncSchema([mark]);
  });
  afterEach(() => ds.disconnect());

  it('commits what it wrote and rolls back on a throw, like any transaction', async () => {
    await ds.transaction((tx) => ds.create(MARK, { id: 'kept', note: 'a' }, tx), { durable: false });
    const failed = await ds
      .transaction(
        async (tx) => {
          await ds.create(MARK, { id: 'undone', note: 'b' }, tx);
          throw new Error('roll back');
        },
        { durable: false },
      )
      .catch((err: Error) => err.message);
    expect(failed).to.equal('roll back');
    expect((await ds.find(MARK, {})).map((r) => r.id)).to.deep.equal(['kept']);
  });

  if (label === 'postgres') {
    it('commits without waiting for the disk, and only that transaction', async () => {
      await ns().admin().raw(`ALTER TABLE ${MARK} ALTER COLUMN sync SET DEFAULT current_setting('synchronous_commit')`);
      await ds.transaction((tx) => ds.create(MARK, { id: 'lazy', note: 'x' }, tx), { durable: false });
      // The pool's connections (the one that ran it among them) are back to the server's setting.
      for (let i = 0; i < 6; i++) await ds.transaction((tx) => ds.create(MARK, { id: `plain${i}`, note: 'x' }, tx));
      await ds.create(MARK, { id: 'outside', note: 'x' });
      const rows = await ds.find(MARK, { fields: ['id', 'sync'], sort: [{ field: 'id', dir: 'asc' }] });
      const sync = Object.fromEntries(rows.map((r) => [r.id, r.sync]));
      expect(sync.lazy).to.equal('off');
      expect(
        Object.entries(sync)
          .filter(([id]) => id !== 'lazy')
          .map(([, v]) => v),
      ).to.deep.equal(Array(7).fill('on'));
    });
  }
});
