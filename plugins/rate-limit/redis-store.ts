/**
 * Counters in Redis, shared by every instance that uses the same server and key prefix.
 *
 * Redis failing must not fail requests. The client is the shared `commands` profile (objectql/redis):
 * commands fail at once while the connection is down and time out when it stops answering; every
 * counter has a memory counter of the same limits as rate-limiter-flexible's `insuranceLimiter`,
 * which counts a request whenever Redis cannot. While Redis is away each instance therefore counts
 * on its own (a caller spread over N instances gets up to N times the budget); the client keeps
 * reconnecting, and once Redis is back the shared counters are used again. Both transitions are
 * logged, once each. The connection reports to GET /health/ready as redis 'rate-limit'.
 */
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { Kernel, KernelHooks } from '../../kernel';
import { createRedisClient, logRedisOutages, quitRedis, redisReadiness } from '../../kernel/redis';
import { MemoryCounters, type CounterStore } from './store';

/** How the connection shows in Redis's CLIENT LIST. */
export const CONNECTION_NAME = 'objectql-rate-limit';

export interface RedisStoreSettings {
  url: string;
  keyPrefix: string;
}

/** Connects (without failing when Redis is down: the memory fallback counts until it is up). */
export async function openRedisStore(settings: RedisStoreSettings, logger: Kernel['logger'], hooks?: KernelHooks): Promise<CounterStore> {
  const client = createRedisClient(settings.url, 'commands', CONNECTION_NAME);
  const readiness = redisReadiness('rate-limit', [client]);
  hooks?.readiness.tap('rate-limit', (checks) => [...checks, readiness]);
  const outages = logRedisOutages(client, logger, {
    url: settings.url,
    down: 'rate-limit: Redis is unreachable; each instance counts in its own memory until it is back',
    back: 'rate-limit: Redis is back; counting in Redis again',
  });
  await client.connect().catch(() => {
    /* logged as an outage; the client keeps reconnecting */
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
      outages.stop();
      await quitRedis(client);
      await insurance.clear();
    },
  };
}
