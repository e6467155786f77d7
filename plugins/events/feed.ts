/**
 * The change feed: the events of one datasource's outbox, read in position order after a given
 * position, each judged as the reading caller. `readFeed` knows no HTTP and no kernel (a realtime
 * or GraphQL resume can use it); `feedJudge` builds the judgement from the data engine's
 * visibility rules; `EventFeed` puts both together as the kernel's `changeFeed` service, whose
 * contract (and the FeedEvent, FeedPage and FeedRequest types) is kernel/change-feed.ts.
 */
import {
  ObjectQLError,
  type ChangeFeed,
  type DataEngine,
  type DataRecord,
  type Datasource,
  type DbRecord,
  type FeedEvent,
  type FeedPage,
  type FeedRequest,
  type Filter,
  type Kernel,
  type User,
  type Visibility,
} from '../../kernel';
import { EVENT_TABLE, fromRow } from './tables';
import type { StoredEvent } from './types';

export type { FeedEvent, FeedPage, FeedRequest } from '../../kernel';

export interface FeedRange {
  /** Events after this position (0: from the first). */
  after: number;
  /** Events scanned at most. */
  limit: number;
  /** Only events of these objects. */
  objects?: readonly string[];
}

/** What a reader may see of an event: the event as shown to it, or undefined to leave it out. */
export type FeedJudge = (event: StoredEvent) => FeedEvent | undefined;

/**
 * Scans up to `limit` events after `after` in one datasource's outbox, in position order, and
 * keeps those `judge` shows. `next` moves past every scanned event, shown or not, so a reader
 * always progresses.
 */
export async function readFeed(ds: Datasource, range: FeedRange, judge: FeedJudge = showAll): Promise<FeedPage> {
  const after: Filter = { field: 'position', op: 'gt', value: range.after };
  const filter: Filter =
    range.objects === undefined
      ? after
      : {
          and: [
            after,
            range.objects.length === 1
              ? { field: 'object', op: 'eq', value: range.objects[0] }
              : { field: 'object', op: 'in', value: [...range.objects] },
          ],
        };
  const rows: DbRecord[] =
    range.objects?.length === 0 ? [] : await ds.find(EVENT_TABLE, { filter, sort: [{ field: 'position', dir: 'asc' }], top: range.limit });
  const events: FeedEvent[] = [];
  let next = range.after;
  for (const row of rows) {
    const event = fromRow(ds.name, row);
    next = event.position;
    const shown = judge(event);
    if (shown) events.push(shown);
  }
  return { events, next };
}

/** Every event, unmasked, with its author: for the system's own readers. */
export const showAll: FeedJudge = (event) => ({
  ...shape(event, event.fields, event.record),
  ...(event.userId ? { user: event.userId } : {}),
});

/**
 * The judgement of one caller: an event is shown when the caller may read its object and the
 * stored record is within its read scope; the record is masked and `fields` keeps the readable
 * ones; an admin also sees who made the change.
 */
export function feedJudge(engine: DataEngine, user: User | undefined, adminRoles: readonly string[]): FeedJudge {
  const admin = (user?.roles ?? []).some((role) => adminRoles.includes(role));
  const seen = new Map<string, Visibility | undefined>();
  const visibilityOf = (object: string): Visibility | undefined => {
    if (!seen.has(object)) {
      let visibility: Visibility | undefined;
      try {
        visibility = engine.repo(object, { user }).visibility();
      } catch {
        // An object no longer defined: nobody is shown its events.
        visibility = undefined;
      }
      seen.set(object, visibility);
    }
    return seen.get(object);
  };
  return (event) => {
    const visibility = visibilityOf(event.object);
    if (!visibility?.canRead || !visibility.matches(event.record)) return undefined;
    const shown = shape(
      event,
      event.fields.filter((f) => visibility.readable.has(f)),
      visibility.mask(event.record),
    );
    if (admin && event.userId) shown.user = event.userId;
    return shown;
  };
}

function shape(event: StoredEvent, fields: string[], record: DataRecord): FeedEvent {
  return { position: event.position, object: event.object, id: event.recordId, operation: event.operation, fields, record, at: event.at };
}

/**
 * The change feed of one kernel (the kernel's `changeFeed` service, kernel/change-feed.ts): which
 * datasources keep one, and a read as a given caller.
 */
export class EventFeed implements ChangeFeed {
  constructor(
    private readonly kernel: Kernel,
    /** Outbox datasources, known once the plugin started. */
    private readonly outboxes: () => readonly string[],
    readonly defaultLimit: number,
    readonly maxLimit: number,
  ) {}

  /** The datasources keeping a change feed. */
  datasources(): readonly string[] {
    return this.outboxes();
  }

  /**
   * One page of the feed as `user` sees it. Throws INVALID_REQUEST naming the parameter for a
   * datasource without a feed or an unknown object.
   */
  async read(user: User | undefined, request: FeedRequest = {}): Promise<FeedPage> {
    const outboxes = this.outboxes();
    let datasource = request.datasource;
    let objects: string[] | undefined;
    if (request.object !== undefined) {
      const def = this.kernel.registry.object(request.object);
      if (!def) throw invalid('object', `Parameter 'object' names an unknown object, '${request.object}'`);
      const home = def.datasource ?? 'default';
      if (datasource !== undefined && datasource !== home)
        throw invalid('object', `Parameter 'object': '${request.object}' is kept in datasource '${home}', not '${datasource}'`);
      datasource = home;
      objects = [request.object];
    }
    if (datasource === undefined) {
      if (outboxes.includes('default')) datasource = 'default';
      else if (outboxes.length === 1) datasource = outboxes[0];
      else
        throw invalid('datasource', `Parameter 'datasource' is needed: change feeds are kept in ${outboxes.join(', ') || 'no datasource'}`);
    }
    if (!outboxes.includes(datasource)) {
      const parameter = request.object === undefined ? 'datasource' : 'object';
      throw invalid(
        parameter,
        `Parameter '${parameter}': datasource '${datasource}' keeps no change feed (${outboxes.join(', ') || 'none does'})`,
      );
    }
    const after = request.after ?? 0;
    const limit = Math.min(request.limit ?? this.defaultLimit, this.maxLimit);
    const judge = feedJudge(this.kernel.engine, user, this.kernel.config.security.adminRoles);
    return readFeed(this.kernel.resolve('datasources').get(datasource), { after, limit, objects }, judge);
  }
}

export function invalid(parameter: string, message: string): ObjectQLError {
  return new ObjectQLError('INVALID_REQUEST', message, { parameter });
}
