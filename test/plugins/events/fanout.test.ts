/**
 * The fan-out against SQLite, PostgreSQL and MariaDB (a fresh schema or database per test): the
 * deliveries of committed events are made from the feed, once, past events no workflow fires, in
 * batches, claimed up to the dispatcher's room; and two instances' fan-outs racing over a burst of
 * concurrent writes make each delivery exactly once.
 */
import { expect } from 'chai';
import type { Datasource, RecordChange, Transaction, TransactionOptions } from '../../../kernel';
import { DELIVERY_TABLE, createDeliveryQueue, deliveryTables, fanOut, fanOutBacklog } from '../../../plugins/events/delivery';
import { Outbox } from '../../../plugins/events/store';
import { COUNTER_TABLE, FANOUT_CURSOR, outboxTables } from '../../../plugins/events/tables';
import { Triggers } from '../../../plugins/events/workflows';
import { pruneEvents } from '../../../plugins/events';
import { all, delivery, enqueue, workflow } from './delivery-helpers';
import { describeDialects, type Namespace } from '../../drivers/sql/helpers';

describeDialects('events: fan-out', (ns: () => Namespace, label) => {
  describe('on a fresh namespace', () => {
    const opened: Datasource[] = [];
    const outbox = new Outbox({ datasources: () => ['default'] });
    const queue = createDeliveryQueue();
    const triggers = new Triggers();
    // w fires on every created task; `done` on tasks updated to status done; nothing watches `note`.
    triggers.set([
      workflow('w'),
      { ...workflow('done'), trigger: { kind: 'record', object: 'task', events: ['updated'], to: { status: 'done' } } },
    ]);

    async function open(): Promise<Datasource> {
      const ds = ns().make();
      await ds.connect();
      await ds.syncSchema([...outboxTables('default'), ...deliveryTables('default')]);
      await outbox.prepare(ds);
      opened.push(ds);
      return ds;
    }

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((ds) => ds.disconnect()));
    });

    /** Records one change in a transaction of its own, as a write does. */
    function write(ds: Datasource, change: Partial<RecordChange> & { id: string }): Promise<unknown> {
      const full: RecordChange = { type: 'created', object: 'task', record: { id: change.id, status: 'open' }, ...change };
      return ds.transaction((tx) => outbox.record(full, ds, tx));
    }

    const cursor = async (ds: Datasource) =>
      Number((await ds.find(COUNTER_TABLE, { filter: { field: 'id', op: 'eq', value: FANOUT_CURSOR } }))[0].value);

    it('makes the deliveries of committed events once, past events no workflow fires, and leaves earlier events alone', async () => {
      const ds = await open();
      await write(ds, { id: 't1' });
      await write(ds, { id: 'n1', object: 'note' });
      await write(ds, { id: 't1', type: 'updated', record: { id: 't1', status: 'done' }, previous: { id: 't1', status: 'open' } });
      await write(ds, { id: 't2', type: 'updated', record: { id: 't2', status: 'open' }, previous: { id: 't2', status: 'new' } });
      expect(await fanOutBacklog(ds)).to.deep.equal({ datasource: 'default', feed: 4, fanout: 0, behind: 4 });
      const first = await fanOut(ds, { triggers, queue });
      expect(first).to.deep.include({ pending: 2, more: false, full: false });
      expect(await fanOutBacklog(ds)).to.deep.include({ fanout: 4, behind: 0 });
      const rows = await all(ds);
      expect(rows.map((d) => [d.id, d.status, d.orderingKey, d.sequence])).to.deep.equal([
        ['default:1:w:0', 'pending', 'w:task:t1', 1000],
        ['default:3:done:0', 'pending', 'done:task:t1', 3000],
      ]);
      expect(rows[1].payload.event).to.deep.include({ position: 3, operation: 'updated', recordId: 't1', fields: ['status'] });
      expect(await cursor(ds)).to.equal(4);
      expect(await fanOut(ds, { triggers, queue })).to.deep.include({ pending: 0, more: false });
      expect(await all(ds)).to.have.length(2);

      // A second datasource opened on the same store finds the cursor where it is.
      const again = await open();
      expect(await cursor(again)).to.equal(4);
    });

    it("starts a new cursor at the feed's end: events recorded before it had their deliveries made in their writes", async () => {
      const ds = await open();
      await write(ds, { id: 't1' });
      await ds.delete(COUNTER_TABLE, FANOUT_CURSOR);
      await outbox.prepare(ds);
      expect(await cursor(ds)).to.equal(1);
      await write(ds, { id: 't2' });
      await fanOut(ds, { triggers, queue });
      expect((await all(ds)).map((d) => d.id)).to.deep.equal(['default:2:w:0']);
    });

    it('leaves out deliveries an older instance made in its write (a rolling upgrade), and makes the rest', async () => {
      const ds = await open();
      await write(ds, { id: 't1' });
      await write(ds, { id: 't2' });
      await enqueue(ds, [delivery('w', 'w:task:t2', 2)]);
      expect(await fanOut(ds, { triggers, queue })).to.deep.include({ pending: 1, more: false });
      expect((await all(ds)).map((d) => d.id)).to.deep.equal(['default:1:w:0', 'default:2:w:0']);
      expect(await cursor(ds)).to.equal(2);
    });

    it('reads at most a batch per pass', async () => {
      const ds = await open();
      for (let i = 1; i <= 5; i++) await write(ds, { id: `t${i}` });
      expect(await fanOut(ds, { triggers, queue, batch: 3 })).to.deep.include({ pending: 3, more: true, full: false });
      expect(await cursor(ds)).to.equal(3);
      expect(await fanOut(ds, { triggers, queue, batch: 3 })).to.deep.include({ pending: 2, more: false, full: false });
      expect((await all(ds)).map((d) => d.sequence)).to.deep.equal([1000, 2000, 3000, 4000, 5000]);
    });

    it('with a dispatcher, makes only what it has room for, claimed; the other events wait in the feed', async () => {
      const ds = await open();
      for (let i = 1; i <= 5; i++) await write(ds, { id: `t${i}` });
      await write(ds, { id: 'n1', object: 'note' });
      const claim = (room: number) => () => ({ instanceId: 'a', until: new Date(Date.now() + 60_000).toISOString(), room });
      const first = await fanOut(ds, { triggers, queue, preclaim: claim(2) });
      expect(first).to.deep.include({ pending: 0, more: false, full: true });
      expect(first.claimed.map((d) => d.id)).to.deep.equal(['default:1:w:0', 'default:2:w:0']);
      expect(await cursor(ds)).to.equal(2);
      // No room at all: nothing made, the cursor stays.
      expect(await fanOut(ds, { triggers, queue, preclaim: () => undefined })).to.deep.include({ pending: 0, full: true });
      expect(await cursor(ds)).to.equal(2);
      const rest = await fanOut(ds, { triggers, queue, preclaim: claim(10) });
      expect(rest).to.deep.include({ full: false, more: false });
      expect(rest.claimed.map((d) => d.sequence)).to.deep.equal([3000, 4000, 5000]);
      // Past the event no workflow fires, to the feed's end.
      expect(await cursor(ds)).to.equal(6);
      expect((await all(ds)).every((d) => d.status === 'claimed' && d.claimedBy === 'a')).to.equal(true);
    });

    it('with a dispatcher, writes pending what an earlier delivery of its key still holds back; claims the rest', async () => {
      const ds = await open();
      const claim = () => ({ instanceId: 'a', until: new Date(Date.now() + 60_000).toISOString(), room: 10 });
      const done = (id: string) => write(ds, { id, type: 'updated', record: { id, status: 'done' }, previous: { id, status: 'open' } });
      await done('t1');
      expect((await fanOut(ds, { triggers, queue, preclaim: claim })).claimed.map((d) => d.sequence)).to.deep.equal([1000]);
      // t1's first delivery is still to run (claimed): its second waits behind it. t2's two run as one chain.
      await done('t1');
      await done('t2');
      await done('t2');
      const second = await fanOut(ds, { triggers, queue, preclaim: claim });
      expect(second).to.deep.include({ pending: 1, full: false, more: false });
      expect(second.claimed.map((d) => d.sequence)).to.deep.equal([3000, 4000]);
      expect((await all(ds)).map((d) => [d.sequence, d.status])).to.deep.equal([
        [1000, 'claimed'],
        [2000, 'pending'],
        [3000, 'claimed'],
        [4000, 'claimed'],
      ]);
    });

    it('a pass whose cursor another pass moved after it read writes nothing and leaves the cursor', async () => {
      const ds = await open();
      const other = await open();
      for (let i = 1; i <= 3; i++) await write(ds, { id: `t${i}` });
      // Between this pass's reads and its transaction, another instance's pass takes the events.
      const transaction = ds.transaction.bind(ds);
      let raced: Promise<unknown> | undefined;
      ds.transaction = async <T>(fn: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T> => {
        raced ??= fanOut(other, { triggers, queue });
        await raced;
        return transaction(fn, options);
      };
      expect(await fanOut(ds, { triggers, queue })).to.deep.include({ pending: 0, more: true });
      expect(await raced).to.deep.include({ pending: 3 });
      expect(await cursor(ds)).to.equal(3);
      expect((await all(ds)).map((d) => d.id)).to.deep.equal(['default:1:w:0', 'default:2:w:0', 'default:3:w:0']);
    });

    it('keeps events the fan-out has not read from retention', async () => {
      const ds = await open();
      for (let i = 1; i <= 3; i++) await write(ds, { id: `t${i}` });
      const future = new Date(Date.now() + 60_000);
      expect(await pruneEvents(ds, future)).to.equal(0);
      await fanOut(ds, { triggers, queue, batch: 2 });
      expect(await pruneEvents(ds, future)).to.equal(2);
      expect(await pruneEvents(ds, future, { keepUnread: false })).to.equal(1);
    });

    if (label !== 'sqlite') {
      it('two instances fanning out during 200 concurrent writes make each delivery exactly once', async function () {
        this.timeout(60_000);
        const a = await open();
        const b = await open();
        let writing = true;
        const passes = { a: 0, b: 0 };
        const fanning = (ds: Datasource, who: 'a' | 'b') =>
          (async () => {
            while (writing) {
              await fanOut(ds, { triggers, queue, batch: 7 });
              passes[who]++;
            }
          })();
        const loops = [fanning(a, 'a'), fanning(b, 'b')];
        const writers = Array.from({ length: 8 }, (_, w) =>
          (async () => {
            for (let i = 0; i < 25; i++) await write(w % 2 ? a : b, { id: `t${w}-${i}` });
          })(),
        );
        await Promise.all(writers);
        writing = false;
        await Promise.all(loops);
        while ((await fanOut(a, { triggers, queue })).more);
        const rows = await a.find(DELIVERY_TABLE, { fields: ['id', 'sequence'] });
        expect(rows).to.have.length(200);
        expect(new Set(rows.map((r) => Number(r.sequence))).size).to.equal(200);
        expect(await cursor(a)).to.equal(200);
        expect(passes.a + passes.b).to.be.greaterThan(2);
      });
    }
  });
});
