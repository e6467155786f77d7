/**
 * One realtime WebSocket: its identity, its subscriptions and the protocol of docs/realtime.md.
 * Client messages are handled one at a time, in order (an `auth` followed at once by a
 * `subscribe` works); change events are queued on the same line, so a client sees its acks and
 * its events in a consistent order. The kernel's WebSocket limits (message rate, outgoing buffer,
 * heartbeat, connections and subscriptions per user) hold through the socket's guard.
 */
import { Semaphore } from 'async-mutex';
import type { RawData } from 'ws';
import {
  noChangeFeed,
  ObjectQLError,
  readChangesAfter,
  toObjectQLError,
  tooFarBehind,
  type ChangeFeed,
  type DataEngine,
  type DataRecord,
  type RecordChange,
  type User,
} from '../../kernel';
import { parseFilter, type GuardedSocket } from '../../kernel/protocol';
import type { RealtimeSettings } from './options';

type Logger = import('pino').Logger;

export interface Subscription {
  id: string;
  object: string;
  /** As the client sent it (the engine checks it on every read and for every deleted record). */
  filters?: unknown;
  /** Gives its place back to the per-connection and per-user counts. */
  release: () => void;
  /**
   * A resumed subscription: the change feed's position up to which it was replayed. A live change
   * at or before it was replayed already (or was not for this subscriber) and is not sent again.
   */
  covered?: number;
}

export interface ConnectionDeps {
  settings: RealtimeSettings;
  engine: () => DataEngine;
  /** Runs `authenticate` (and the `upgrade` hook: rate limits) on these credentials (as headers) for this socket. */
  authenticate: (credentials: Record<string, string>) => Promise<{ user: User | undefined } | { refused: ObjectQLError }>;
  /** Seconds a socket that may not subscribe yet has to authenticate (`limits.websocket.authTimeoutSeconds`). */
  authTimeoutSeconds: number;
  /** The kernel's change feed (the events plugin), for a subscribe that resumes (`after`); undefined without one. */
  changeFeed: () => ChangeFeed | undefined;
  logger: Logger;
}

const TYPES = 'auth, subscribe, unsubscribe, ping';
/** Close code of a socket that did not authenticate in time (graphql-ws uses it for a connection_init that never came). */
export const AUTH_TIMEOUT_CLOSE = 4408;
/** Characters of a message's `id`. */
export const MAX_ID_LENGTH = 128;
/** Change events of one socket re-read at once: enough to keep up when each read waits on a database round trip. */
const READS_IN_FLIGHT = 8;
/** Change events one socket may have waiting to be read and sent (what graphql-ws buffers per subscription). */
export const MAX_PENDING_CHANGES = 1000;

export class RealtimeConnection {
  /** Whether this socket may subscribe: authenticated, or anonymous callers are let in. */
  private allowed: boolean;
  private user: User | undefined;
  private readonly subscriptions = new Map<string, Subscription>();
  private queue: Promise<void> = Promise.resolve();
  /** Re-reads of change events in flight for this socket, at most READS_IN_FLIGHT at once. */
  private readonly reads = new Semaphore(READS_IN_FLIGHT);
  /** Change events queued and not yet read for this socket's subscriber (bounded: MAX_PENDING_CHANGES). */
  private pendingChanges = 0;
  private nextId = 1;
  private authTimer?: NodeJS.Timeout;

  constructor(
    readonly guard: GuardedSocket,
    initial: { allowed: boolean; user?: User },
    private readonly deps: ConnectionDeps,
  ) {
    this.allowed = initial.allowed;
    this.user = initial.user;
    guard.onMessage((data: RawData, isBinary: boolean) => this.enqueue(() => this.onMessage(data, isBinary)));
    if (!this.allowed) {
      const seconds = deps.authTimeoutSeconds;
      this.authTimer = setTimeout(
        () => guard.close(AUTH_TIMEOUT_CLOSE, `Authentication timeout: send {type: 'auth', token} within ${seconds} s`),
        seconds * 1000,
      );
      this.authTimer.unref();
    }
    guard.ws.once('close', () => {
      if (this.authTimer) clearTimeout(this.authTimer);
      this.subscriptions.clear();
    });
  }

