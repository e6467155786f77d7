/**
 * The outbox: inside each write's transaction (the kernel's `recordChanging` hook) it numbers the
 * change, stores it as an event, and enqueues the deliveries of the workflows it triggers — so an
 * event and its deliveries exist exactly when the change committed, and a rolled-back write leaves
 * nothing behind.
 *
 * Positions: the write's transaction raises the counter row of the datasource (one statement,
 * Datasource.increment), which locks the row until that transaction ends. A second write waits for
 * it, so positions are handed out in commit order, one after another, without gaps. The row is
 * created at start, never inside a write (two writes creating it at once would conflict).
 */
import { isDeepStrictEqual } from 'node:util';
import { ObjectQLError, type DataRecord, type Datasource, type RecordChange, type Transaction } from '../../kernel';
import { COUNTER_TABLE, EVENT_TABLE, FEED_COUNTER, toRow } from './tables';
import type { Delivery, DeliveryQueue, NewDelivery, Operation, Preclaim, RecordTrigger, StoredEvent, Workflow } from './types';

/** Fields that change on every update: not a change of their own. */
const STAMPS = new Set(['updated_at', 'updated_by']);

const OPERATIONS: Record<RecordChange['type'], Operation> = { created: 'created', updated: 'updated', deleted: 'deleted' };

export interface OutboxDeps {
  /** The datasources that keep an outbox, by name (known once the plugin started). */
  datasources(): readonly string[];
  /** The deliveries table; absent while the delivery part is missing. */
  queue?: DeliveryQueue;
  /** Whether an event fires a record trigger (workflows/). */
  matchesTrigger(trigger: RecordTrigger, event: StoredEvent): boolean;
  /** A claim for this instance's dispatcher when it has room for more deliveries of the datasource (delivery/claim.ts). */
  preclaim?(datasource: string): Preclaim | undefined;
  now?: () => Date;
}

export interface Recorded {
  event: StoredEvent;
  /** How many deliveries it enqueued. */
  deliveries: number;
  /** Those written claimed by this instance; the others wait, pending, for a claim. */
  claimed: Delivery[];
}

export class Outbox {
  /** Enabled workflows with a record trigger, by the object they watch. */
  private triggered = new Map<string, Workflow[]>();

  constructor(private readonly deps: OutboxDeps) {}

  /** Whether this datasource keeps an outbox. */
  keeps(datasource: string): boolean {
    return this.deps.datasources().includes(datasource);
  }

  /** The workflows to match events against (at start, and again whenever they are reloaded). */
  setWorkflows(workflows: readonly Workflow[]): void {
    const map = new Map<string, Workflow[]>();
    for (const w of workflows) {
      if (!w.enabled || w.trigger.kind !== 'record') continue;
      const list = map.get(w.trigger.object) ?? [];
      list.push(w);
      map.set(w.trigger.object, list);
    }
    this.triggered = map;
  }

  /**
   * Makes sure the counter row exists (at start, outside any write): a new one starts after the
   * highest position already stored, should the row have been lost.
   */
  async prepare(ds: Datasource): Promise<void> {
    const filter = { field: 'id', op: 'eq' as const, value: FEED_COUNTER };
    if ((await ds.find(COUNTER_TABLE, { filter, top: 1 })).length > 0) return;
    const [last] = await ds.find(EVENT_TABLE, { fields: ['position'], sort: [{ field: 'position', dir: 'desc' }], top: 1 });
    try {
      await ds.create(COUNTER_TABLE, { id: FEED_COUNTER, value: last ? Number(last.position) : 0 });
    } catch (err) {
      // Another instance starting at the same time created it first.
      if (!(err instanceof ObjectQLError && err.code === 'CONFLICT')) throw err;
    }
  }

  /**
   * Records one change inside its write's transaction (the `recordChanging` tap): returns the
   * event and the deliveries written claimed by this instance (to run once the write commits), or
   * undefined when the datasource keeps no outbox. Sets `change.position`.
   */
  async record(change: RecordChange, ds: Datasource, tx: Transaction): Promise<Recorded | undefined> {
    if (!this.keeps(ds.name)) return undefined;
    if (!ds.increment) throw new Error(`events: datasource '${ds.name}' cannot lock rows, so it cannot keep an outbox`);
    const draft = toEvent(change, ds.name, 0, '');
    const workflows = this.triggeredBy(draft);
    // One statement takes the counter's lock and the next position.
    const position = await ds.increment(COUNTER_TABLE, FEED_COUNTER, 'value', 1, tx);
    if (position === undefined)
      throw new Error(`events: the change feed counter of datasource '${ds.name}' is missing (it is created at start)`);
    // Stamped once the counter is held: the events' times follow their positions.
    const event: StoredEvent = { ...draft, position, at: (this.deps.now?.() ?? new Date()).toISOString() };
    await ds.create(EVENT_TABLE, toRow(event), tx);
    change.position = position;
    const deliveries = this.deliveriesOf(event, workflows);
    if (deliveries.length === 0) return { event, deliveries: 0, claimed: [] };
    const claimed = await this.queue().enqueue(ds, tx, deliveries, this.deps.preclaim?.(ds.name));
    return { event, deliveries: deliveries.length, claimed };
  }

  private queue(): DeliveryQueue {
    if (!this.deps.queue) throw new Error('events: workflows are triggered, but the delivery queue is missing');
    return this.deps.queue;
  }

  /** The enabled workflows whose record trigger the event fires. */
  triggeredBy(event: StoredEvent): Workflow[] {
    return (this.triggered.get(event.object) ?? []).filter(
      (w) => w.trigger.kind === 'record' && this.deps.matchesTrigger(w.trigger, event),
    );
  }

  /** One delivery per action of every workflow the event fires. */
  deliveriesOf(event: StoredEvent, workflows = this.triggeredBy(event)): NewDelivery[] {
    return workflows.flatMap((workflow) =>
      workflow.actions.map((_action, index) => ({
        id: `${event.datasource}:${event.position}:${workflow.name}:${index}`,
        workflow: workflow.name,
        action: index,
        orderingKey: orderingKey(workflow, event),
        sequence: event.position * 1000 + index,
        payload: { event },
      })),
    );
  }
}

/** Deliveries of one key run one at a time, in order: a workflow's deliveries for one record. */
function orderingKey(workflow: Workflow, event: StoredEvent): string {
  return `${workflow.name}:${event.object}:${event.recordId}`;
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
