import { Mutex } from 'async-mutex';
import { resolve } from 'node:path';
import { getEnvironmentData, setEnvironmentData, threadId } from 'node:worker_threads';

/** What every write and transaction of a single-writer engine holds (SQLite's file lock below). */
export interface WriteLock {
  runExclusive<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * The write lock of one SQLite file, shared by every datasource of this process that opens it, in
 * every thread. SQLite has one writer per file and better-sqlite3 waits for a busy file
 * synchronously (the event loop stops for busy_timeout): datasources on one file must therefore
 * queue their writes here rather than in SQLite.
 *
 * - Within a thread, an async mutex.
 * - Across threads (worker_threads, such as the events plugin's dispatch thread), a ticket lock in
 *   a SharedArrayBuffer, first come first served, so that neither thread starves the other. The
 *   first thread to open the file puts the buffer in worker_threads' environment data, which
 *   workers started afterwards receive (the buffer itself shared, not copied). A worker started
 *   before the file was opened has a lock of its own: SQLite's busy wait then separates them.
 * - A thread that ended holding or awaiting a turn (a worker terminated mid-transaction) would stop
 *   every other. Each thread beats a heartbeat in the buffer; a waiter that finds the turn's owner
 *   silent for STALE_MS passes its turn. A live thread whose event loop stalled that long may so
 *   lose its turn: SQLite's own locks still keep the file consistent (a busy wait then).
 *
 * The entries are the only process-wide state of the driver, mirroring a process-wide resource (the
 * file); an entry goes away with its thread's last user, the buffer stays for the process's life.
 */
const fileLocks = new Map<string, { lock: FileWriteLock; users: number }>();

export interface FileLock {
  readonly lock: WriteLock;
  release(): void;
}

export function acquireFileLock(path: string): FileLock {
  const key = resolve(path);
  let entry = fileLocks.get(key);
  if (!entry) {
    entry = { lock: new FileWriteLock(sharedBuffer(key)), users: 0 };
    fileLocks.set(key, entry);
  }
  entry.users += 1;
  const held = entry;
  let released = false;
  return {
    lock: held.lock,
    release() {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users === 0 && fileLocks.get(key) === held) {
        fileLocks.delete(key);
        held.lock.close();
      }
    },
  };
}

// The buffer: [next ticket, ticket served, owner of ticket t at OWNERS + t mod RING, heartbeat of thread n at BEATS + n mod RING].
// Tickets are Int32 and wrap around: slots are taken with `& (RING - 1)`, which stays in range below zero too.
const NEXT = 0;
const SERVING = 1;
const RING = 64;
const OWNERS = 2;
const BEATS = OWNERS + RING;
const SLOTS = BEATS + RING;
/** How often a thread beats, and how long a silent owner keeps its turn. */
const BEAT_MS = 100;
const STALE_MS = 2000;

function sharedBuffer(file: string): Int32Array {
  const name = `objectql:sqlite-write-lock:${file}`;
  let buffer = getEnvironmentData(name);
  if (!(buffer instanceof SharedArrayBuffer)) {
    buffer = new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT);
    setEnvironmentData(name, buffer);
  }
  return new Int32Array(buffer as SharedArrayBuffer);
}

/** Turns across threads (the ticket lock above) behind this thread's own queue. */
export class FileWriteLock implements WriteLock {
  private readonly mutex = new Mutex();
  /** Thread ids start at 0 (the main thread): stored plus one, 0 meaning none. */
  private readonly me = threadId + 1;
  private readonly beat: NodeJS.Timeout;

  constructor(private readonly shared: Int32Array) {
    this.beat = setInterval(() => Atomics.add(shared, BEATS + (this.me & (RING - 1)), 1), BEAT_MS);
    this.beat.unref();
  }

  runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.mutex.runExclusive(async () => {
      const ticket = await this.turn();
      try {
        return await fn();
      } finally {
        // Unless a waiter passed this turn meanwhile (STALE_MS), the next ticket's turn.
        if (Atomics.compareExchange(this.shared, SERVING, ticket, ticket + 1) === ticket) Atomics.notify(this.shared, SERVING);
      }
    });
  }

  close(): void {
    clearInterval(this.beat);
  }

  private async turn(): Promise<number> {
    const shared = this.shared;
    const ticket = Atomics.add(shared, NEXT, 1);
    Atomics.store(shared, OWNERS + (ticket & (RING - 1)), this.me);
    let watched: { serving: number; beat: number; since: number } | undefined;
    for (;;) {
      const serving = Atomics.load(shared, SERVING);
      if (serving === ticket) return ticket;
      const wait = Atomics.waitAsync(shared, SERVING, serving, BEAT_MS * 2);
      if (wait.async) {
        // A pending waitAsync does not keep Node's event loop alive: this timer does, meanwhile.
        const alive = setTimeout(() => undefined, BEAT_MS * 2);
        await wait.value;
        clearTimeout(alive);
      }
      if (Atomics.load(shared, SERVING) !== serving) continue;
      // Still the same turn: is its owner alive?
      const owner = Atomics.load(shared, OWNERS + (serving & (RING - 1)));
      const beat = Atomics.load(shared, BEATS + (owner & (RING - 1)));
      const now = Date.now();
      if (!watched || watched.serving !== serving || watched.beat !== beat) {
        watched = { serving, beat, since: now };
      } else if (now - watched.since >= STALE_MS && Atomics.compareExchange(shared, SERVING, serving, serving + 1) === serving) {
        Atomics.notify(shared, SERVING);
      }
    }
  }
}
