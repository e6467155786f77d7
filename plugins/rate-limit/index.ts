/**
 * The rate-limit plugin: the spec's tiers (docs/spec.md, "Limits") (anonymous, authenticated, premium), each counted per
 * minute and per hour, in memory (per kernel) or in Redis (shared across instances). It taps the
 * kernel's `request` hook, which runs for every request to a non-public route after
 * authentication, and its `upgrade` hook (every WebSocket upgrade, every credential sent over a
 * socket); a failed authentication and a user marked anonymous count as anonymous. Public
 * routes (/health, the discovery route, the OpenAPI document and docs page) are not limited.
 * See docs/rate-limit.md.
 */
import { definePlugin, isAnonymous, type Kernel, type Logger, type User } from '../../kernel';
import { callerKey } from './caller-key';
import { rateLimitExceeded, setRateLimitHeaders, HEADERS } from './headers';
import { TierLimiter, WINDOWS } from './limiter';
import { addRateLimits } from './openapi';
import { parseOptions, type RateLimitOptions } from './options';
import type { RedisStoreSettings } from './redis-store';
import { memoryStore, type CounterStore } from './store';
import { tierOf } from './tiers';

export type { RateLimitOptions } from './options';
export { SPEC_TIERS, type TierName } from './tiers';

export default definePlugin((options: RateLimitOptions = {}) => {
  const settings = parseOptions(options);
  let kernel: Kernel;
  let limiter: TierLimiter | undefined;
  return {
    name: 'rate-limit',
    register(k) {
      kernel = k;
      /** Counts one request of `user` (undefined: anonymous) from `address`; throws the 429 when its budget is spent. */
      const count = async (
        user: User | undefined,
        address: string | undefined,
        log: Logger,
        set: (name: string, value: string) => void,
      ) => {
        if (!limiter) return;
        // A user an authentication plugin let in without credentials (`anonymous: true`) is anonymous here too: counted by address.
        const counted = isAnonymous(user) ? undefined : user;
        const tier = tierOf(counted, settings.premium);
        const decision = await limiter.consume(tier, callerKey(counted, address)).catch((err: unknown) => {
          // Only a store without a fallback gets here; a broken counter must not break the API.
          log.error({ err }, 'rate-limit: counting failed; the request is let through unlimited');
          return undefined;
        });
        if (!decision) return;
        setRateLimitHeaders(set, decision);
        if (!decision.allowed) throw rateLimitExceeded(decision, tier);
      };
      k.hooks.request.tapPromise('rate-limit', (req, res) =>
        count(req.objectql.user, req.socket.remoteAddress, req.log, (name, value) => res.setHeader(name, value)),
      );
      // WebSockets: every upgrade, and every credential sent over a socket (a failed one counts as anonymous, as over HTTP).
      k.hooks.upgrade.tapPromise('rate-limit', async (admission) => {
        const { request } = admission;
        const who = await admission.user().catch(() => undefined);
        await count(who, request.ip, request.log, (name, value) => request.responseHeaders.set(name, value));
      });
      k.hooks.capabilities.tap('rate-limit', (list) => [
        ...list,
        {
          plugin: 'rate-limit',
          tiers: settings.tiers,
          windows: Object.fromEntries(WINDOWS.map((w) => [w.name, w.seconds])),
          store: settings.store.type,
          headers: [HEADERS.limit, HEADERS.remaining, HEADERS.reset],
          reset: 'unix-seconds',
        },
      ]);
      // The document the hook starts from holds only public routes (see openapi.ts): note them first, add the limits last.
      let publicPaths = new Set<string>();
      k.hooks.openapi.tap({ name: 'rate-limit', stage: Number.MIN_SAFE_INTEGER }, (doc) => {
        publicPaths = new Set(Object.keys(doc.paths));
        return doc;
      });
      k.hooks.openapi.tap({ name: 'rate-limit', stage: Number.MAX_SAFE_INTEGER }, (doc) => addRateLimits(doc, publicPaths));
    },
    async start() {
      const store = settings.store.type === 'redis' ? await openRedisStore(settings.store, kernel) : memoryStore();
      limiter = new TierLimiter(store, settings.tiers);
    },
    async stop() {
      const store = limiter?.store;
      limiter = undefined;
      await store?.close();
    },
  };
});

/** Loaded only when a Redis store is configured: ioredis and rate-limiter-flexible's Redis counter weigh ~20 MB resident. */
function openRedisStore(settings: RedisStoreSettings, kernel: Kernel): Promise<CounterStore> {
  const redis = require('./redis-store') as typeof import('./redis-store');
  return redis.openRedisStore(settings, kernel.logger, kernel.hooks);
}
