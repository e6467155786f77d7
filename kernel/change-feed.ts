/**
 * The change feed's contract (the `changeFeed` service): a plugin that keeps a durable, numbered
 * record of committed changes (the events plugin, docs/events.md) provides it; others (realtime,
 * GraphQL subscriptions) read it to let a client resume where it left off, without importing that
 * plugin. Positions are per datasource, in commit order; a change that was numbered carries its
 * position (`RecordChange.position`) when it reaches `recordChanged`.
 */
import { ObjectQLError } from './errors';
import type { User } from './context';
import type { DataRecord, RecordChange } from './engine/types';

/** One change as a reader of the feed gets it. */
export interface FeedEvent {
  /** Its place in its datasource's feed, in commit order. */
  position: number;
  object: string;
  /** The record's id. */
  id: string;
  operation: RecordChange['type'];
  /** Fields set (create) or changed (update) that the reader may read. */
  fields: string[];
  /** The record after the change (before it, for a delete), masked for the reader. */
  record: DataRecord;
  /** When it was recorded (ISO 8601). */
  at: string;
  /** Who made the change (admins only). */
  user?: string;
}

/** One page of the feed. */
export interface FeedPage {
  events: FeedEvent[];
  /** The last position scanned (or `after` when none was): the `after` of the next page. */
  next: number;
}

/** What a reader asks for. */
export interface FeedRequest {
  /** Events after this position (default 0: from the first). */
  after?: number;
  /** Events scanned at most (default the feed's, capped at `maxLimit`). */
  limit?: number;
  /** The datasource whose feed to read (default: the object's, else `default`, else the only one). */
  datasource?: string;
  /** Only the events of this object (its datasource's feed). */
  object?: string;
}

/**
 * The `changeFeed` service. `read` judges each event as `user` (object permission, record scope,
 * field masking, as a query would) and leaves out the others; `next` moves past every scanned
 * event, shown or not. An unknown object, or a datasource keeping no feed, is INVALID_REQUEST.
 */
export interface ChangeFeed {
  /** Events one read scans at most. */
  readonly maxLimit: number;
  /** The datasources that keep a feed (known once the providing plugin has started). */
  datasources(): readonly string[];
  read(user: User | undefined, request?: FeedRequest): Promise<FeedPage>;
}

/** What `readChangesAfter` found: every change of the object after `after`, or too many of them. */
export type ChangesAfter = { events: FeedEvent[]; next: number } | { tooMany: true; next: number };

/**
 * Every change of `object` after position `after` as `user` sees it (for a subscription that
 * resumes), reading page by page. At most `max` changes of the object are scanned (shown or not):
 * one more means the reader is too far behind (`tooMany`; `next` is where the scan stopped). `next`
 * is the last position scanned: changes at or before it were covered.
 */
export async function readChangesAfter(
  feed: ChangeFeed,
  user: User | undefined,
  request: { object: string; after: number; max: number },
): Promise<ChangesAfter> {
  const events: FeedEvent[] = [];
  let cursor = request.after;
  let budget = request.max;
  for (;;) {
    // A full budget spent: one more change of the object is one too many.
    const limit = budget > 0 ? Math.min(budget, feed.maxLimit) : 1;
    const page = await feed.read(user, { object: request.object, after: cursor, limit });
    if (page.next === cursor) return { events, next: cursor };
    if (budget === 0) return { tooMany: true, next: cursor };
    events.push(...page.events);
    cursor = page.next;
    // At most `limit` were scanned; a shorter page means the next read finds nothing.
    budget -= limit;
  }
}

/** INVALID_REQUEST for a resume asked of a kernel without a change feed. */
export function noChangeFeed(parameter: string): ObjectQLError {
  return new ObjectQLError(
    'INVALID_REQUEST',
    `'${parameter}' needs the change feed, which is not enabled (add the events plugin, docs/events.md)`,
    { parameter },
  );
}

/**
 * INVALID_REQUEST for a resume `readChangesAfter` found too far behind: more than `max` changes of
 * `object` since `after`. `limit` names the option that set `max` (in the details).
 */
export function tooFarBehind(object: string, after: number, max: number, limit: string): ObjectQLError {
  return new ObjectQLError(
    'INVALID_REQUEST',
    `More than ${max} changes of '${object}' since position ${after}: too far behind to replay; reload, then subscribe again`,
    { limit, max, after },
  );
}
