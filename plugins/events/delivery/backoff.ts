/** When a failed delivery is tried again: exponential backoff with full jitter. */
import type { RetryPolicy } from '../types';

/**
 * The wait before the next try after `attempts` failed tries (1 after the first failure): a random
 * duration in [0, min(maxDelayMs, initialDelayMs * 2^(attempts-1))] ("full jitter", so that many
 * deliveries failing together do not come back together).
 */
export function retryDelayMs(policy: RetryPolicy, attempts: number, random: () => number = Math.random): number {
  return Math.floor(random() * backoffCeilingMs(policy, attempts));
}

/** The upper bound of retryDelayMs for that many failed tries. */
export function backoffCeilingMs(policy: RetryPolicy, attempts: number): number {
  const exponent = Math.max(0, Math.min(attempts - 1, 52));
  return Math.max(0, Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** exponent));
}

/** Whether a delivery that failed its `attempts`-th try may be tried again. */
export function mayRetry(policy: RetryPolicy, attempts: number): boolean {
  return attempts < policy.maxAttempts;
}