  get ws() {
    return this.guard.ws;
  }

  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  /** A committed change: sent to every subscription of this socket that may see it. */
  onChange(change: RecordChange): void {
    if (![...this.subscriptions.values()].some((s) => s.object === change.object)) return;
    // Each event is re-read as the subscriber; a socket whose reads fall behind the writes would
    // queue without bound, so it is closed like a slow reader and its client reconnects.
    if (this.pendingChanges >= MAX_PENDING_CHANGES) {
      this.guard.close(1013, `Slow consumer: more than ${MAX_PENDING_CHANGES} change events waiting to be read`);
      return;
    }
    this.pendingChanges++;
    // Reads start now, a few at a time (a read waits on the database, not on the one before it);
    // what they found is sent on the socket's one line, in the order the changes came.
    const found = this.reads.runExclusive(() => this.readAsSubscriber(change));
    found.catch(() => undefined);
    this.enqueue(async () => {
      this.pendingChanges--;
      for (const { sub, record } of await found) {
        // Unsubscribed meanwhile? Or replayed already (a resumed subscription: this task runs after its replay)?
        if (this.subscriptions.get(sub.id) !== sub) continue;
        if (change.position !== undefined && sub.covered !== undefined && change.position <= sub.covered) continue;
        this.send({
          type: 'change',
          subscription: sub.id,
          object: change.object,
          operation: change.type,
          record,
          ...(change.position !== undefined ? { position: change.position } : {}),
        });
      }
    });
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((err: unknown) => this.deps.logger.error({ err }, 'realtime: message handling failed'));
  }

  private send(message: Record<string, unknown>): void {
    // Closing (a slow consumer, a flood, stopping): not even serialized.
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.guard.send(JSON.stringify(message));
  }

  private error(id: string | undefined, err: unknown): void {
    const e = toObjectQLError(err);
    if (e.code === 'INTERNAL_ERROR') this.deps.logger.error({ err }, 'realtime: internal error');
    this.send({
      type: 'error',
      ...(id !== undefined ? { id } : {}),
      code: e.code,
      message: e.message,
      ...(e.details !== undefined ? { details: e.details } : {}),
    });
  }

  private async onMessage(data: RawData, isBinary: boolean): Promise<void> {
    const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
    if (size > this.deps.settings.maxMessageBytes) {
      return this.error(
        undefined,
        new ObjectQLError(
          'INVALID_REQUEST',
          `Message of ${size} bytes is larger than the limit of ${this.deps.settings.maxMessageBytes} bytes`,
          { max_bytes: this.deps.settings.maxMessageBytes },
        ),
      );
    }
    if (isBinary)
      return this.error(undefined, new ObjectQLError('INVALID_REQUEST', 'Binary frames are not accepted: send JSON text frames'));
    let msg: unknown;
    try {
      msg = JSON.parse(
        Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8'),
      );
    } catch (err) {
      return this.error(undefined, new ObjectQLError('INVALID_REQUEST', `Malformed JSON: ${(err as Error).message}`));
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
      return this.error(undefined, new ObjectQLError('INVALID_REQUEST', `A message must be a JSON object with a 'type' (${TYPES})`));
    }
    const m = msg as Record<string, unknown>;
    const rawId = m.id;
    if (rawId !== undefined && typeof rawId !== 'string' && typeof rawId !== 'number') {
      return this.error(undefined, new ObjectQLError('INVALID_REQUEST', "'id' must be a string or a number"));
    }
    const id = rawId === undefined ? undefined : String(rawId);
    // Echoed in every answer and event and kept per subscription: a long one would multiply what each costs.
    if (id !== undefined && id.length > MAX_ID_LENGTH) {
      return this.error(undefined, new ObjectQLError('INVALID_REQUEST', `'id' must be at most ${MAX_ID_LENGTH} characters`));
    }
    try {
      switch (m.type) {
        case 'ping':
          return this.send({ type: 'pong', ...(id !== undefined ? { id } : {}) });
        case 'auth':
          return await this.auth(id, m.token);
        case 'subscribe':
          this.requireAuth();
          return await this.subscribe(id, m.object, m.filters, m.after);
        case 'unsubscribe':
          this.requireAuth();
          return this.unsubscribe(id);
        default:
          throw new ObjectQLError('INVALID_REQUEST', `Unknown message type ${JSON.stringify(m.type)}; expected one of ${TYPES}`);
      }
    } catch (err) {
      this.error(id, err);
    }
  }

