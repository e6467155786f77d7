/**
 * The pubsub-redis plugin: replaces the kernel's in-process pubsub with one over Redis, so that
 * every instance using the same Redis and channel prefix hears every other instance's record
 * changes (RECORD_CHANGED_CHANNEL) and whatever else plugins publish. See docs/pubsub-redis.md.
 *
 * Start-up fails (PluginError naming the URL) when Redis cannot be reached then; after start, an
 * outage is survived: logged, publishes dropped, reconnection and re-subscription automatic. Both
 * connections report to GET /health/ready as redis 'pubsub'.
 */
import { z } from 'zod';
import { definePlugin, parsePluginOptions, type Kernel } from '../../kernel';
import { redactRedisUrl, redisReadiness } from '../../kernel/redis';
import { RedisPubSub } from './redis-pubsub';

export { RedisPubSub } from './redis-pubsub';

export interface PubSubRedisOptions {
  /** redis:// or rediss:// URL (default redis://127.0.0.1:6379). */
  url?: string;
  /** Prefix of every Redis channel (default 'objectql:'); instances share messages only with the same prefix. */
  channelPrefix?: string;
}

export const DEFAULT_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_CHANNEL_PREFIX = 'objectql:';

const schema = z.strictObject(
  {
    url: z
      .string({ error: 'must be a string' })
      .regex(/^rediss?:\/\/\S+$/, { error: 'must be a redis:// or rediss:// URL' })
      .optional(),
    channelPrefix: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }).optional(),
  },
  { error: 'must be a map {url?, channelPrefix?}' },
);

export function parsePubSubRedisOptions(input: unknown): Required<PubSubRedisOptions> {
  const parsed = parsePluginOptions('pubsub-redis', schema, input);
  return { url: parsed.url ?? DEFAULT_URL, channelPrefix: parsed.channelPrefix ?? DEFAULT_CHANNEL_PREFIX };
}

export default definePlugin((input: PubSubRedisOptions = {}) => {
  const options = parsePubSubRedisOptions(input);
  let kernel: Kernel;
  let pubsub: RedisPubSub | undefined;
  return {
    name: 'pubsub-redis',
    register(k) {
      kernel = k;
      // No I/O here: the connections are made lazily, in start.
      pubsub = new RedisPubSub(options, k.logger);
      k.provide('pubsub', pubsub);
      const readiness = redisReadiness('pubsub', pubsub.clients);
      k.hooks.readiness.tap('pubsub-redis', (checks) => [...checks, readiness]);
      k.hooks.capabilities.tap('pubsub-redis', (list) => [...list, { plugin: 'pubsub-redis', channelPrefix: options.channelPrefix }]);
    },
    async start() {
      await pubsub!.connect();
      kernel.logger.info({ redis: redactRedisUrl(options.url), channelPrefix: options.channelPrefix }, 'pubsub-redis: connected');
    },
    // The kernel closes its pubsub (this one) after every plugin has stopped.
  };
});
