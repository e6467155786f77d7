/**
 * The fan-out: makes the deliveries of committed events, from the feed, after their writes.
 *
 * A write records its event and nothing more (store.ts). A fan-out pass then reads the cursor
 * (`objectql_event_counter` 'fanout': the last position whose deliveries were made) and the events
 * after it that a workflow may watch, and works out one delivery per action of every workflow each
 * event fires (workflows/triggers.ts); then, in one transaction per datasource, it locks the cursor
 * row, and if the cursor has not moved meanwhile writes the deliveries and moves it on.
 * Many events share one transaction and one commit, which a write paying for its own deliveries
 * cannot do, and the section every write of a datasource waits in (the feed counter's lock) holds
 * no delivery.
 *
 * - Nothing is skipped: positions are handed out under the feed counter's lock, held until commit,
 *   so when the counter reads N every event up to N has committed. The pass reads the counter
 *   first, then the events up to it.
 * - Nothing is made twice: a pass writes only if the cursor, locked, is still where it read it, and
 *   deliveries and cursor commit together. A pass the store undoes (a crash) leaves the cursor
 *   where it was: the next pass makes the same deliveries, with the same ids. So its commit need not
 *   wait for the disk; the events it reads did.
 * - The order per record holds: a delivery's sequence comes from its event's position, as before.
 * - Which workflows an event fires is decided when the pass reads it, with the workflows loaded
 *   then: usually a few milliseconds after the write, or after a restart for events committed
 *   just before a crash.
 *
 * Passes run after a local commit of a watched object's change (`wake`), every `pollMs` (other
 * instances' writes, and this instance's if a pass failed), once at start, and when the dispatcher
 * has room again after a pass stopped for want of it (`roomFreed`); never two at once for one
 * datasource, and at most one per batch window (window.ts).
 *
 * Backpressure: a pass makes only the deliveries this instance's dispatcher has room for (`batch`
 * waiting to start, `preclaim`), written claimed by it and handed to it once committed (`adopt`),
 * but for those an earlier delivery of their key holds back (written pending, claim.ts); the events
 * after wait in the feed, durable, for the next pass here or on another instance with room. So a
 * delivery made is one about to run, and under overload the deliveries table does not fill with
 * pending rows each to be claimed again.
 */
import { ObjectQLError, type Datasource, type Kernel } from '../../../kernel';
import { COUNTER_TABLE, EVENT_TABLE, FANOUT_CURSOR, FEED_COUNTER, fromRow } from '../tables';
import type { Delivery, DeliveryQueue, NewDelivery, Preclaim } from '../types';
import type { Triggers } from '../workflows/triggers';
import { mayRunNow, retryingTransaction } from './claim';
import { DELIVERY_TABLE, errorText } from './table';
import { Passes } from './passes';
import { BatchWindow } from './window';

/** Events read by one pass at most. */
export const FANOUT_BATCH = 500;

export interface FanOutResult {
  /** Deliveries written claimed by this instance, to adopt: their keys' order lets them run now. */
  claimed: Delivery[];
  /** Deliveries written pending: all of them without a claim, else those held back by an earlier one of their key. */
  pending: number;
  /** The pass stopped at its batch: more events wait. */
  more: boolean;
  /** The pass stopped where the dispatcher had no more room: the events after wait for it. */
  full: boolean;
}

export interface FanOutOptions {
  triggers: Triggers;
  queue: DeliveryQueue;
  /**
   * A claim for up to `room` new deliveries, when this instance's dispatcher has room. Given, a pass
   * makes only deliveries it claims; not given (tests), it makes them all, pending.
   */
  preclaim?: () => (Preclaim & { room: number }) | undefined;
  batch?: number;
}

const idIs = (id: string) => ({ field: 'id', op: 'eq' as const, value: id });

/**
 * One pass over one datasource's feed (see above). A delivery whose id exists already was made by
 * an instance of the version before this design, in its write's transaction (a rolling upgrade):
 * the insert then conflicts, and the pass is made again leaving those out.
 */
