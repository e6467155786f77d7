/**
 * The plugin's counters: for each tier a minute window and an hour window, in one store.
 */
import type { TierLimits, TierName } from './tiers';
import { TIER_NAMES } from './tiers';
import type { CounterStore } from './store';
import { consume, type Decision, type Window } from './windows';

/** The windows every tier is counted in, with their length in seconds. */
export const WINDOWS = [
  { name: 'minute', seconds: 60, limit: (t: TierLimits) => t.perMinute },
  { name: 'hour', seconds: 3600, limit: (t: TierLimits) => t.perHour },
] as const;

export class TierLimiter {
  private readonly windows: ReadonlyMap<TierName, readonly Window[]>;

  constructor(
    readonly store: CounterStore,
    tiers: Readonly<Record<TierName, TierLimits>>,
  ) {
    this.windows = new Map(
      TIER_NAMES.map((tier) => [
        tier,
        WINDOWS.map((w) => ({
          name: w.name,
          limit: w.limit(tiers[tier]),
          limiter: store.limiter(`${tier}:${w.name}`, w.limit(tiers[tier]), w.seconds),
        })),
      ]),
    );
  }

  /** Counts one request of `key` (see callerKey) in its tier's windows. */
  consume(tier: TierName, key: string): Promise<Decision> {
    return consume(this.windows.get(tier) ?? [], key);
  }
}
