/**
 * lockRows (kernel/drivers.ts): a find whose rows stay locked until the transaction ends. On
 * PostgreSQL and MariaDB another transaction waits for them, or with skipLocked leaves them out;
 * SQLite runs one transaction at a time, so there a find in the transaction is the lock. InnoDB
 * locks every row it reads: on a table this small MariaDB scans it whole, so the first holder
 * holds every row and the second gets none, never waiting; PostgreSQL locks only the rows returned.
 */
import { expect } from 'chai';
import type { SqlDatasource } from '../../drivers/sql';
import type { Transaction } from '../../kernel';
import { describeDialects } from './sql/helpers';
import { field, objectDef } from './sql/objects';

const JOB = 'lock_job';
const byRank = { sort: [{ field: 'rank', dir: 'asc' as const }] };

/** Resolves once `release` is called; `held` resolves when fn has run inside the transaction. */
function holdTransaction<T>(ds: SqlDatasource, fn: (tx: Transaction) => Promise<T>) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let held!: (value: T) => void;
  const result = new Promise<T>((r) => (held = r));
  const done = ds.transaction(async (tx) => {
    held(await fn(tx));
    await gate;
  });
  return { result, release, done };
}

describeDialects(
  'sql driver: lockRows',
  (ns, label) => {
    let first: SqlDatasource;
    let second: SqlDatasource;
    beforeEach(async () => {
      first = ns().make();
      second = ns().make('second');
      await first.connect();
      const job = objectDef(JOB, [field('rank', 'number', { index: true }), field('state', 'text')]);
      await first.syncSchema([job]);
      await second.connect();
      await second.syncSchema([job]);
      for (let i = 1; i <= 4; i++) await first.create(JOB, { id: `j${i}`, rank: i, state: 'pending' });
    });
    afterEach(async () => {
      await first.disconnect();
      await second.disconnect();
    });

    it('skipLocked leaves out the rows another transaction holds, without waiting', async () => {
      const holder = holdTransaction(first, (tx) => first.lockRows(JOB, { ...byRank, top: 2 }, tx, { skipLocked: true }));
      try {
        const held = (await holder.result).map((r) => r.id);
        expect(held).to.deep.equal(['j1', 'j2']);
        const other = await second.transaction((tx) => second.lockRows(JOB, { ...byRank, top: 2 }, tx, { skipLocked: true }));
        expect(other.map((r) => r.id)).to.deep.equal(label === 'postgres' ? ['j3', 'j4'] : []);
      } finally {
        holder.release();
        await holder.done;
      }
    });

    it('without skipLocked, another transaction waits for the rows and then reads what was committed', async () => {
      const holder = holdTransaction(first, async (tx) => {
        const [row] = await first.lockRows(JOB, { filter: { field: 'id', op: 'eq', value: 'j1' } }, tx);
        await first.update(JOB, 'j1', { rank: Number(row.rank) + 10 }, tx);
        return row;
      });
      await holder.result;
      let waited = true;
      const other = second.transaction(async (tx) => {
        const [row] = await second.lockRows(JOB, { filter: { field: 'id', op: 'eq', value: 'j1' } }, tx);
        waited = false;
        return row;
      });
      await new Promise((r) => setTimeout(r, 150));
      expect(waited, 'the second transaction did not wait for the lock').to.equal(true);
      holder.release();
      await holder.done;
      expect((await other).rank).to.equal(11);
    });
  },
  ['postgres', 'mysql'],
);

describeDialects(
  'sql driver: lockRows',
  (ns) => {
    it('finds in the transaction (SQLite runs one transaction at a time)', async () => {
      const ds = ns().make();
      await ds.connect();
      try {
        await ds.syncSchema([objectDef(JOB, [field('rank', 'number')])]);
        await ds.create(JOB, { id: 'j1', rank: 1 });
        const rows = await ds.transaction((tx) => ds.lockRows(JOB, byRank, tx, { skipLocked: true }));
        expect(rows.map((r) => r.id)).to.deep.equal(['j1']);
      } finally {
        await ds.disconnect();
      }
    });
  },
  ['sqlite'],
);
