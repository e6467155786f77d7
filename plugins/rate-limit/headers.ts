/**
 * What a caller is told: the rate limit headers on every limited response, and the 429 error.
 *
 * - X-RateLimit-Limit: requests allowed in the binding window (see Decision.window);
 * - X-RateLimit-Remaining: requests left in it after this one (never negative);
 * - X-RateLimit-Reset: when it resets, in Unix epoch seconds (rounded up), GitHub's convention;
 * - Retry-After (429 only): seconds to wait, the same number as details.retry_after.
 */
import { ObjectQLError } from '../../kernel';
import type { TierName } from './tiers';
import type { Decision } from './windows';

export const HEADERS = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  reset: 'X-RateLimit-Reset',
  retryAfter: 'Retry-After',
} as const;

/** Sets the headers through `set` (an HTTP response's `setHeader`, or a refused upgrade's `Headers.set`). */
export function setRateLimitHeaders(set: (name: string, value: string) => void, decision: Decision): void {
  set(HEADERS.limit, String(decision.limit));
  set(HEADERS.remaining, String(decision.remaining));
  set(HEADERS.reset, String(Math.ceil(decision.resetAt / 1000)));
  if (!decision.allowed) set(HEADERS.retryAfter, String(decision.retryAfter));
}

export function rateLimitExceeded(decision: Decision, tier: TierName): ObjectQLError {
  const seconds = decision.retryAfter;
  return new ObjectQLError(
    'RATE_LIMIT_EXCEEDED',
    `Rate limit exceeded: ${decision.limit} requests per ${decision.window} for ${tier} callers; retry in ${seconds} second${seconds === 1 ? '' : 's'}`,
    { retry_after: seconds },
  );
}
