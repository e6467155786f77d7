/**
 * Passes of a loop (a fan-out, a dispatcher's claims) run one at a time: a wake during a pass runs
 * one more after it, however many wakes came; none once stopped.
 */
export class Passes {
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly pass: () => Promise<void>) {}

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** No pass starts from now on; resolves once the one under way ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
