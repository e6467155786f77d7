/**
 * Sessions in Redis, shared by every kernel that names the same URL and key prefix. Redis enforces
 * expiry (each session key carries its TTL); a set per user lists that user's session keys so that
 * all of them can be revoked at once. Connects in start (failing start-up, naming the redacted URL,
 * when Redis cannot be reached), quits in stop.
 *
 * The client is the shared `commands` profile (objectql/redis): while Redis is away a session
 * command fails at once, and one Redis does not answer fails within the command timeout — the
 * request gets 503 SERVICE_UNAVAILABLE "The session store is unavailable" (with Retry-After)
 * instead of waiting — and the client keeps reconnecting; the outage and the return are logged
 * once each. The store reports to GET /health/ready as redis 'auth sessions'.
 */
import type { Redis } from 'ioredis';
import { ObjectQLError, PluginError, type KernelHooks, type Logger } from '../../kernel';
import {
  connectRedis,
  createRedisClient,
  logRedisOutages,
  quitRedis,
  redactRedisUrl,
  redisReadiness,
  type OutageLog,
} from '../../kernel/redis';
import type { SessionStore, StoredSession } from './session-store';

export interface RedisStoreOptions {
  url: string;
  keyPrefix: string;
}

/** How the connection shows in Redis's CLIENT LIST. */
export const CONNECTION_NAME = 'objectql-auth';

export const STORE_UNAVAILABLE = 'The session store is unavailable';

export class RedisSessionStore implements SessionStore {
  private readonly client: Redis;
  private readonly outages: OutageLog;

  constructor(
    private readonly options: RedisStoreOptions,
    logger: Logger,
    hooks?: KernelHooks,
  ) {
    this.client = createRedisClient(options.url, 'commands', CONNECTION_NAME);
    const readiness = redisReadiness('auth sessions', [this.client]);
    hooks?.readiness.tap('auth', (checks) => [...checks, readiness]);
    this.outages = logRedisOutages(this.client, logger, {
      url: options.url,
      down: 'auth: the session store (Redis) is unreachable; requests with a session cookie fail until it is back',
      back: 'auth: the session store (Redis) is back',
      // A store unreachable at start fails start-up instead.
      logFirstFailure: false,
    });
  }

  async open(): Promise<void> {
    try {
      await connectRedis(this.client);
    } catch (err) {
      throw new PluginError(
        `Plugin 'auth': cannot connect to the session store at ${redactRedisUrl(this.options.url)}: ${(err as Error).message}`,
      );
    }
  }

  put(key: string, session: StoredSession): Promise<void> {
    const ttl = Math.max(1, session.expiresAt - Date.now());
    const userKey = this.userKey(session.user.id);
    return this.run(async () => {
      await this.client
        .multi()
        .set(this.sessionKey(key), JSON.stringify(session), 'PX', ttl)
        .sadd(userKey, key)
        .pexpire(userKey, ttl)
        .exec()
        .then(failed);
    });
  }

  get(key: string): Promise<StoredSession | undefined> {
    return this.run(async () => {
      const text = await this.client.get(this.sessionKey(key));
      if (text === null) return undefined;
      const session = JSON.parse(text) as StoredSession;
      return session.expiresAt > Date.now() ? session : undefined;
    });
  }

  async delete(key: string): Promise<boolean> {
    const session = await this.get(key);
    return this.run(async () => {
      const multi = this.client.multi().del(this.sessionKey(key));
      if (session) multi.srem(this.userKey(session.user.id), key);
      const results = await multi.exec().then(failed);
      return session !== undefined && results[0] === 1;
    });
  }

  deleteUser(userId: string): Promise<number> {
    const userKey = this.userKey(userId);
    return this.run(async () => {
      const keys = await this.client.smembers(userKey);
      if (!keys.length) return 0;
      const results = await this.client
        .multi()
        .del(...keys.map((k) => this.sessionKey(k)))
        .del(userKey)
        .exec()
        .then(failed);
      return Number(results[0]);
    });
  }

  async close(): Promise<void> {
    this.outages.stop();
    await quitRedis(this.client);
  }

  /** Runs Redis commands; a failure becomes SERVICE_UNAVAILABLE "The session store is unavailable", with the cause kept for the log. */
  private async run<T>(commands: () => Promise<T>): Promise<T> {
    try {
      return await commands();
    } catch (err) {
      const error = new ObjectQLError('SERVICE_UNAVAILABLE', STORE_UNAVAILABLE);
      error.cause = err;
      throw error;
    }
  }

  private sessionKey(key: string): string {
    return `${this.options.keyPrefix}session:${key}`;
  }

  private userKey(userId: string): string {
    return `${this.options.keyPrefix}user:${userId}`;
  }
}

/** A MULTI's results, or its first error thrown. */
function failed(results: Array<[Error | null, unknown]> | null): unknown[] {
  if (!results) throw new Error('Redis transaction was aborted');
  for (const [err] of results) if (err) throw err;
  return results.map(([, value]) => value);
}
