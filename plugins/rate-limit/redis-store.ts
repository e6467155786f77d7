/**
 * Counters in Redis, shared by every instance that uses the same server and key prefix.
 *
 * Redis failing must not fail requests. Commands are never queued while the connection is down
 * (they fail at once) and time out after COMMAND_TIMEOUT_MS, when a connection that stopped
 * answering is also dropped and made again; every counter has a memory counter of
 * the same limits as rate-limiter-flexible's `insuranceLimiter`, which counts a request whenever
 * Redis cannot. While Redis is away each instance therefore counts on its own (a caller spread
 * over N instances gets up to N times the budget); ioredis keeps reconnecting, and once Redis is
 * back the shared counters are used again. Both transitions are logged, once each.
 */
import Redis from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { Kernel } from '../../kernel';
import { MemoryCounters, type CounterStore } from './store';

export const CONNECT_TIMEOUT_MS = 2000;
export const COMMAND_TIMEOUT_MS = 1000;
/** How the connection shows in Redis's CLIENT LIST. */
export const CONNECTION_NAME = 'objectql-rate-limit';

type Logger = Kernel['logger'];

export interface RedisStoreSettings {
  url: string;
  keyPrefix: string;
}

/** Connects (without failing when Redis is down: the memory fallback counts until it is up). */
export async function openRedisStore(settings: RedisStoreSettings, logger: Logger): Promise<CounterStore> {
  const client = new Redis(settings.url, {
    lazyConnect: true,
    connectionName: CONNECTION_NAME,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // A connection that stops answering is dropped and made again, rather than timing out every command.
    socketTimeout: COMMAND_TIMEOUT_MS,
  });
  const connection = watchConnection(client, logger, redact(settings.url));
  await client.connect().catch(() => {
    /* logged by watchConnection; ioredis keeps reconnecting */
  });
  const insurance = new MemoryCounters();
  return {
    kind: 'redis',
    limiter(name, points, duration) {
      const keyPrefix = `${settings.keyPrefix}:${name}`;
      return new RateLimiterRedis({
        storeClient: client,
        keyPrefix,
        points,
        duration,
        rejectIfRedisNotReady: true,
        insuranceLimiter: insurance.make(keyPrefix, points, duration),
      });
    },
    async close() {
      connection.closing();
      await disconnect(client);
      await insurance.clear();
    },
  };
}

/** Logs when Redis goes away (warn) and when it is back (info), once per transition. */
function watchConnection(client: Redis, logger: Logger, where: string): { closing(): void } {
  let up: boolean | undefined;
  let closing = false;
  const down = (err?: unknown) => {
    if (closing || up === false) return;
    up = false;
    logger.warn({ redis: where, err }, 'rate-limit: Redis is unreachable; each instance counts in its own memory until it is back');
  };
  client.on('ready', () => {
    if (up === false && !closing) logger.info({ redis: where }, 'rate-limit: Redis is back; counting in Redis again');
    up = true;
  });
  // An 'error' listener also keeps ioredis from printing every failed reconnection attempt.
  client.on('error', (err: unknown) => down(err));
  client.on('close', () => down());
  return { closing: () => void (closing = true) };
}

/** Says goodbye when connected, and returns once the connection is closed (or after COMMAND_TIMEOUT_MS). */
async function disconnect(client: Redis): Promise<void> {
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
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
