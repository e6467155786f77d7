/**
 * The dispatcher's bookkeeping transactions (fan-out passes, outcome writes) start at most once per
 * window: the first after a quiet spell at once, the next ones gathering what came meanwhile. Under
 * load one commit then carries many deliveries, where each would cost one; idle, nothing waits.
 */
import { performance } from 'node:perf_hooks';

export const BATCH_WINDOW_MS = 10;
/**
 * The window of the dispatch thread (thread.ts), wider: its transactions wait for, and make wait,
 * the main thread's writes. On SQLite the two threads take turns at the file's one writer, and each
 * turn handed over idles the main thread a while; measured with bench:events, 25 ms halved the
 * thread's transactions and the main thread's waits against 10 ms.
 */
export const THREAD_BATCH_WINDOW_MS = 25;

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