export async function fanOut(ds: Datasource, options: FanOutOptions): Promise<FanOutResult> {
  try {
    return await fanOutOnce(ds, options, false);
  } catch (err) {
    if (!(err instanceof ObjectQLError && err.code === 'CONFLICT')) throw err;
    return fanOutOnce(ds, options, true);
  }
}

async function fanOutOnce(ds: Datasource, options: FanOutOptions, skipExisting: boolean): Promise<FanOutResult> {
  // With a dispatcher, only the events whose deliveries it has room for: the others wait in the
  // feed (at least one event is taken while there is any room). No room, no pass.
  const claim = options.preclaim?.();
  if (options.preclaim && !claim) return { claimed: [], pending: 0, more: false, full: true };
  const room = claim ? claim.room : Infinity;
  // Read before the transaction: its locks (the cursor's row; SQLite's one writer, which every
  // write of the datasource waits for) are then held only to write.
  const read = await readPass(ds, options, room);
  if (!read) return { claimed: [], pending: 0, more: false, full: false };
  return retryingTransaction(ds, async (tx) => {
    const [cursor] = await ds.lockRows!(COUNTER_TABLE, { filter: idIs(FANOUT_CURSOR), fields: ['value'] }, tx);
    // Another pass (this instance's or another's) moved the cursor meanwhile: what was read is its.
    if (Number(cursor?.value) !== read.from) return { claimed: [], pending: 0, more: true, full: false };
    let deliveries = read.deliveries;
    if (skipExisting && deliveries.length > 0) {
      const ids = deliveries.map((d) => d.id);
      const existing = await ds.find(DELIVERY_TABLE, { filter: { field: 'id', op: 'in', value: ids }, fields: ['id'] }, tx);
      const made = new Set(existing.map((row) => String(row.id)));
      deliveries = deliveries.filter((d) => !made.has(d.id));
    }
    let claimed: Delivery[] = [];
    let pending = deliveries;
    if (claim) {
      // Claimed only where the order of their keys lets them run now (claim.ts): no earlier
      // delivery of their key still to run. The others wait, pending, behind it.
      const runnable = await mayRunNow(ds, deliveries, tx);
      const now = new Set(runnable.map((d) => d.id));
      pending = deliveries.filter((d) => !now.has(d.id));
      if (runnable.length > 0) claimed = await options.queue.enqueue(ds, tx, runnable, claim);
    }
    if (pending.length > 0) await options.queue.enqueue(ds, tx, pending);
    await ds.updateWhere!(COUNTER_TABLE, idIs(FANOUT_CURSOR), { value: read.upto }, tx);
    return { claimed, pending: pending.length, more: read.more, full: read.full };
  });
}

interface PassRead {
  /** The cursor the pass read: the transaction writes only if it still is. */
  from: number;
  /** Where the cursor moves. */
  upto: number;
  deliveries: NewDelivery[];
  more: boolean;
  full: boolean;
}

/**
 * The cursor, then the feed counter, then the events between them a workflow may watch, and the
 * deliveries they make (no more than `room`); undefined when the cursor is at the feed's end.
 * Every event up to the counter has committed (positions are handed out under the counter's lock,
 * held until commit), so reading them outside the pass's transaction skips none.
 */
async function readPass(ds: Datasource, options: FanOutOptions, room: number): Promise<PassRead | undefined> {
  const { cursor: from, feed } = await counters(ds);
  if (from === undefined) {
    throw new Error(`events: the fan-out cursor of datasource '${ds.name}' is missing (it is created at start)`);
  }
  const end = feed ?? from;
  if (end <= from) return undefined;
  // Events read: no more than twice the room (conditions may pass some over).
  const batch = Math.min(options.batch ?? FANOUT_BATCH, room * 2);
  const objects = options.triggers.objects();
  const events =
    objects.length === 0
      ? []
      : await ds.find(EVENT_TABLE, {
          filter: {
            and: [
              { field: 'position', op: 'gt', value: from },
              { field: 'position', op: 'le', value: end },
              { field: 'object', op: 'in', value: objects },
            ],
          },
          sort: [{ field: 'position', dir: 'asc' }],
          top: batch,
        });
  const deliveries: NewDelivery[] = [];
  let upto = from;
  let full = false;
  for (const row of events) {
    const made = options.triggers.deliveriesOf(fromRow(ds.name, row));
    if (made.length > 0 && deliveries.length > 0 && deliveries.length + made.length > room) {
      full = true;
      break;
    }
    deliveries.push(...made);
    upto = Number(row.position);
  }
  const more = !full && events.length >= batch;
  if (!full && !more) upto = end;
  return { from, upto, deliveries, more, full };
}