  private requireAuth(): void {
    if (!this.allowed) throw new ObjectQLError('UNAUTHORIZED', "Authentication required: send {type: 'auth', token} first");
  }

  private async auth(id: string | undefined, token: unknown): Promise<void> {
    if (typeof token !== 'string' || !token.trim())
      throw new ObjectQLError('INVALID_REQUEST', "'token' must be a non-empty string (a Bearer token)");
    const outcome = await this.deps.authenticate({ authorization: `Bearer ${token.trim()}` });
    if ('refused' in outcome)
      throw outcome.refused.code === 'UNAUTHORIZED' ? new ObjectQLError('UNAUTHORIZED', 'Authentication failed') : outcome.refused;
    const user = outcome.user;
    if (!user) throw new ObjectQLError('UNAUTHORIZED', 'Authentication failed');
    const tooMany = this.guard.identify(user);
    if (tooMany) {
      this.error(id, tooMany);
      this.guard.close(1008, tooMany.message);
      return;
    }
    if (this.authTimer) clearTimeout(this.authTimer);
    this.user = user;
    this.allowed = true;
    this.send({ type: 'ack', ...(id !== undefined ? { id } : {}), user: { id: user.id, roles: user.roles } });
  }

  private async subscribe(id: string | undefined, object: unknown, filters: unknown, after: unknown): Promise<void> {
    const subId = id ?? `sub-${this.nextId++}`;
    if (this.subscriptions.has(subId))
      throw new ObjectQLError('INVALID_REQUEST', `A subscription with id '${subId}' already exists on this connection`);
    if (typeof object !== 'string' || !object) throw new ObjectQLError('INVALID_REQUEST', "'object' must be the name of an object");
    if (after !== undefined && (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0))
      throw new ObjectQLError('INVALID_REQUEST', "'after' must be a change feed position: a whole number, at least 0", {
        parameter: 'after',
      });
    const feed = after === undefined ? undefined : this.deps.changeFeed();
    if (after !== undefined && !feed) throw noChangeFeed('after');
    // Counted before it is checked (a refused one gives its place back), so that two sockets of one user cannot both pass the cap.
    const release = this.guard.addSubscription();
    let sub: Subscription;
    try {
      const engine = this.deps.engine();
      if (!engine.has(object)) throw new ObjectQLError('NOT_FOUND', `Object '${object}' not found`, { object });
      const { maxFilterDepth, maxFilterConditions } = engine.limits;
      const parsed = parseFilter(filters, { maxDepth: maxFilterDepth, maxConditions: maxFilterConditions });
      // The engine checks the rest as for any query of this caller: read permission, unknown or hidden fields, value types.
      await engine.repo(object, { user: this.user }).count({ filters: parsed ? filters : undefined });
      if (this.ws.readyState !== this.ws.OPEN) throw new ObjectQLError('INVALID_REQUEST', 'The connection is closing');
      sub = { id: subId, object, filters: parsed ? filters : undefined, release };
      if (typeof after === 'number') sub.covered = after;
      // Live from now on: the changes that come during the replay wait on this socket's line, behind this message.
      this.subscriptions.set(subId, sub);
    } catch (err) {
      release();
      throw err;
    }
    if (!feed || typeof after !== 'number') return this.send({ type: 'ack', id: subId, object });
    try {
      const position = await this.replay(sub, feed, after);
      this.send({ type: 'ack', id: subId, object, position });
    } catch (err) {
      if (this.subscriptions.get(subId) === sub) this.subscriptions.delete(subId);
      release();
      throw err;
    }
  }

