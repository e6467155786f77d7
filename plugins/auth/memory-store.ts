/**
 * The in-process session store, one per kernel. Expiry is checked on every read; expired entries
 * are swept lazily, at most once a minute, while the store is used: no timer keeps the process alive.
 */
import type { SessionStore, StoredSession } from './session-store';

const SWEEP_EVERY_MS = 60_000;

export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, StoredSession>();
  private nextSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  open(): Promise<void> {
    return Promise.resolve();
  }

  put(key: string, session: StoredSession): Promise<void> {
    this.sweep();
    // A copy in and a copy out: nothing outside the store can change a stored session.
    this.sessions.set(key, structuredClone(session));
    return Promise.resolve();
  }

  get(key: string): Promise<StoredSession | undefined> {
    const session = this.live(key);
    return Promise.resolve(session && structuredClone(session));
  }

  delete(key: string): Promise<boolean> {
    const live = this.live(key) !== undefined;
    this.sessions.delete(key);
    return Promise.resolve(live);
  }

  deleteUser(userId: string): Promise<number> {
    let count = 0;
    const now = this.now();
    for (const [key, session] of this.sessions) {
      if (session.user.id !== userId) continue;
      this.sessions.delete(key);
      if (session.expiresAt > now) count++;
    }
    return Promise.resolve(count);
  }

  close(): Promise<void> {
    this.sessions.clear();
    return Promise.resolve();
  }

  /** The stored session under `key` unless it has expired (then it is dropped). */
  private live(key: string): StoredSession | undefined {
    this.sweep();
    const session = this.sessions.get(key);
    if (session && session.expiresAt <= this.now()) {
      this.sessions.delete(key);
      return undefined;
    }
    return session;
  }

  private sweep(): void {
    const now = this.now();
    if (now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_EVERY_MS;
    for (const [key, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(key);
  }
}
