/**
 * The deliveries dispatcher against SQLite, PostgreSQL and MariaDB (a fresh schema or database per
 * test), with a fake action runner: retries, order per key, dead deliveries, expired claims taken
 * over, and two dispatchers sharing one table.
 */
import { expect } from 'chai';
import { ObjectQLError, type Datasource } from '../../../kernel';
import {
  DELIVERY_TABLE,
  createDeliveryQueue,
  deliveryTables,
  startDispatcher,
  startScheduler,
  type Dispatcher,
} from '../../../plugins/events/delivery';
import type { ActionRunner, NewDelivery, Workflow } from '../../../plugins/events/types';
import { pruneDeliveries } from '../../../plugins/events';
import { settleMany } from '../../../plugins/events/delivery/claim';
import { all, delivery, enqueue, fakeRunner, kernel, until, workflow, type Call } from './delivery-helpers';
import { describeDialects, type Namespace } from '../../drivers/sql/helpers';

const SETTINGS = { pollMs: 25, batch: 20, leaseSeconds: 30, concurrency: 4 };

describeDialects('events deliveries: dispatcher', (ns: () => Namespace, label) => {
  // A describe of its own: its afterEach (stop, disconnect) runs before the namespace is dropped.
  describe('on a fresh namespace', () => {
    const opened: Datasource[] = [];
    const dispatchers: Dispatcher[] = [];

    async function open(): Promise<Datasource> {
      const ds = ns().make();
      await ds.connect();
      await ds.syncSchema(deliveryTables('default'));
      opened.push(ds);
      return ds;
    }

    function dispatch(ds: Datasource, workflows: Workflow[], runner: ActionRunner, instanceId = 'a', settings = SETTINGS): Dispatcher {
      const d = startDispatcher({
        kernel,
        datasources: [ds],
        workflows: new Map(workflows.map((w) => [w.name, w])),
        runner,
        settings,
        instanceId,
      });
      dispatchers.push(d);
      return d;
    }

    afterEach(async () => {
      await Promise.all(dispatchers.splice(0).map((d) => d.stop()));
      await Promise.all(opened.splice(0).map((ds) => ds.disconnect()));
    });

    it('enqueueOnce adds a delivery once', async () => {
      const ds = await open();
      const queue = createDeliveryQueue();
      expect(await queue.enqueueOnce(ds, delivery('w', 'k', 1))).to.equal(true);
      expect(await queue.enqueueOnce(ds, delivery('w', 'k', 1))).to.equal(false);
      expect(await all(ds)).to.have.length(1);
    });

    it("runs deliveries written claimed with preclaim's claim once adopted, without a claim pass", async () => {
      const ds = await open();
      const calls: Call[] = [];
      // No poll within the test: only adopt() can start them.
      const d = dispatch(ds, [workflow('w')], fakeRunner('a', calls), 'a', { ...SETTINGS, pollMs: 60_000 });
      const claim = d.preclaim('default');
      expect(claim).to.include({ instanceId: 'a' });
      const queue = createDeliveryQueue();
      const claimed = await ds.transaction((tx) => queue.enqueue(ds, tx, [delivery('w', 'k1', 1), delivery('w', 'k2', 2)], claim));
      expect((await all(ds)).map((r) => [r.status, r.claimedBy])).to.deep.equal([
        ['claimed', 'a'],
        ['claimed', 'a'],
      ]);
      d.adopt('default', claimed);
      await until('both done', async () => (await all(ds)).every((r) => r.status === 'done'));
      expect(calls.map((c) => c.key)).to.have.members(['k1', 'k2']);
      await d.stop();
      expect(d.preclaim('default')).to.equal(undefined);
    });

    it('claims a delivery the fan-out wrote pending behind an earlier one of its key when that one ends, not at the next poll', async () => {
      const ds = await open();
      const calls: Call[] = [];
      const d = dispatch(ds, [workflow('w')], fakeRunner('a', calls, new Map(), 30), 'a', { ...SETTINGS, pollMs: 60_000 });
      // The pass at start has found nothing; no other pass comes by itself within the test.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const queue = createDeliveryQueue();
      const claimed = await ds.transaction((tx) => queue.enqueue(ds, tx, [delivery('w', 'k', 1)], d.preclaim('default')));
      await ds.transaction((tx) => queue.enqueue(ds, tx, [delivery('w', 'k', 2)]));
      d.adopt('default', claimed, 1);
      await until('both done', async () => (await all(ds)).every((r) => r.status === 'done'));
      expect(calls.map((c) => c.sequence)).to.deep.equal([1000, 2000]);
    });

    it('claims nothing new for writes while older deliveries wait unclaimed: they run first', async () => {
      const ds = await open();
      const calls: Call[] = [];
      const list: NewDelivery[] = [];
      for (let p = 1; p <= 12; p++) list.push(delivery('w', `k${p}`, p));
      await enqueue(ds, list);
      // Four claimed at a time, one running at once, each taking a while: the first pass finds more due than it can take.
      const d = dispatch(ds, [workflow('w')], fakeRunner('a', calls, new Map(), 30), 'a', { ...SETTINGS, batch: 4, concurrency: 1 });
      await until('a full claim', () => Promise.resolve(calls.length > 0 || undefined));
      expect(d.preclaim('default')).to.equal(undefined);
      await until('all done', async () => (await all(ds)).every((r) => r.status === 'done'));
      expect(calls.map((c) => c.sequence)).to.deep.equal(list.map((l) => l.sequence));
      await until('room again', () => Promise.resolve(d.preclaim('default')));
    });

    it('retention deletes old deliveries that are over and keeps those still to run or dead', async () => {
      const ds = await open();
      await enqueue(
        ds,
        ['done', 'discarded', 'dead', 'pending', 'claimed'].map((status, i) => delivery('w', status, i + 1)),
      );
      for (const status of ['done', 'discarded', 'dead', 'claimed'])
        await ds.updateWhere!(DELIVERY_TABLE, { field: 'ordering_key', op: 'eq', value: status }, { status });
      expect(await pruneDeliveries(ds, new Date(Date.now() - 60_000))).to.equal(0);
      expect(await pruneDeliveries(ds, new Date(Date.now() + 60_000), 1)).to.equal(2);
      expect((await all(ds)).map((r) => r.status)).to.deep.equal(['dead', 'pending', 'claimed']);
    });

    it('retries a failing action, then marks it done', async () => {
      const ds = await open();
      await enqueue(ds, [delivery('w', 'k1', 1)]);
      const calls: Call[] = [];
      dispatch(ds, [workflow('w')], fakeRunner('a', calls, new Map([['k1', 2]])));
      const [done] = await until('done', async () => (await all(ds)).filter((d) => d.status === 'done').length === 1 && all(ds));
      expect(done).to.include({ status: 'done', attempts: 3 });
      expect(done.claimedBy).to.equal(undefined);
      expect(calls.map((c) => c.ok)).to.deep.equal([false, false, true]);
    });

    it('runs the deliveries of one ordering key in sequence order, other keys meanwhile', async () => {
      const ds = await open();
      const list: NewDelivery[] = [];
      for (let p = 1; p <= 15; p++) list.push(delivery('w', `k${p % 3}`, p));
      await enqueue(ds, list);
      const calls: Call[] = [];
      // k0's first two runs fail: its later deliveries wait behind it, k1 and k2 go on.
      dispatch(ds, [workflow('w')], fakeRunner('a', calls, new Map([['k0', 2]])));
      await until('all done', async () => (await all(ds)).every((d) => d.status === 'done'));
      for (const key of ['k0', 'k1', 'k2']) {
        const seqs = calls.filter((c) => c.key === key).map((c) => c.sequence);
        expect(seqs, key).to.deep.equal([...seqs].sort((a, b) => a - b));
        expect(calls.filter((c) => c.key === key && c.ok)).to.have.length(5);
      }
      expect(calls.filter((c) => c.key === 'k0').map((c) => c.ok)).to.deep.equal([false, false, true, true, true, true, true]);
    });

    it('marks a delivery dead after maxAttempts with the last error; it blocks its key no longer', async () => {
      const ds = await open();
      await enqueue(ds, [delivery('w', 'k', 1), delivery('w', 'k', 2)]);
      const calls: Call[] = [];
      dispatch(ds, [workflow('w', { maxAttempts: 3, initialDelayMs: 5, maxDelayMs: 20 })], fakeRunner('a', calls, new Map([['k', 3]])));
      const rows = await until('both settled', async () => {
        const r = await all(ds);
        return r.every((d) => d.status === 'done' || d.status === 'dead') && r;
      });
      expect(rows[0]).to.include({ status: 'dead', attempts: 3, lastError: 'endpoint answered 503 for default:1:w:0' });
      expect(rows[1]).to.include({ status: 'done', attempts: 1 });
      expect(calls.map((c) => c.sequence)).to.deep.equal([1000, 1000, 1000, 2000]);
    });

    it('marks dead at once a delivery the engine refused for its input (no retry can help)', async () => {
      const ds = await open();
      await enqueue(ds, [delivery('w', 'k', 1)]);
      let runs = 0;
      const refusing: ActionRunner = {
        run() {
          runs++;
          return Promise.reject(new ObjectQLError('VALIDATION_ERROR', "Field 'budget' must be at least 0"));
        },
        async close() {},
      };
      dispatch(ds, [workflow('w')], refusing);
      const [dead] = await until('dead', async () => (await all(ds)).filter((d) => d.status === 'dead').length === 1 && all(ds));
      expect(dead).to.include({ status: 'dead', attempts: 1 });
      expect(dead.lastError).to.include("Field 'budget' must be at least 0");
      expect(runs).to.equal(1);
    });

    it('marks dead a delivery whose workflow is gone or disabled', async () => {
      const ds = await open();
      await enqueue(ds, [delivery('gone', 'k1', 1), delivery('off', 'k2', 2)]);
      const calls: Call[] = [];
      dispatch(ds, [{ ...workflow('off'), enabled: false }], fakeRunner('a', calls));
      const rows = await until('dead', async () => {
        const r = await all(ds);
        return r.every((d) => d.status === 'dead') && r;
      });
      expect(rows.map((d) => d.lastError)).to.deep.equal(["workflow 'gone' no longer exists", "workflow 'off' is disabled"]);
      expect(calls).to.have.length(0);
    });

    it('writes outcomes only for the claims still held: a claim taken over meanwhile is left to its new owner', async () => {
      const ds = await open();
      const until = new Date(Date.now() + 60_000).toISOString();
      await ds.transaction((tx) =>
        createDeliveryQueue().enqueue(ds, tx, [delivery('w', 'k1', 1), delivery('w', 'k2', 2), delivery('w', 'k3', 3)], {
          instanceId: 'a',
          until,
        }),
      );
      const done = { status: 'done', attempts: 1, last_error: null };
      expect([...(await settleMany(ds, 'a', [{ id: 'default:1:w:0', data: done }]))]).to.deep.equal(['default:1:w:0']);
      await ds.update(DELIVERY_TABLE, 'default:2:w:0', { claimed_by: 'b' });
      const retry = { status: 'pending', attempts: 1, next_at: until, last_error: 'boom' };
      const written = await settleMany(ds, 'a', [
        { id: 'default:2:w:0', data: done },
        { id: 'default:3:w:0', data: retry },
      ]);
      expect([...written]).to.deep.equal(['default:3:w:0']);
      expect((await all(ds)).map((d) => [d.status, d.claimedBy ?? null, d.lastError ?? null])).to.deep.equal([
        ['done', null, null],
        ['claimed', 'b', null],
        ['pending', null, 'boom'],
      ]);
    });

    it("takes over a claim whose lease expired (a killed instance's), not a live one", async () => {
      const ds = await open();
      await enqueue(ds, [delivery('w', 'k1', 1), delivery('w', 'k2', 2), delivery('w', 'k2', 3)]);
      const past = new Date(Date.now() - 1000).toISOString();
      const future = new Date(Date.now() + 60_000).toISOString();
      await ds.update(DELIVERY_TABLE, 'default:1:w:0', { status: 'claimed', claimed_by: 'killed', claimed_until: past });
      await ds.update(DELIVERY_TABLE, 'default:2:w:0', { status: 'claimed', claimed_by: 'alive', claimed_until: future });
      const calls: Call[] = [];
      dispatch(ds, [workflow('w')], fakeRunner('b', calls), 'b');
      await until('the expired one done', async () => (await all(ds))[0].status === 'done');
      await new Promise((r) => setTimeout(r, 200));
      const rows = await all(ds);
      expect(rows.map((d) => d.status)).to.deep.equal(['done', 'claimed', 'pending']);
      expect(rows[1].claimedBy).to.equal('alive');
      expect(calls.map((c) => c.id)).to.deep.equal(['default:1:w:0']);
    });

    it('stops claiming at stop() and waits for the running action', async () => {
      const ds = await open();
      await enqueue(ds, [delivery('w', 'k1', 1), delivery('w', 'k1', 2)]);
      const calls: Call[] = [];
      const slow = fakeRunner('a', calls, new Map(), 300);
      let started = false;
      const runner: ActionRunner = {
        run: (action, context) => {
          started = true;
          return slow.run(action, context);
        },
        close: () => slow.close(),
      };
      const d = dispatch(ds, [workflow('w')], runner);
      // The action itself under way (its claim committed is not enough: the pass may not be back yet).
      await until('running', () => Promise.resolve(started));
      await d.stop();
      const rows = await all(ds);
      expect(rows.map((r) => r.status)).to.deep.equal(['done', 'pending']);
      expect(rows[1].claimedBy).to.equal(undefined);
    });

    it('schedules: two schedulers enqueue each due minute once, one delivery per action', async () => {
      const ds = await open();
      const wf: Workflow = { ...workflow('nightly'), trigger: { kind: 'schedule', cron: '*/2 * * * *' } };
      wf.actions = [wf.actions[0], wf.actions[0]];
      let clock = Date.parse('2024-01-01T00:00:30Z');
      let woken = 0;
      const make = () =>
        startScheduler({
          kernel,
          datasource: ds,
          workflows: new Map([[wf.name, wf]]),
          queue: createDeliveryQueue(),
          wake: () => woken++,
          now: () => clock,
        });
      const schedulers = [make(), make()];
      try {
        clock = Date.parse('2024-01-01T00:04:10Z');
        for (const s of schedulers) await s.tick();
        const ids = (await all(ds)).map((d) => d.id);
        expect(ids).to.deep.equal([
          'nightly:2024-01-01T00:02:00.000Z:0',
          'nightly:2024-01-01T00:02:00.000Z:1',
          'nightly:2024-01-01T00:04:00.000Z:0',
          'nightly:2024-01-01T00:04:00.000Z:1',
        ]);
        expect((await all(ds))[0]).to.include({ orderingKey: 'nightly:schedule', status: 'pending' });
        expect(woken).to.equal(1);
      } finally {
        for (const s of schedulers) await s.stop();
      }
    });

    if (label !== 'sqlite') {
      it('shares 200 deliveries over 20 keys between two dispatchers: each run once, in order per key', async function () {
        this.timeout(60_000);
        const one = await open();
        const two = await open();
        const list: NewDelivery[] = [];
        for (let p = 1; p <= 200; p++) list.push(delivery('w', `k${p % 20}`, p));
        await enqueue(one, list);
        const calls: Call[] = [];
        const settings = { pollMs: 20, batch: 10, leaseSeconds: 30, concurrency: 4 };
        dispatch(one, [workflow('w')], fakeRunner('a', calls, new Map(), 3), 'a', settings);
        dispatch(two, [workflow('w')], fakeRunner('b', calls, new Map(), 3), 'b', settings);
        await until(
          'all done',
          async () => (await one.count(DELIVERY_TABLE, { field: 'status', op: 'eq', value: 'done' })) === 200,
          50_000,
        );
        expect(calls).to.have.length(200);
        expect(new Set(calls.map((c) => c.id)).size).to.equal(200);
        for (let k = 0; k < 20; k++) {
          const seqs = calls.filter((c) => c.key === `k${k}`).map((c) => c.sequence);
          expect(seqs).to.deep.equal([...seqs].sort((a, b) => a - b));
        }
        const byA = calls.filter((c) => c.by === 'a').length;
        console.log(`      (instance a ran ${byA}, instance b ${200 - byA})`);
      });
    }
  });
});
