/**
 * One log line when a Redis connection goes away (warn) and one when it is back (info), however
 * many reconnection attempts fail in between. Listening to 'error' also keeps ioredis from printing
 * each failed attempt itself.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { loggableRedisError, redactRedisUrl } from './redact';

export interface OutageLogSettings {
  /** The client's URL, logged redacted as `redis`. */
  url: string;
  /** Logged (warn) when the connection goes away. */
  down: string;
  /** Logged (info) when it is ready again after being away. */
  back: string;
  /** More fields for both lines (e.g. which connection). */
  fields?: Record<string, unknown>;
  /**
   * Whether a failure before the first connection is an outage to log (default true). Say false
   * where such a failure fails start-up instead, with its own message.
   */
  logFirstFailure?: boolean;
}

export interface OutageLog {
  /** Stops logging: call it before closing the client, whose closing is no outage. */
  stop(): void;
}

export function logRedisOutages(client: Redis, logger: Logger, settings: OutageLogSettings): OutageLog {
  const fields = { redis: redactRedisUrl(settings.url), ...settings.fields };
  let state: 'new' | 'up' | 'down' = 'new';
  let stopped = false;
  const down = (err?: unknown) => {
    if (stopped || state === 'down' || (state === 'new' && settings.logFirstFailure === false)) return;
    state = 'down';
    logger.warn(err === undefined ? fields : { ...fields, err: loggableRedisError(err) }, settings.down);
  };
  client.on('ready', () => {
    if (state === 'down' && !stopped) logger.info(fields, settings.back);
    state = 'up';
  });
  client.on('error', (err: unknown) => down(err));
  client.on('close', () => down());
  return { stop: () => void (stopped = true) };
}