  /**
   * Sends what the change feed holds for `sub` after `after`, as this subscriber may see it and
   * matching its filter, and returns the position up to which the feed was read (live changes up
   * to it are then dropped). More than `maxReplay` changes: INVALID_REQUEST, nothing sent.
   */
  private async replay(sub: Subscription, feed: ChangeFeed, after: number): Promise<number> {
    const max = this.deps.settings.maxReplay;
    const found = await readChangesAfter(feed, this.user, { object: sub.object, after, max });
    if ('tooMany' in found) throw tooFarBehind(sub.object, after, max, 'plugins.realtime.maxReplay');
    const visibility = this.deps.engine().repo(sub.object, { user: this.user }).visibility();
    sub.covered = found.next;
    for (const event of found.events) {
      // The feed has masked the record and judged the scope; the filter is matched on what the subscriber may see.
      const record = { ...event.record, id: event.id };
      if (sub.filters !== undefined && !visibility.matches(record, sub.filters)) continue;
      this.send({ type: 'change', subscription: sub.id, object: sub.object, operation: event.operation, record, position: event.position });
    }
    return found.next;
  }

  private unsubscribe(id: string | undefined): void {
    if (id === undefined) throw new ObjectQLError('INVALID_REQUEST', "'id' of the subscription to end is required");
    const sub = this.subscriptions.get(id);
    if (!sub) throw new ObjectQLError('NOT_FOUND', `No subscription with id '${id}' on this connection`);
    this.subscriptions.delete(id);
    sub.release();
    this.send({ type: 'ack', id });
  }

  /** The record each subscription of this socket may see of `change` (none it may not). */
  private async readAsSubscriber(change: RecordChange): Promise<Array<{ sub: Subscription; record: DataRecord }>> {
    const subs = [...this.subscriptions.values()].filter((s) => s.object === change.object);
    if (!subs.length || !this.allowed || this.ws.readyState !== this.ws.OPEN) return [];
    const reads = new Map<string, Promise<DataRecord | null>>();
    const found: Array<{ sub: Subscription; record: DataRecord }> = [];
    for (const sub of subs) {
      let record: DataRecord | null;
      try {
        if (change.type === 'deleted') {
          record = this.deletedAsSeen(change, sub);
        } else {
          // Re-read as the subscriber: permissions, record scope, hidden fields and afterFind hooks as for any read.
          const key = JSON.stringify(sub.filters ?? null);
          let read = reads.get(key);
          if (!read) {
            read = this.deps
              .engine()
              .repo(change.object, { user: this.user })
              .findOne({ filters: sub.filters, filter: { field: 'id', op: 'eq', value: change.id } });
            reads.set(key, read);
          }
          record = await read;
        }
      } catch (err) {
        // E.g. the permissions no longer let this caller read the object: nothing to send.
        this.deps.logger.debug({ err, object: change.object, subscription: sub.id }, 'realtime: change not delivered');
        continue;
      }
      if (record) found.push({ sub, record });
    }
    return found;
  }

  /**
   * A deleted record: the subscriber must be allowed to read the object, the record as it was must
   * be inside its read scope and match the filter; it gets the fields it may read.
   */
  private deletedAsSeen(change: RecordChange, sub: Subscription): DataRecord | null {
    const visibility = this.deps.engine().repo(change.object, { user: this.user }).visibility();
    const before = { ...change.record, id: change.id };
    return visibility.matches(before, sub.filters) ? visibility.mask(before) : null;
  }

  close(code: number, reason: string): void {
    this.guard.close(code, reason);
  }
}
