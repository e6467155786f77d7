/**
 * One request against several fixed windows (a minute and an hour) at once: the request is counted
 * in every window, and refused when any of them is exhausted. A refused request is not counted:
 * what it took from the windows that still had room is given back, so hammering an exhausted
 * minute window does not drain the hour's budget, and (the windows being fixed, starting at their
 * first counted request) refused requests never push a reset further away.
 */
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
// Its own file, not the package's index, which loads every backend.
import RateLimiterRes from 'rate-limiter-flexible/lib/RateLimiterRes';

export interface Window {
  name: string;
  /** Requests allowed per window. */
  limit: number;
  /** The counter of this window, refusing beyond `limit` (rate-limiter-flexible). */
  limiter: RateLimiterAbstract;
}

/** The outcome for one request, from the window that binds the caller. */
export interface Decision {
  allowed: boolean;
  /**
   * The binding window: the one with the fewest requests left (on a tie, the one that resets
   * last); for a refused request, the exhausted window that resets last.
   */
  window: string;
  limit: number;
  /** Requests left in the binding window, after this one; never negative. */
  remaining: number;
  /** When the binding window resets, Unix epoch milliseconds. */
  resetAt: number;
  /** Seconds until a retry can succeed (an integer, at least 1); 0 when allowed. */
  retryAfter: number;
}

interface WindowState {
  window: Window;
  refused: boolean;
  remaining: number;
  msBeforeReset: number;
}

export async function consume(windows: readonly Window[], key: string, now: () => number = Date.now): Promise<Decision> {
  const results = await Promise.allSettled(windows.map((w) => w.limiter.consume(key)));
  const refused = results.some((r) => r.status === 'rejected' && r.reason instanceof RateLimiterRes);
  const states = await Promise.all(
    results.map(async (result, i): Promise<WindowState> => {
      const window = windows[i];
      if (result.status === 'rejected') {
        // Anything but a refusal is a store failure (a store without a fallback): the caller decides.
        if (!(result.reason instanceof RateLimiterRes)) throw result.reason;
        return { window, refused: true, remaining: 0, msBeforeReset: result.reason.msBeforeNext };
      }
      const res = refused ? await window.limiter.reward(key) : result.value;
      return { window, refused: false, remaining: res.remainingPoints, msBeforeReset: res.msBeforeNext };
    }),
  );
  const binding = bindingWindow(refused ? states.filter((s) => s.refused) : states);
  const ms = Math.max(0, binding.msBeforeReset);
  return {
    allowed: !refused,
    window: binding.window.name,
    limit: binding.window.limit,
    remaining: Math.min(binding.window.limit, Math.max(0, binding.remaining)),
    resetAt: now() + ms,
    retryAfter: refused ? Math.max(1, Math.ceil(ms / 1000)) : 0,
  };
}

function bindingWindow(states: WindowState[]): WindowState {
  return states.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.msBeforeReset > a.msBeforeReset) ? b : a));
}
