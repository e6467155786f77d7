/**
 * A FIFO async mutex: a chain of promises, each waiter resolved when the previous one releases.
 * For drivers that must serialise work (a store with one writer); written by hand because it is
 * a dozen lines.
 */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  /** Waits for the lock; the returned release may be called more than once. */
  async lock(): Promise<() => void> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.tail;
    this.tail = previous.then(() => released);
    await previous;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
    };
  }

  /** Runs fn holding the lock. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.lock();
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
