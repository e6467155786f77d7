/**
 * Redis plumbing shared by the built-in plugins that use Redis — auth's session store, the
 * rate-limit counters and pubsub-redis — and available to third-party plugins as `objectql/redis`:
 * clients in two profiles (fail-fast commands, a subscriber that re-subscribes), connecting, closing
 * with a time limit, outage logging once per transition, readiness checks (GET /health/ready), and URL redaction. No state lives here:
 * every function works on the client it is given.
 */
export {
  connectRedis,
  createRedisClient,
  redisClientOptions,
  REDIS_COMMAND_TIMEOUT_MS,
  REDIS_CONNECT_TIMEOUT_MS,
  REDIS_KEEPALIVE_MS,
  REDIS_RETRY_MAX_DELAY_MS,
  type RedisProfile,
} from './client';
export { quitRedis, REDIS_QUIT_TIMEOUT_MS } from './quit';
export { loggableRedisError, redactRedisUrl, type LoggableRedisError } from './redact';
export { logRedisOutages, type OutageLog, type OutageLogSettings } from './outages';
export { pingRedis, redisReadiness } from './readiness';
