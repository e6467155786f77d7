/**
 * One open WebSocket under the kernel's limits (docs/security.md, "WebSockets"):
 *
 * - message rate: every message and ping frame takes a token of a bucket (`messagesPerSecond`,
 *   `messageBurst`); a socket that has spent its burst is closed with 1008 and read no further;
 * - outgoing buffer: a send while more than `maxBufferedBytes` wait unread (a client that stopped
 *   reading) closes the socket with 1013 instead of buffering more;
 * - heartbeat: a ping every `heartbeatSeconds`; a socket that did not answer the previous one is
 *   terminated;
 * - per-user counts: the connection counts against its user once known (`identify`), each
 *   subscription against the connection and the user (`addSubscription`); all is released when
 *   the socket closes.
 */
import type { RawData, WebSocket } from 'ws';
import { isAnonymous, type User } from '../context';
import { ObjectQLError } from '../errors';
import type { Logger } from '../logger';
import { addressKey } from './address-key';
import { TokenBucket } from './token-bucket';
import type { WebSocketRegistry } from './ws-registry';

export interface GuardOptions {
  /** Seconds between pings (default `limits.websocket.heartbeatSeconds`). */
  heartbeatSeconds?: number;
  /** Subscriptions per connection when a plugin option sets it (default `limits.websocket.maxSubscriptionsPerConnection`). */
  maxSubscriptions?: { max: number; limit: string };
  log?: Logger;
}

/** A socket the server closed gets this long to finish the closing handshake before it is destroyed. */
const CLOSE_GRACE_MS = 2000;
/** RFC 6455: a close reason is at most 123 bytes. */
const MAX_REASON_BYTES = 123;
/** A received message counts against the message rate once per started unit of this size. */
const MESSAGE_UNIT_BYTES = 16_384;

export class GuardedSocket {
  private userKey?: string;
  private readonly leases = new Set<() => void>();
  private readonly bucket: TokenBucket;
  private readonly heartbeat: NodeJS.Timeout;
  private alive = true;
  private closing = false;
  private kill?: NodeJS.Timeout;

  constructor(
    private readonly registry: WebSocketRegistry,
    readonly ws: WebSocket,
    readonly address: string | undefined,
    private readonly options: GuardOptions,
  ) {
    const { messagesPerSecond, messageBurst, heartbeatSeconds } = registry.limits;
    this.bucket = new TokenBucket(messagesPerSecond, messageBurst);
    ws.on('ping', () => void this.admit());
    ws.on('pong', () => void (this.alive = true));
    this.heartbeat = setInterval(() => this.beat(), (options.heartbeatSeconds ?? heartbeatSeconds) * 1000);
    this.heartbeat.unref();
    ws.once('close', () => this.closed());
  }

  /** The user the connection counts against (undefined: anonymous, counted by address). */
  get user(): string | undefined {
    return this.userKey;
  }

  /** Subscriptions held on this connection. */
  get subscriptions(): number {
    return this.leases.size;
  }

  /**
   * Hands `listener` the messages within the rate; past it the socket is closed (1008). A message
   * counts once per started MESSAGE_UNIT_BYTES, so large messages cannot pass at the rate of small ones.
   */
  onMessage(listener: (data: RawData, isBinary: boolean) => void): void {
    this.ws.on('message', (data: RawData, isBinary: boolean) => {
      if (this.admit(1 + Math.floor(rawSize(data) / MESSAGE_UNIT_BYTES))) listener(data, isBinary);
    });
  }

  /**
   * The connection now acts as `user`: it counts against the user's connections (an anonymous
   * user counts by address only). The refusal when the user already holds `maxConnectionsPerUser`
   * (the identity is then unchanged).
   */
  identify(user: User | undefined): ObjectQLError | undefined {
    const key = user && !isAnonymous(user) ? `user:${user.id}` : undefined;
    if (key === this.userKey) return undefined;
    const max = this.registry.limits.maxConnectionsPerUser;
    if (key && !this.registry.acquire(`conn:${key}`, max)) return tooMany('for this user', 'limits.websocket.maxConnectionsPerUser', max);
    if (this.userKey) this.registry.release(`conn:${this.userKey}`);
    this.userKey = key;
    return undefined;
  }

