/**
 * Sessions in Redis, shared by every kernel that names the same URL and key prefix. Redis enforces
 * expiry (each session key carries its TTL); a set per user lists that user's session keys so that
 * all of them can be revoked at once. Connects in start, quits in stop.
 */
import Redis from 'ioredis';
import type { Logger } from 'pino';
import { PluginError } from '../../kernel';
import type { SessionStore, StoredSession } from './session-store';

export interface RedisStoreOptions {
  url: string;
  keyPrefix: string;
}

export class RedisSessionStore implements SessionStore {
  private readonly client: Redis;

  constructor(
    private readonly options: RedisStoreOptions,
    private readonly logger: Logger,
  ) {
    // Few retries per command: a request waiting on an unreachable store fails rather than hangs.
    this.client = new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5_000 });
    this.client.on('error', (err: Error) => this.logger.warn({ err: { message: err.message } }, 'auth: session store (Redis) error'));
  }

  async open(): Promise<void> {
    try {
      await this.client.connect();
    } catch (err) {
      this.client.disconnect();
      throw new PluginError(`Plugin 'auth': cannot connect to the session store at ${redact(this.options.url)}: ${(err as Error).message}`);
    }
  }

  async put(key: string, session: StoredSession): Promise<void> {
    const ttl = Math.max(1, session.expiresAt - Date.now());
    const userKey = this.userKey(session.user.id);
    await this.client
      .multi()
      .set(this.sessionKey(key), JSON.stringify(session), 'PX', ttl)
      .sadd(userKey, key)
      .pexpire(userKey, ttl)
      .exec()
      .then(failed);
  }

  async get(key: string): Promise<StoredSession | undefined> {
    const text = await this.client.get(this.sessionKey(key));
    if (text === null) return undefined;
    const session = JSON.parse(text) as StoredSession;
    return session.expiresAt > Date.now() ? session : undefined;
  }

  async delete(key: string): Promise<boolean> {
    const session = await this.get(key);
    const multi = this.client.multi().del(this.sessionKey(key));
    if (session) multi.srem(this.userKey(session.user.id), key);
    const results = await multi.exec().then(failed);
    return session !== undefined && results[0] === 1;
  }

  async deleteUser(userId: string): Promise<number> {
    const userKey = this.userKey(userId);
    const keys = await this.client.smembers(userKey);
    if (!keys.length) return 0;
    const results = await this.client
      .multi()
      .del(...keys.map((k) => this.sessionKey(k)))
      .del(userKey)
      .exec()
      .then(failed);
    return Number(results[0]);
  }

  async close(): Promise<void> {
    if (this.client.status === 'end') return;
    await this.client.quit().catch(() => this.client.disconnect());
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

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
