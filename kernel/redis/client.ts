/**
 * ioredis clients in the two profiles ObjectQL needs. Both connect lazily (creating one does no
 * I/O: a plugin creates it in `register` and connects in `start`), name themselves (the name shows
 * in Redis's CLIENT LIST) and keep reconnecting, at most REDIS_RETRY_MAX_DELAY_MS apart, for as
 * long as they are open.
 *
 * - `commands`: for requests that must not wait on Redis (session lookups, rate-limit counters,
 *   publishes). A command while the connection is down fails at once instead of waiting in an
 *   offline queue; a command in flight when the connection drops fails instead of being retried;
 *   a command not answered within REDIS_COMMAND_TIMEOUT_MS fails, and a connection that stops
 *   answering that long is dropped and made again.
 * - `subscriber`: for a connection that only listens. It re-subscribes to its channels after every
 *   reconnection; a (un)subscribe sent while it is down waits for the connection instead of failing.
 *   A connection that does not answer a command (a PING: see pingRedis) within
 *   REDIS_COMMAND_TIMEOUT_MS is dropped and made again.
 *
 * Both use TCP keepalive (first probe after REDIS_KEEPALIVE_MS of silence), so that a peer gone
 * without a word is noticed on an idle connection too.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { closeNow } from './quit';

export type RedisProfile = 'commands' | 'subscriber';

/** How long a first connection attempt may take. */
export const REDIS_CONNECT_TIMEOUT_MS = 2000;
/** How long a `commands` client waits for an answer (and for a silent connection) before giving up. */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;
/** TCP keepalive: the first probe after this much silence on the connection. */
export const REDIS_KEEPALIVE_MS = 10_000;
/** The longest pause between two reconnection attempts. */
export const REDIS_RETRY_MAX_DELAY_MS = 1000;

/** The ioredis options of a profile; `connectionName` is how the connection shows in CLIENT LIST. */
export function redisClientOptions(profile: RedisProfile, connectionName: string): RedisOptions {
  const common: RedisOptions = {
    lazyConnect: true,
    connectionName,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    keepAlive: REDIS_KEEPALIVE_MS,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, REDIS_RETRY_MAX_DELAY_MS),
  };
  switch (profile) {
    case 'commands':
      return {
        ...common,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        socketTimeout: REDIS_COMMAND_TIMEOUT_MS,
      };
    case 'subscriber':
      return { ...common, autoResubscribe: true, maxRetriesPerRequest: null, socketTimeout: REDIS_COMMAND_TIMEOUT_MS };
  }
}

/** A client of `url` in `profile`, not yet connected (see connectRedis). */
export function createRedisClient(url: string, profile: RedisProfile, connectionName: string): Redis {
  return new Redis(url, redisClientOptions(profile, connectionName));
}

/**
 * Connects, resolving once the client is ready. A command sent earlier may already have started
 * connecting a lazy client: then this waits for that attempt. When the attempt fails, the client
 * is disconnected (no reconnection loop is left behind) and the promise rejects with its error
 * (ECONNREFUSED, WRONGPASS, ...).
 */
export async function connectRedis(client: Redis): Promise<void> {
  try {
    await untilReady(client);
  } catch (err) {
    closeNow(client);
    throw err;
  }
}

function untilReady(client: Redis): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  if (client.status === 'end') return Promise.reject(new Error('Connection is closed.'));
  return new Promise<void>((resolve, reject) => {
    const settle = (err?: Error) => {
      client.off('ready', onReady);
      client.off('error', onError);
      if (err) reject(err);
      else resolve();
    };
    const onReady = () => settle();
    // The 'error' event names the cause; connect() itself rejects with a bare "Connection is closed."
    const onError = (err: Error) => settle(err);
    client.once('ready', onReady);
    client.once('error', onError);
    if (client.status === 'wait') client.connect().catch((err: Error) => settle(err));
  });
}
