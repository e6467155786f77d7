/**
 * The plugin's options: checked once, when the plugin is made, so a wrong value stops start-up
 * with the option's path (`tiers.anonymous.perMinute`) and what is wrong with it.
 */
import { z } from 'zod';
import { parsePluginOptions } from '../../kernel';
import { SPEC_TIERS, TIER_NAMES, type PremiumRule, type TierLimits, type TierName } from './tiers';

export const DEFAULT_KEY_PREFIX = 'objectql:rate-limit';
export const DEFAULT_PREMIUM_ROLES: readonly string[] = ['premium'];

/** A zod error message that says 'is required' when the value is missing and `message` otherwise. */
function expected(message: string) {
  return { error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message) };
}

const count = z
  .number({ error: 'must be a whole number of requests, at least 1' })
  .int({ error: 'must be a whole number of requests, at least 1' })
  .min(1, { error: 'must be a whole number of requests, at least 1' });

const tier = z.strictObject({ perMinute: count.optional(), perHour: count.optional() }, { error: 'must be a map {perMinute?, perHour?}' });

const redisStore = z.strictObject({
  redis: z.strictObject(
    {
      url: z.string(expected('must be a string')).regex(/^rediss?:\/\/\S+$/, { error: 'must be a redis:// or rediss:// URL' }),
      keyPrefix: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }).optional(),
    },
    { error: 'must be a map {url, keyPrefix?}' },
  ),
});

const optionsSchema = z.strictObject(
  {
    tiers: z
      .strictObject(
        { anonymous: tier.optional(), authenticated: tier.optional(), premium: tier.optional() },
        { error: 'must be a map of tiers' },
      )
      .optional(),
    premium: z
      .strictObject(
        {
          roles: z.array(z.string().min(1, { error: 'must not be empty' }), { error: 'must be a list of role names' }).optional(),
          claim: z
            .strictObject(
              {
                name: z.string(expected('must be a string')).min(1, { error: 'must not be empty' }),
                value: z.union([z.string(), z.number(), z.boolean()], expected('must be a string, number or boolean')),
              },
              { error: 'must be a map {name, value}' },
            )
            .optional(),
        },
        { error: 'must be a map {roles?, claim?}' },
      )
      .optional(),
    store: z.union([z.literal('memory'), redisStore], { error: "must be 'memory' or {redis: {url, keyPrefix?}}" }).optional(),
  },
  { error: 'options must be a map {tiers?, premium?, store?}' },
);

/** The options as a config file writes them. */
export type RateLimitOptions = z.input<typeof optionsSchema>;

export type StoreSettings = { type: 'memory' } | { type: 'redis'; url: string; keyPrefix: string };

/** The options with every default filled in. */
export interface RateLimitSettings {
  tiers: Readonly<Record<TierName, TierLimits>>;
  premium: PremiumRule;
  store: StoreSettings;
}

export function parseOptions(options: unknown): RateLimitSettings {
  const { tiers = {}, premium = {}, store = 'memory' } = parsePluginOptions('rate-limit', optionsSchema, options);
  const merged = {} as Record<TierName, TierLimits>;
  for (const name of TIER_NAMES) merged[name] = Object.freeze({ ...SPEC_TIERS[name], ...tiers[name] });
  return {
    tiers: Object.freeze(merged),
    premium: { roles: premium.roles ?? [...DEFAULT_PREMIUM_ROLES], ...(premium.claim ? { claim: premium.claim } : {}) },
    store:
      store === 'memory'
        ? { type: 'memory' }
        : { type: 'redis', url: store.redis.url, keyPrefix: store.redis.keyPrefix ?? DEFAULT_KEY_PREFIX },
  };
}
