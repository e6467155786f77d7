/**
 * Retention: events older than `retentionHours` are deleted, hourly, in batches (each its own
 * statement, so no long transaction holds the outbox). Deliveries carry their own copy of the event
 * they deliver, so pruning the feed never loses a delivery.
 */
import type { Datasource, Logger } from '../../kernel';
import { EVENT_TABLE } from './tables';

const BATCH = 500;
const HOUR_MS = 3_600_000;

/** Deletes the events recorded before `before` from one datasource's outbox; returns how many. */
export async function pruneEvents(ds: Datasource, before: Date, batch = BATCH): Promise<number> {
  let deleted = 0;
  const filter = { field: 'at', op: 'lt' as const, value: before.toISOString() };
  for (;;) {
    const rows = await ds.find(EVENT_TABLE, { filter, fields: ['id'], sort: [{ field: 'position', dir: 'asc' }], top: batch });
    for (const row of rows) if (await ds.delete(EVENT_TABLE, String(row.id))) deleted++;
    if (rows.length < batch) return deleted;
  }
}

/** Prunes every outbox `retentionHours` back, hourly until stopped; the timer keeps no process alive. */
export class Retention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly outboxes: () => Datasource[],
    private readonly retentionHours: number,
    private readonly logger: Logger,
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
          total += await pruneEvents(ds, before);
        } catch (err) {
          this.logger.warn({ err, datasource: ds.name }, 'events: pruning old events failed');
        }
      }
      if (total > 0) this.logger.info({ deleted: total, before: before.toISOString() }, 'events: old events pruned');
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
