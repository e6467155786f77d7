/**
 * The spec's rate limit tiers (docs/spec.md, "Limits") and which one a caller belongs to. Pure: no I/O.
 */
import type { User } from '../../kernel';

export const TIER_NAMES = ['anonymous', 'authenticated', 'premium'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export interface TierLimits {
  perMinute: number;
  perHour: number;
}

/** The spec's Limits table. */
export const SPEC_TIERS: Readonly<Record<TierName, Readonly<TierLimits>>> = Object.freeze({
  anonymous: Object.freeze({ perMinute: 20, perHour: 100 }),
  authenticated: Object.freeze({ perMinute: 100, perHour: 1000 }),
  premium: Object.freeze({ perMinute: 500, perHour: 10000 }),
});

/** Who is premium: a user with one of `roles`, or whose `claim.name` key equals `claim.value`. */
export interface PremiumRule {
  roles: readonly string[];
  claim?: { name: string; value: string | number | boolean };
}

/** No user (anonymous, or failed authentication) → anonymous; then premium by role or claim; else authenticated. */
export function tierOf(user: User | undefined, premium: PremiumRule): TierName {
  if (!user) return 'anonymous';
  if (Array.isArray(user.roles) && user.roles.some((role) => premium.roles.includes(role))) return 'premium';
  if (premium.claim && Object.prototype.hasOwnProperty.call(user, premium.claim.name) && user[premium.claim.name] === premium.claim.value)
    return 'premium';
  return 'authenticated';
}
