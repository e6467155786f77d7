/**
 * One subscription's stream of payloads: changes are offered as they arrive, turned into payloads
 * (or dropped) by an async function — a few at once, and events leave in the order they came —
 * and pulled by graphql-js's subscription loop as an async iterator.
 */
import { Semaphore } from 'async-mutex';

/** Undelivered payloads one subscriber may hold before the oldest are dropped (a slow client). */
export const MAX_BUFFERED = 1000;
/** Payloads one subscription makes at once. */
const PAYLOADS_IN_FLIGHT = 8;

export class EventStream<C, P> implements AsyncIterableIterator<P> {
  private readonly buffer: P[] = [];
  private readonly waiting: Array<(result: IteratorResult<P>) => void> = [];
  private tail: Promise<void> = Promise.resolve();
  /** Changes offered and not yet turned into payloads: bounded like the buffer, so reads that fall behind cannot queue without end. */
  private pending = 0;
  private readonly making = new Semaphore(PAYLOADS_IN_FLIGHT);
  private closed = false;

  constructor(
    private readonly toPayload: (change: C) => Promise<P | undefined>,
    private readonly onClose: () => void,
    private readonly onDrop: (error: unknown) => void,
    /** Whether a change is still to be delivered when its turn comes (after a hold: a resumed subscription drops what it replayed). */
    private readonly keep: (change: C) => boolean = () => true,
  ) {}

  /**
   * Holds the changes offered from now on (their payloads are made, not delivered) until the
   * returned function is called: a resumed subscription delivers what it replays first.
   */
  hold(): () => void {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    this.tail = this.tail.then(() => gate);
    return release;
  }

  /** Delivers a payload now, ahead of the changes held (see hold). */
  deliver(payload: P): void {
    this.push(payload);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Queues a change; its payload (if any) is delivered after those of earlier changes. Payloads are
   * made a few at a time (each may wait on a database read), so a stream keeps up with writes.
   */
  offer(change: C): void {
    if (this.closed) return;
    if (this.pending >= MAX_BUFFERED) {
      this.onDrop(new Error(`subscriber too slow: more than ${MAX_BUFFERED} events waiting to be read, this one was dropped`));
      return;
    }
    this.pending++;
    const made = this.making.runExclusive(() => (this.closed ? undefined : this.toPayload(change)));
    made.catch(() => undefined);
    this.tail = this.tail.then(async () => {
      this.pending--;
      if (!this.keep(change)) return;
      let payload: P | undefined;
      try {
        payload = await made;
      } catch (err) {
        this.onDrop(err);
        return;
      }
      if (payload !== undefined) this.push(payload);
    });
  }

  private push(payload: P): void {
    if (this.closed) return;
    const waiter = this.waiting.shift();
    if (waiter) return waiter({ value: payload, done: false });
    if (this.buffer.length >= MAX_BUFFERED) {
      this.buffer.shift();
      this.onDrop(new Error(`subscriber too slow: more than ${MAX_BUFFERED} undelivered events, the oldest was dropped`));
    }
    this.buffer.push(payload);
  }

  next(): Promise<IteratorResult<P>> {
    if (this.buffer.length) return Promise.resolve({ value: this.buffer.shift() as P, done: false });
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Ends the stream (the client completed, the socket closed, the server stops). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.length = 0;
    for (const waiter of this.waiting.splice(0)) waiter({ value: undefined, done: true });
    this.onClose();
  }

  return(): Promise<IteratorResult<P>> {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  /** Ends the stream and rejects with the error (graphql-js passes on what its consumer threw). */
  throw(error?: unknown): Promise<IteratorResult<P>> {
    this.close();
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
