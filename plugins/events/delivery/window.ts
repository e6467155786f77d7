/**
 * The dispatcher's bookkeeping transactions (fan-out passes, outcome writes) start at most once per
 * window: the first after a quiet spell at once, the next ones gathering what came meanwhile. Under
 * load one commit then carries many deliveries, where each would cost one; idle, nothing waits.
 */
import { performance } from 'node:perf_hooks';

export const BATCH_WINDOW_MS = 10;

export class BatchWindow {
  private last = -Infinity;

  constructor(private readonly ms = BATCH_WINDOW_MS) {}

  /** Resolves when the next start is due (after the current turn of the event loop at the earliest); that start counts from then. */
  async turn(): Promise<void> {
    const wait = this.last + this.ms - performance.now();
    await new Promise((resolve) => (wait > 0 ? setTimeout(resolve, wait) : setImmediate(resolve)));
    this.last = performance.now();
  }
}