/** How far the fan-out of one datasource is behind its feed: events whose deliveries are still to be made, at most. */
export interface FanOutBacklog {
  datasource: string;
  /** The feed's last position. */
  feed: number;
  /** The last position the fan-out went past. */
  fanout: number;
  /** feed − fanout: events not read by the fan-out yet (of every object; only watched ones make deliveries). */
  behind: number;
}

export async function fanOutBacklog(ds: Datasource): Promise<FanOutBacklog> {
  const read = await counters(ds);
  const feed = read.feed ?? 0;
  const fanout = Math.min(feed, read.cursor ?? 0);
  return { datasource: ds.name, feed, fanout, behind: feed - fanout };
}

/** The fan-out's cursor and the feed counter, read together (one statement, one snapshot); undefined where a row is missing. */
async function counters(ds: Datasource): Promise<{ cursor: number | undefined; feed: number | undefined }> {
  const rows = await ds.find(COUNTER_TABLE, { filter: { field: 'id', op: 'in', value: [FANOUT_CURSOR, FEED_COUNTER] } });
  const value = (id: string) => {
    const row = rows.find((r) => r.id === id);
    return row === undefined ? undefined : Number(row.value);
  };
  return { cursor: value(FANOUT_CURSOR), feed: value(FEED_COUNTER) };
}

export interface FanOutLoopOptions extends FanOutOptions {
  kernel: Kernel;
  pollMs: number;
  /** The dispatcher's room (Dispatcher.preclaim): the loop makes only deliveries it claims, never pending ones. */
  preclaim: NonNullable<FanOutOptions['preclaim']>;
  /** Runs deliveries written claimed, once committed; `heldBack` were written pending behind an earlier one of their key (Dispatcher.adopt). */
  adopt(deliveries: Delivery[], heldBack: number): void;
  /** How often passes may start (window.ts); default BATCH_WINDOW_MS. */
  windowMs?: number;
}

/** Fan-out passes over one datasource, one at a time (see above). */
export class FanOutLoop {
  private stopped = false;
  private readonly passes = new Passes(() => this.pass());
  private poll: NodeJS.Timeout | undefined;
  /** The last pass stopped for want of room in the dispatcher. */
  private waitingForRoom = false;
  private readonly window: BatchWindow;
  private readonly log: Kernel['logger'];

  constructor(
    private readonly ds: Datasource,
    private readonly options: FanOutLoopOptions,
  ) {
    this.window = new BatchWindow(options.windowMs);
    this.log = options.kernel.logger.child({ plugin: 'events', datasource: ds.name });
  }

  start(): void {
    this.poll = setInterval(() => this.wake(), this.options.pollMs);
    this.poll.unref();
    this.wake();
  }

  wake(): void {
    this.passes.wake();
  }

  private async pass(): Promise<void> {
    // The commits of one batch window share a pass.
    await this.window.turn();
    for (let more = true; more && !this.stopped;) {
      let result: FanOutResult;
      try {
        result = await fanOut(this.ds, this.options);
      } catch (err) {
        this.log.warn({ err: errorText(err) }, 'events: making deliveries from the feed failed; trying again at the next poll');
        return;
      }
      if (result.claimed.length > 0 || result.pending > 0) this.options.adopt(result.claimed, result.pending);
      this.waitingForRoom = result.full;
      more = result.more;
    }
  }

  /** The dispatcher has room again: a pass, if the last one stopped for want of it. */
  roomFreed(): void {
    if (!this.waitingForRoom) return;
    this.waitingForRoom = false;
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    await this.passes.stop();
  }
}
