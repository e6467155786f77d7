/**
 * A PubSub over Redis: one connection publishes, one subscribes (a subscribed Redis connection can
 * do nothing else). Channels are `<channelPrefix><channel>`, messages JSON envelopes
 * `{origin, message}`: `origin` names the instance that published, so an instance hands its own
 * messages to its own listeners at once (even while Redis is down) and skips them when Redis
 * echoes them back.
 *
 * Redis failing never fails a write: the publisher is the shared `commands` profile
 * (objectql/redis), so a publish while the connection is down fails at once and is logged and
 * dropped (delivery is at most once; nothing is replayed after an outage). Both connections keep
 * reconnecting and the subscriber re-subscribes by itself; each transition (down, back) is logged
 * once per connection. The subscriber is PINGed every REDIS_HEARTBEAT_MS: a connection that went
 * silent without closing (a stalled server or path) is dropped and made again instead of
 * listening to nothing for ever. Changes published while Redis is away are lost for the other
 * instances (their clients see them on their next read, not as events).
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { PluginError, type Kernel, type PubSub, type PubSubListener } from '../../kernel';
import {
  connectRedis,
  createRedisClient,
  loggableRedisError,
  logRedisOutages,
  quitRedis,
  redactRedisUrl,
  type OutageLog,
} from '../../kernel/redis';

/** How often the subscriber connection is PINGed to notice it went silent. */
export const REDIS_HEARTBEAT_MS = 5000;

type Logger = Kernel['logger'];

export const CONNECTION_NAME = 'objectql-pubsub';

export interface RedisPubSubSettings {
  url: string;
  channelPrefix: string;
}

interface Envelope {
  origin: string;
  message: unknown;
}

export class RedisPubSub implements PubSub {
  private readonly origin = randomUUID();
  private readonly listeners = new Map<string, Set<PubSubListener>>();
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly outages: OutageLog[];
  private readonly where: string;
  private closed = false;
  private heartbeat?: NodeJS.Timeout;
  /** One warning per outage for dropped messages. */
  private droppedWarned = false;

  constructor(
    private readonly settings: RedisPubSubSettings,
    private readonly logger: Logger,
  ) {
    this.where = redactRedisUrl(settings.url);
    this.publisher = createRedisClient(settings.url, 'commands', `${CONNECTION_NAME}-pub`);
    this.subscriber = createRedisClient(settings.url, 'subscriber', `${CONNECTION_NAME}-sub`);
    // A failure before the first connection fails start-up (connect) rather than being logged as an outage.
    const outages = (client: Redis, connection: 'publisher' | 'subscriber') =>
      logRedisOutages(client, logger, {
        url: settings.url,
        fields: { connection },
        down: 'pubsub-redis: lost the connection to Redis; reconnecting (changes made meanwhile are not shared between instances)',
        back: 'pubsub-redis: connected to Redis again',
        logFirstFailure: false,
      });
    this.outages = [outages(this.publisher, 'publisher'), outages(this.subscriber, 'subscriber')];
    this.subscriber.on('message', (channel: string, text: string) => this.receive(channel, text));
  }

  /** Both connections, for readiness checks (GET /health/ready). */
  get clients(): Redis[] {
    return [this.publisher, this.subscriber];
  }

  /** Connects both connections; a Redis that cannot be reached fails start-up, naming the URL. */
  async connect(): Promise<void> {
    try {
      await Promise.all([connectRedis(this.publisher), connectRedis(this.subscriber)]);
      this.heartbeat ??= setInterval(() => {
        if (this.subscriber.status === 'ready') this.subscriber.ping().catch(() => undefined);
      }, REDIS_HEARTBEAT_MS).unref();
    } catch (err) {
      this.publisher.disconnect();
      this.subscriber.disconnect();
      throw new PluginError(`pubsub-redis: cannot connect to Redis at ${this.where}: ${(err as Error).message || String(err)}`);
    }
  }

  async publish(channel: string, message: unknown): Promise<void> {
    const text = JSON.stringify({ origin: this.origin, message } satisfies Envelope);
    // This instance's own listeners hear it at once, whatever Redis does, as a copy (as other instances do).
    this.deliver(channel, (JSON.parse(text) as Envelope).message);
    if (this.closed) return;
    try {
      await this.publisher.publish(this.settings.channelPrefix + channel, text);
      this.droppedWarned = false;
    } catch (err) {
      if (!this.droppedWarned) {
        this.droppedWarned = true;
        this.logger.warn(
          { redis: this.where, channel, err: loggableRedisError(err) },
          'pubsub-redis: Redis is unreachable; messages for other instances are dropped until it is back',
        );
      } else {
        this.logger.debug({ redis: this.where, channel }, 'pubsub-redis: message dropped (Redis unreachable)');
      }
    }
  }

  async subscribe(channel: string, listener: PubSubListener): Promise<() => Promise<void>> {
    if (this.closed) throw new PluginError('pubsub-redis: closed');
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await this.subscriber.subscribe(this.settings.channelPrefix + channel);
    }
    const entry: PubSubListener = (m) => listener(m);
    set.add(entry);
    const listeners = set;
    return async () => {
      listeners.delete(entry);
      if (listeners.size === 0 && this.listeners.get(channel) === listeners) {
        this.listeners.delete(channel);
        if (!this.closed && this.subscriber.status === 'ready') {
          await this.subscriber.unsubscribe(this.settings.channelPrefix + channel).catch(() => undefined);
        }
      }
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.listeners.clear();
    for (const outages of this.outages) outages.stop();
    await Promise.all([quitRedis(this.publisher), quitRedis(this.subscriber)]);
  }

  private receive(prefixed: string, text: string): void {
    if (!prefixed.startsWith(this.settings.channelPrefix)) return;
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch (err) {
      this.logger.warn({ channel: prefixed, err }, 'pubsub-redis: ignored a message that is not JSON');
      return;
    }
    if (!envelope || typeof envelope !== 'object' || envelope.origin === this.origin) return;
    this.deliver(prefixed.slice(this.settings.channelPrefix.length), envelope.message);
  }

  private deliver(channel: string, message: unknown): void {
    for (const listener of [...(this.listeners.get(channel) ?? [])]) {
      try {
        listener(message);
      } catch (err) {
        this.logger.error({ channel, err }, 'pubsub-redis: a listener failed');
      }
    }
  }
}
