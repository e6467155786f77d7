/**
 * Where the counters live. The memory store belongs to one kernel (each plugin instance makes its
 * own, so two kernels in one process never share a budget); the Redis store is shared by every
 * instance that points at the same server with the same key prefix (see redis-store.ts).
 */
import type { RateLimiterAbstract, RateLimiterMemory } from 'rate-limiter-flexible';
// Its own file, not the package's index, which loads every backend (Redis, Mongo, SQL, DynamoDB, ...).
import MemoryLimiter from 'rate-limiter-flexible/lib/RateLimiterMemory';

export interface CounterStore {
  readonly kind: 'memory' | 'redis';
  /** A fixed-window counter: `points` requests per `duration` seconds; `name` keeps its keys apart from other counters'. */
  limiter(name: string, points: number, duration: number): RateLimiterAbstract;
  /** Releases every connection and timer the store holds. */
  close(): Promise<void>;
}

/** Memory counters that can all be emptied at once (their expiry timers cleared). */
export class MemoryCounters {
  private readonly made: RateLimiterMemory[] = [];

  make(keyPrefix: string, points: number, duration: number): RateLimiterMemory {
    const limiter = new MemoryLimiter({ keyPrefix, points, duration });
    this.made.push(limiter);
    return limiter;
  }

  async clear(): Promise<void> {
    for (const limiter of this.made.splice(0)) {
      for (const { key } of limiter.dump().storage) await limiter.delete(key);
    }
  }
}

export function memoryStore(): CounterStore {
  const counters = new MemoryCounters();
  return {
    kind: 'memory',
    limiter: (name, points, duration) => counters.make(name, points, duration),
    close: () => counters.clear(),
  };
}
