/** The soak's bookkeeping: latencies per window and per protocol, outcomes by class, and the leak rule. Pure. */
import { percentile } from './target';

export interface Latencies {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export function latencies(values: number[]): Latencies {
  const sorted = Float64Array.from(values).sort();
  return {
    count: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

/** Outcomes counted by class, with the first example of each. */
export class Outcomes {
  readonly byClass = new Map<string, { count: number; example: string }>();

  add(cls: string, example: string): void {
    const entry = this.byClass.get(cls);
    if (entry) entry.count++;
    else this.byClass.set(cls, { count: 1, example: example.slice(0, 300) });
  }

  count(test: (cls: string) => boolean): number {
    let n = 0;
    for (const [cls, { count }] of this.byClass) if (test(cls)) n += count;
    return n;
  }
}

/** A failure of the server: anything but ok and a 4xx. */
export const isServerFailure = (cls: string) => cls !== 'ok' && !cls.startsWith('4xx');

/** Least-squares slope of (minutes, MiB) points, MiB per minute; NaN with fewer than 3 points. */
export function slopePerMinute(points: Array<{ at: number; bytes: number }>): number {
  if (points.length < 3) return NaN;
  const xs = points.map((p) => p.at / 60_000);
  const ys = points.map((p) => p.bytes / 1048576);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}
