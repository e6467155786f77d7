/**
 * A PubSub over Redis: one connection publishes, one subscribes (a subscribed Redis connection can
 * do nothing else). Channels are `<channelPrefix><channel>`, messages JSON envelopes
 * `{origin, message}`: `origin` names the instance that published, so an instance hands its own
 * messages to its own listeners at once (even while Redis is down) and skips them when Redis
 * echoes them back.
 *
 * Redis failing never fails a write: a publish while the connection is down is logged and dropped
 * (delivery is at most once; nothing is replayed after an outage). ioredis keeps reconnecting
 * (RETRY_MAX_DELAY_MS at most between attempts) and re-subscribes by itself (autoResubscribe);
 * each transition (down, back) is logged once.
 */
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { PluginError, type Kernel, type PubSub, type PubSubListener } from '../../kernel';

type Logger = Kernel['logger'];

export const CONNECT_TIMEOUT_MS = 2000;
export const COMMAND_TIMEOUT_MS = 1000;
export const RETRY_MAX_DELAY_MS = 1000;
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
  private readonly where: string;
  private closed = false;
  /** Per connection: undefined before the first connection, then whether it is up. */
  private readonly up: Record<'publisher' | 'subscriber', boolean | undefined> = { publisher: undefined, subscriber: undefined };
  /** One warning per outage for dropped messages. */
  private droppedWarned = false;

  constructor(
    private readonly settings: RedisPubSubSettings,
    private readonly logger: Logger,
  ) {
    this.where = redact(settings.url);
    const common = {
      lazyConnect: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      retryStrategy: (times: number) => Math.min(times * 100, RETRY_MAX_DELAY_MS),
    };
    this.publisher = new Redis(settings.url, {
      ...common,
      connectionName: `${CONNECTION_NAME}-pub`,
      // A publish while down fails at once (and is dropped) rather than waiting in a queue.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
    });
    this.subscriber = new Redis(settings.url, {
      ...common,
      connectionName: `${CONNECTION_NAME}-sub`,
      autoResubscribe: true,
      maxRetriesPerRequest: null,
    });
    this.watch(this.publisher, 'publisher');
    this.watch(this.subscriber, 'subscriber');
    this.subscriber.on('message', (channel: string, text: string) => this.receive(channel, text));
  }

  /** Connects both connections; a Redis that cannot be reached fails start-up, naming the URL. */
  async connect(): Promise<void> {
    try {
      await Promise.all([ready(this.publisher), ready(this.subscriber)]);
    } catch (err) {
      this.publisher.disconnect();
      this.subscriber.disconnect();
      throw new PluginError(`pubsub-redis: cannot connect to Redis at ${this.where}: ${(err as Error).message || String(err)}`);
    }
  }

  async publish(channel: string, message: unknown): Promise<void> {
    const text = JSON.stringify({ origin: this.origin, message } satisfies Envelope);
    // This instance's own listeners hear it at once, whatever Redis does.
    this.deliver(channel, message === undefined ? undefined : JSON.parse(JSON.stringify(message)));
    if (this.closed) return;
    try {
      await this.publisher.publish(this.settings.channelPrefix + channel, text);
      this.droppedWarned = false;
    } catch (err) {
      if (!this.droppedWarned) {
        this.droppedWarned = true;
        this.logger.warn(
          { redis: this.where, channel, err },
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
    this.listeners.clear();
    await Promise.all([quit(this.publisher), quit(this.subscriber)]);
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

  /** Logs when a connection goes away (warn) and when it is back (info), once per transition. */
  private watch(client: Redis, which: 'publisher' | 'subscriber'): void {
    const down = (err?: unknown) => {
      if (this.closed || this.up[which] !== true) return;
      this.up[which] = false;
      this.logger.warn(
        { redis: this.where, connection: which, err },
        'pubsub-redis: lost the connection to Redis; reconnecting (changes made meanwhile are not shared between instances)',
      );
    };
    client.on('ready', () => {
      if (this.up[which] === false && !this.closed)
        this.logger.info({ redis: this.where, connection: which }, 'pubsub-redis: connected to Redis again');
      this.up[which] = true;
    });
    // An 'error' listener also keeps ioredis from printing every failed reconnection attempt.
    client.on('error', (err: unknown) => down(err));
    client.on('close', () => down());
  }
}

/**
 * Resolves once the client is ready. A command sent before start (the kernel publishes the changes
 * of seeded data) may already have begun connecting a lazy client; then this waits for that attempt.
 */
function ready(client: Redis): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  if (client.status === 'wait') return client.connect();
  return new Promise<void>((resolve, reject) => {
    const onReady = () => {
      client.off('error', onError);
      resolve();
    };
    const onError = (err: Error) => {
      client.off('ready', onReady);
      reject(err);
    };
    client.once('ready', onReady);
    client.once('error', onError);
  });
}

/** Says goodbye when connected, and returns once the connection is closed (or after COMMAND_TIMEOUT_MS). */
async function quit(client: Redis): Promise<void> {
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const ended = new Promise<void>((resolve) => {
    client.once('end', resolve);
    timer = setTimeout(resolve, COMMAND_TIMEOUT_MS);
  });
  await client.quit().catch(() => client.disconnect());
  await ended;
  clearTimeout(timer);
  client.disconnect();
}

export function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
