/**
 * The outbox: inside each write's transaction (the kernel's `recordChanging` hook) it numbers the
 * change and stores it as an event, so an event exists exactly when its change committed, and a
 * rolled-back write leaves nothing behind. The deliveries of the workflows an event triggers are
 * made from the feed after commit (delivery/fanout.ts), not here: a write pays for its event only,
 * whatever workflows watch it.
 *
 * Positions: the write's transaction raises the counter row of the datasource (one statement,
 * Datasource.increment), which locks the row until that transaction ends. A second write waits for
 * it, so positions are handed out in commit order, one after another, without gaps. The rows are
 * created at start, never inside a write (two writes creating one at once would conflict).
 */
import { isDeepStrictEqual } from 'node:util';
import { ObjectQLError, type DataRecord, type Datasource, type RecordChange, type Transaction } from '../../kernel';
import { COUNTER_TABLE, EVENT_TABLE, FANOUT_CURSOR, FEED_COUNTER, toRow } from './tables';
import type { Operation, StoredEvent } from './types';

/** Fields that change on every update: not a change of their own. */
const STAMPS = new Set(['updated_at', 'updated_by']);

const OPERATIONS: Record<RecordChange['type'], Operation> = { created: 'created', updated: 'updated', deleted: 'deleted' };

export interface OutboxDeps {
  /** The datasources that keep an outbox, by name (known once the plugin started). */
  datasources(): readonly string[];
  now?: () => Date;
}

export class Outbox {
  constructor(private readonly deps: OutboxDeps) {}

  /** Whether this datasource keeps an outbox. */
  keeps(datasource: string): boolean {
    return this.deps.datasources().includes(datasource);
  }

  /**
   * Makes sure the counter rows exist (at start, outside any write). A new feed counter starts
   * after the highest position already stored, should the row have been lost; a new fan-out cursor
   * starts at the feed's end: events recorded before it existed had their deliveries made already,
   * in their writes.
   */
  async prepare(ds: Datasource): Promise<void> {
    const [last] = await ds.find(EVENT_TABLE, { fields: ['position'], sort: [{ field: 'position', dir: 'desc' }], top: 1 });
    const end = last ? Number(last.position) : 0;
    await createOnce(ds, FEED_COUNTER, end);
    await createOnce(ds, FANOUT_CURSOR, end);
  }

  /**
   * Records one change inside its write's transaction (the `recordChanging` tap): returns its
   * event, or undefined when the datasource keeps no outbox. Sets `change.position`.
   */
  async record(change: RecordChange, ds: Datasource, tx: Transaction): Promise<StoredEvent | undefined> {
    if (!this.keeps(ds.name)) return undefined;
    if (!ds.increment) throw new Error(`events: datasource '${ds.name}' cannot lock rows, so it cannot keep an outbox`);
    // One statement takes the counter's lock and the next position.
    const position = await ds.increment(COUNTER_TABLE, FEED_COUNTER, 'value', 1, tx);
    if (position === undefined)
      throw new Error(`events: the change feed counter of datasource '${ds.name}' is missing (it is created at start)`);
    // Stamped once the counter is held: the events' times follow their positions.
    const event = toEvent(change, ds.name, position, (this.deps.now?.() ?? new Date()).toISOString());
    await ds.create(EVENT_TABLE, toRow(event), tx);
    change.position = position;
    return event;
  }
}

/** Creates a counter row unless it exists. */
async function createOnce(ds: Datasource, id: string, value: number): Promise<void> {
  if ((await ds.find(COUNTER_TABLE, { filter: { field: 'id', op: 'eq', value: id }, top: 1 })).length > 0) return;
  try {
    await ds.create(COUNTER_TABLE, { id, value });
  } catch (err) {
    // Another instance starting at the same time created it first.
    if (!(err instanceof ObjectQLError && err.code === 'CONFLICT')) throw err;
  }
}

/** The event of one change. */
export function toEvent(change: RecordChange, datasource: string, position: number, at: string): StoredEvent {
  const operation = OPERATIONS[change.type];
  const event: StoredEvent = {
    position,
    datasource,
    object: change.object,
    recordId: change.id,
    operation,
    fields: changedFields(operation, change.record, change.previous),
    record: change.record,
    at,
  };
  if (operation === 'updated' && change.previous) event.previous = change.previous;
  if (change.user?.id !== undefined) event.userId = String(change.user.id);
  if (change.requestId) event.requestId = change.requestId;
  return event;
}

/**
 * A create: the fields it set (any value but null, the id aside); an update: the fields whose value
 * differs between before and after (its stamps aside); a delete: none.
 */
export function changedFields(operation: Operation, record: DataRecord, previous?: DataRecord): string[] {
  if (operation === 'deleted') return [];
  if (operation === 'created') return Object.keys(record).filter((k) => k !== 'id' && record[k] !== null && record[k] !== undefined);
  const before = previous ?? {};
  const keys = new Set([...Object.keys(before), ...Object.keys(record)]);
  return [...keys].filter((k) => k !== 'id' && !STAMPS.has(k) && !isDeepStrictEqual(before[k] ?? null, record[k] ?? null));
}
