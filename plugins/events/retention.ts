/**
 * Retention: events, and deliveries that are over (done or discarded), older than `retentionHours`
 * are deleted, hourly, in batches of a short transaction each (no long one holds the outbox).
 * Deliveries carry their own copy of the event they deliver, so pruning the feed never loses a
 * delivery. While some workflow watches records, events the fan-out has not read yet
 * (delivery/fanout.ts) are kept, however old: their deliveries are still to be made.
 */
import type { Datasource, Filter, Logger } from '../../kernel';
import { DELIVERY_TABLE } from './delivery/table';
import { COUNTER_TABLE, EVENT_TABLE, FANOUT_CURSOR } from './tables';

const BATCH = 200;
const HOUR_MS = 3_600_000;

/**
 * Deletes the events recorded before `before` from one datasource's outbox; returns how many. An
 * event's time is stamped once its position is handed out, so times follow positions: the expired
 * events are the oldest positions, read along the position index until the first that is not
 * expired. (An instance whose clock runs ahead can hold back the ones after its events by that
 * much.) No index on the time: every write would pay for it. With `keepUnread`, events after the
 * fan-out's cursor stay.
 */
export async function pruneEvents(ds: Datasource, before: Date, { batch = BATCH, keepUnread = true } = {}): Promise<number> {
  const cutoff = before.getTime();
  const [cursor] = keepUnread
    ? await ds.find(COUNTER_TABLE, { filter: { field: 'id', op: 'eq', value: FANOUT_CURSOR }, fields: ['value'] })
    : [];
  const filter: Filter | undefined = cursor ? { field: 'position', op: 'le', value: Number(cursor.value) } : undefined;
  let deleted = 0;
  for (;;) {
    const rows = await ds.find(EVENT_TABLE, { filter, fields: ['id', 'at'], sort: [{ field: 'position', dir: 'asc' }], top: batch });
    const expired = rows.findIndex((row) => !(timeOf(row.at) < cutoff));
    const ids = (expired < 0 ? rows : rows.slice(0, expired)).map((row) => String(row.id));
    deleted += await deleteIds(ds, EVENT_TABLE, ids);
    if (expired >= 0 || rows.length < batch) return deleted;
  }
}

function timeOf(at: unknown): number {
  return at instanceof Date ? at.getTime() : Date.parse(String(at));
}

/**
 * Deletes the deliveries created before `before` that are over (done or discarded); pending,
 * claimed and dead ones stay, whatever their age: they are still to run or to be seen to.
 */
export function pruneDeliveries(ds: Datasource, before: Date, batch = BATCH): Promise<number> {
  const filter: Filter = {
    and: [
      { field: 'created_at', op: 'lt', value: before.toISOString() },
      { field: 'status', op: 'in', value: ['done', 'discarded'] },
    ],
  };
  return pruneRows(ds, DELIVERY_TABLE, filter, 'created_at', batch);
}

/** Deletes what the filter matches, oldest first, `batch` rows per transaction; returns how many. */
async function pruneRows(ds: Datasource, table: string, filter: Filter, oldest: string, batch: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const rows = await ds.find(table, { filter, fields: ['id'], sort: [{ field: oldest, dir: 'asc' }], top: batch });
    deleted += await deleteIds(
      ds,
      table,
      rows.map((row) => String(row.id)),
    );
    if (rows.length < batch) return deleted;
  }
}

/** Deletes rows by id in one short transaction; returns how many were there. */
function deleteIds(ds: Datasource, table: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return Promise.resolve(0);
  return ds.transaction(async (tx) => {
    let n = 0;
    for (const id of ids) if (await ds.delete(table, id, tx)) n++;
    return n;
  });
}

/** Prunes every outbox `retentionHours` back, hourly until stopped; the timer keeps no process alive. */
export class Retention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly outboxes: () => Datasource[],
    private readonly retentionHours: number,
    private readonly logger: Logger,
    /** Whether some workflow watches records: events the fan-out has not read then stay. */
    private readonly watching: () => boolean,
    private readonly everyMs = HOUR_MS,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.run(), this.everyMs);
    this.timer.unref();
  }

  /** One pass over every outbox (not two at once); returns the events deleted. */
  async run(now = new Date()): Promise<number> {
    if (this.running) return 0;
    const before = new Date(now.getTime() - this.retentionHours * HOUR_MS);
    const pass = (async () => {
      let total = 0;
      for (const ds of this.outboxes()) {
        try {
          total += await pruneEvents(ds, before, { keepUnread: this.watching() });
          total += await pruneDeliveries(ds, before);
        } catch (err) {
          this.logger.warn({ err, datasource: ds.name }, 'events: pruning old events and deliveries failed');
        }
      }
      if (total > 0) this.logger.info({ deleted: total, before: before.toISOString() }, 'events: old events and deliveries pruned');
      return total;
    })();
    this.running = pass;
    try {
      return await pass;
    } finally {
      this.running = undefined;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }
}
