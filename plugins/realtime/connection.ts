/**
 * One realtime WebSocket: its identity, its subscriptions and the protocol of docs/realtime.md.
 * Client messages are handled one at a time, in order (an `auth` followed at once by a
 * `subscribe` works); change events are queued on the same line, so a client sees its acks and
 * its events in a consistent order.
 */
import type { WebSocket, RawData } from 'ws';
import { ObjectQLError, toObjectQLError, type DataEngine, type DataRecord, type RecordChange, type User } from '../../kernel';
import { parseFilter } from '../../kernel/protocol';
import type { RealtimeSettings } from './options';

type Logger = import('pino').Logger;

export interface Subscription {
  id: string;
  object: string;
  /** As the client sent it (the engine checks it on every read and for every deleted record). */
  filters?: unknown;
}

export interface ConnectionDeps {
  settings: RealtimeSettings;
  engine: () => DataEngine;
  /** Runs the kernel's authenticate hook with these credentials (as headers) for this socket; undefined = anonymous. */
  authenticate: (credentials: Record<string, string>) => Promise<User | undefined>;
  logger: Logger;
}

const TYPES = 'auth, subscribe, unsubscribe, ping';

export class RealtimeConnection {
  /** Whether this socket may subscribe: authenticated, or anonymous callers are let in. */
  private allowed: boolean;
  private user: User | undefined;
  private readonly subscriptions = new Map<string, Subscription>();
  private queue: Promise<void> = Promise.resolve();
  private nextId = 1;
  alive = true;

  constructor(
    readonly ws: WebSocket,
    initial: { allowed: boolean; user?: User },
    private readonly deps: ConnectionDeps,
  ) {
    this.allowed = initial.allowed;
    this.user = initial.user;
    ws.on('message', (data: RawData, isBinary: boolean) => this.enqueue(() => this.onMessage(data, isBinary)));
    ws.on('pong', () => void (this.alive = true));
  }

  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  /** A committed change: sent to every subscription of this socket that may see it. */
  onChange(change: RecordChange): void {
    if (![...this.subscriptions.values()].some((s) => s.object === change.object)) return;
    this.enqueue(() => this.deliver(change));
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((err: unknown) => this.deps.logger.error({ err }, 'realtime: message handling failed'));
  }

  private send(message: Record<string, unknown>): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
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
    try {
      switch (m.type) {
        case 'ping':
          return this.send({ type: 'pong', ...(id !== undefined ? { id } : {}) });
        case 'auth':
          return await this.auth(id, m.token);
        case 'subscribe':
          this.requireAuth();
          return await this.subscribe(id, m.object, m.filters);
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
    const user = await this.deps.authenticate({ authorization: `Bearer ${token.trim()}` });
    if (!user) throw new ObjectQLError('UNAUTHORIZED', 'Authentication failed');
    this.user = user;
    this.allowed = true;
    this.send({ type: 'ack', ...(id !== undefined ? { id } : {}), user: { id: user.id, roles: user.roles } });
  }

  private async subscribe(id: string | undefined, object: unknown, filters: unknown): Promise<void> {
    const subId = id ?? `sub-${this.nextId++}`;
    if (this.subscriptions.has(subId))
      throw new ObjectQLError('INVALID_REQUEST', `A subscription with id '${subId}' already exists on this connection`);
    if (this.subscriptions.size >= this.deps.settings.maxSubscriptions) {
      throw new ObjectQLError('INVALID_REQUEST', `At most ${this.deps.settings.maxSubscriptions} subscriptions per connection`, {
        max_subscriptions: this.deps.settings.maxSubscriptions,
      });
    }
    if (typeof object !== 'string' || !object) throw new ObjectQLError('INVALID_REQUEST', "'object' must be the name of an object");
    const engine = this.deps.engine();
    if (!engine.has(object)) throw new ObjectQLError('NOT_FOUND', `Object '${object}' not found`, { object });
    const { maxFilterDepth, maxFilterConditions } = engine.limits;
    const parsed = parseFilter(filters, { maxDepth: maxFilterDepth, maxConditions: maxFilterConditions });
    // The engine checks the rest as for any query of this caller: read permission, unknown or hidden fields, value types.
    await engine.repo(object, { user: this.user }).count({ filters: parsed ? filters : undefined });
    this.subscriptions.set(subId, { id: subId, object, filters: parsed ? filters : undefined });
    this.send({ type: 'ack', id: subId, object });
  }

  private unsubscribe(id: string | undefined): void {
    if (id === undefined) throw new ObjectQLError('INVALID_REQUEST', "'id' of the subscription to end is required");
    if (!this.subscriptions.delete(id)) throw new ObjectQLError('NOT_FOUND', `No subscription with id '${id}' on this connection`);
    this.send({ type: 'ack', id });
  }

  private async deliver(change: RecordChange): Promise<void> {
    const subs = [...this.subscriptions.values()].filter((s) => s.object === change.object);
    if (!subs.length || !this.allowed) return;
    const reads = new Map<string, Promise<DataRecord | null>>();
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
      // Unsubscribed meanwhile?
      if (record && this.subscriptions.get(sub.id) === sub) {
        this.send({ type: 'change', subscription: sub.id, object: change.object, operation: change.type, record });
      }
    }
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
    this.subscriptions.clear();
    try {
      this.ws.close(code, reason);
    } catch {
      this.ws.terminate();
    }
  }
}