  /**
   * Counts one subscription against the connection and its caller (the user, or the address when
   * anonymous); returns its release (idempotent). Throws INVALID_REQUEST naming the limit reached.
   */
  addSubscription(): () => void {
    const { limits } = this.registry;
    const perConnection = this.options.maxSubscriptions ?? {
      max: limits.maxSubscriptionsPerConnection,
      limit: 'limits.websocket.maxSubscriptionsPerConnection',
    };
    if (this.leases.size >= perConnection.max) {
      throw new ObjectQLError('INVALID_REQUEST', `At most ${perConnection.max} subscriptions per connection`, {
        limit: perConnection.limit,
        max: perConnection.max,
      });
    }
    const key = `subs:${this.userKey ?? `ip:${addressKey(this.address)}`}`;
    if (!this.registry.acquire(key, limits.maxSubscriptionsPerUser)) {
      throw new ObjectQLError(
        'INVALID_REQUEST',
        `At most ${limits.maxSubscriptionsPerUser} subscriptions per user, on all of its connections`,
        {
          limit: 'limits.websocket.maxSubscriptionsPerUser',
          max: limits.maxSubscriptionsPerUser,
        },
      );
    }
    const release = () => {
      if (this.leases.delete(release)) this.registry.release(key);
    };
    this.leases.add(release);
    return release;
  }

  /**
   * Sends unless the socket is closing or its client has left more than `maxBufferedBytes`
   * unread (then it is closed with 1013). `done` is called either way: once the data is written,
   * or at once when it was not sent.
   */
  send(data: string, done?: (err?: Error) => void): boolean {
    if (this.closing || this.ws.readyState !== this.ws.OPEN) {
      done?.();
      return false;
    }
    const max = this.registry.limits.maxBufferedBytes;
    if (this.ws.bufferedAmount > max) {
      this.close(1013, `Slow consumer: more than ${max} bytes unread (limits.websocket.maxBufferedBytes)`);
      done?.();
      return false;
    }
    this.ws.send(data, done ? (err) => done(err ?? undefined) : undefined);
    return true;
  }

  /** Closes with `code` and `reason` (cut to 123 bytes); destroyed if the client has not finished closing soon after. */
  close(code: number, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    this.kill = setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS);
    this.kill.unref();
    try {
      this.ws.close(code, closeReason(reason));
    } catch {
      this.ws.terminate();
    }
  }

  private admit(cost = 1): boolean {
    if (this.closing) return false;
    if (this.bucket.take(cost)) return true;
    const { messagesPerSecond, messageBurst } = this.registry.limits;
    this.options.log?.debug({ address: this.address }, 'WebSocket closed: message rate exceeded');
    this.close(1008, `Message rate over ${messagesPerSecond}/s (burst ${messageBurst}; limits.websocket.messagesPerSecond)`);
    // Read no more of a flood; the close timer ends the socket.
    this.ws.pause();
    return false;
  }

  private beat(): void {
    if (!this.alive) {
      this.ws.terminate();
      return;
    }
    this.alive = false;
    if (this.ws.readyState === this.ws.OPEN) this.ws.ping();
  }

  private closed(): void {
    this.closing = true;
    clearInterval(this.heartbeat);
    if (this.kill) clearTimeout(this.kill);
    for (const release of [...this.leases]) release();
    if (this.userKey) this.registry.release(`conn:${this.userKey}`);
    this.userKey = undefined;
  }
}

/** Bytes of a received message. */
function rawSize(data: RawData): number {
  return Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
}

/** `reason` cut to the 123 bytes a close frame may carry (on a character boundary). */
export function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= MAX_REASON_BYTES) return reason;
  let cut = reason.slice(0, MAX_REASON_BYTES);
  while (Buffer.byteLength(cut) > MAX_REASON_BYTES - 3) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** A connection cap reached: 429, naming the limit and its value. */
export function tooMany(who: string, limit: string, max: number): ObjectQLError {
  return new ObjectQLError('RATE_LIMIT_EXCEEDED', `Too many open WebSocket connections ${who}: at most ${max}`, { limit, max });
}
