/**
 * From committed changes to what one subscriber receives. Every subscription holds the caller's
 * request context; each change of its object and kind is judged through the data engine as that
 * caller, so a subscriber never receives a record (or a field) a query would not show them:
 *
 * - created / updated: the record is read back by id as the subscriber with the selected fields
 *   and `where` (engine.repo(object, {user}).findOne): object permission, record scope, field
 *   permissions and afterFind hooks all apply, and `where` is matched on the record as the
 *   subscriber sees it. Nothing found: nothing sent.
 * - deleted: the record is gone, so it cannot be read back. The change carries it as it was; the
 *   subscriber's repository decides (`repo.visibility()`): read permission on the object, the
 *   record scope (record_filters with $current_user etc. resolved by the engine) evaluated on that
 *   record, then `where` on the fields the subscriber may read, and only those fields among the
 *   selected ones are sent.
 *
 * `where` is checked when the subscription starts: the same find a query would run (top 0), so an
 * unknown field, a field the subscriber may not read or an object they may not read is an error
 * then, not a silent subscription that never fires.
 */
import {
  readChangesAfter,
  RECORD_CHANGED_CHANNEL,
  tooFarBehind,
  type ChangeFeed,
  type DataEngine,
  type DataRecord,
  type Kernel,
  type PubSub,
  type RecordChangedMessage,
  type RequestContext,
} from '../../../kernel';
import type { EventKind } from './sdl';
import { EventStream } from './stream';

export interface OpenRequest {
  object: string;
  kind: EventKind;
  /** The where argument as given (a field map), or null/undefined. */
  where: unknown;
  request: RequestContext;
  /** The fields the subscription selects on the record type (id included). */
  fields: string[];
  /** Resume: first the changes after this change feed position, then live ones (needs `feed`). */
  after?: number;
  /** The kernel's change feed, for `after`. */
  feed?: ChangeFeed;
  /** Changes of the object a resume may replay at most (the `maxReplay` option). */
  maxReplay?: number;
}

/** What one event delivers: the record as the subscriber sees it, and its change feed position when it has one. */
export interface Delivered {
  record: DataRecord;
  position?: number;
}

interface Entry {
  object: string;
  kind: EventKind;
  stream: EventStream<RecordChangedMessage, Delivered>;
}

/** Every open subscription of one kernel, fed from the pubsub's RECORD_CHANGED_CHANNEL. */
export class RecordFeed {
  private readonly entries = new Set<Entry>();
  private unsubscribe?: () => Promise<void>;

  constructor(private readonly kernel: Kernel) {}

  get size(): number {
    return this.entries.size;
  }

  async start(pubsub: PubSub): Promise<void> {
    this.unsubscribe = await pubsub.subscribe(RECORD_CHANGED_CHANNEL, (message) => this.dispatch(message));
  }

  async stop(): Promise<void> {
    for (const entry of [...this.entries]) entry.stream.close();
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    await unsubscribe?.();
  }

  /** A change from the pubsub (any instance): offered to every subscription of its object and kind. */
  dispatch(message: unknown): void {
    const change = message as Partial<RecordChangedMessage> | null;
    if (!change || typeof change !== 'object' || typeof change.object !== 'string' || typeof change.id !== 'string') return;
    if (change.type !== 'created' && change.type !== 'updated' && change.type !== 'deleted') return;
    for (const entry of this.entries) {
      if (entry.object === change.object && entry.kind === change.type) entry.stream.offer(change as RecordChangedMessage);
    }
  }

  /**
   * Checks the subscription as a query would be checked, then opens its stream. With `after`, the
   * stream starts with what the change feed holds after it (as the subscriber may see it, of this
   * kind, matching `where`); live changes that come meanwhile wait, and those the replay covered
   * (position at or before where it read to) are dropped.
   */
  async open(req: OpenRequest): Promise<AsyncIterableIterator<Delivered>> {
    const engine: DataEngine = this.kernel.engine;
    const where = whereMap(req.where);
    // Throws what a query would: object not readable, unknown or hidden field in where or selection.
    await engine.repo(req.object, req.request).find({ fields: req.fields, ...(where ? { filters: where } : {}), top: 0 });
    const log = req.request.logger ?? this.kernel.logger;

    const toRecord = async (change: RecordChangedMessage): Promise<DataRecord | undefined> => {
      const repo = engine.repo(req.object, req.request);
      if (change.type !== 'deleted') {
        const record = await repo.findOne({
          fields: req.fields,
          ...(where ? { filters: where } : {}),
          filter: { field: 'id', op: 'eq', value: change.id },
        });
        return record ?? undefined;
      }
      const previous = change.record;
      if (!previous || typeof previous !== 'object') return undefined;
      const visibility = repo.visibility();
      const record = { ...previous, id: change.id };
      return visibility.matches(record, where) ? visibility.mask(record, req.fields) : undefined;
    };
    const toPayload = async (change: RecordChangedMessage): Promise<Delivered | undefined> => {
      const record = await toRecord(change);
      if (!record) return undefined;
      return typeof change.position === 'number' ? { record, position: change.position } : { record };
    };
    /** A resumed subscription: the feed position it was replayed up to. */
    let covered: number | undefined;

    const entry: Entry = {
      object: req.object,
      kind: req.kind,
      stream: new EventStream<RecordChangedMessage, Delivered>(
        toPayload,
        () => this.entries.delete(entry),
        // A change that cannot be judged (the subscriber lost access, a store error) is not sent.
        (err) => log.debug({ err, object: req.object, event: req.kind }, 'subscription event not delivered'),
        (change) => covered === undefined || typeof change.position !== 'number' || change.position > covered,
      ),
    };
    if (req.after === undefined || !req.feed) {
      this.entries.add(entry);
      return entry.stream;
    }
    // Live from now on, held until the replay is delivered.
    const release = entry.stream.hold();
    covered = req.after;
    this.entries.add(entry);
    try {
      const max = req.maxReplay ?? 1000;
      const found = await readChangesAfter(req.feed, req.request.user, { object: req.object, after: req.after, max });
      if ('tooMany' in found) throw tooFarBehind(req.object, req.after, max, 'maxReplay');
      const visibility = engine.repo(req.object, req.request).visibility();
      covered = found.next;
      for (const event of found.events) {
        if (event.operation !== req.kind) continue;
        // The feed has masked the record and judged the scope; `where` is matched on what the subscriber may see.
        const record = { ...event.record, id: event.id };
        if (!visibility.matches(record, where)) continue;
        entry.stream.deliver({ record: visibility.mask(record, req.fields), position: event.position });
      }
    } catch (err) {
      entry.stream.close();
      throw err;
    } finally {
      release();
    }
    return entry.stream;
  }
}

/** The where argument as a filter map without absent entries; undefined when it names nothing. */
function whereMap(where: unknown): Record<string, unknown> | undefined {
  if (where === null || where === undefined || typeof where !== 'object') return undefined;
  const map: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(where)) if (value !== undefined) map[field] = value;
  return Object.keys(map).length ? map : undefined;
}
