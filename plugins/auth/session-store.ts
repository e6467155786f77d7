/**
 * Where sessions live. Keys are the SHA-256 (hex) of session ids, never the ids themselves: a dump
 * of the store does not reveal a live session. A store enforces expiry itself (an expired session
 * is never returned) and answers per kernel: no state outside the instance.
 */
import type { User } from '../../kernel';

export interface StoredSession {
  user: User;
  /** Milliseconds since the epoch. */
  createdAt: number;
  expiresAt: number;
}

export interface SessionStore {
  /** Connects (Redis); called from the plugin's start. */
  open(): Promise<void>;
  put(key: string, session: StoredSession): Promise<void>;
  /** The session, or undefined when absent, ended or expired. */
  get(key: string): Promise<StoredSession | undefined>;
  /** Ends one session; true when it existed. */
  delete(key: string): Promise<boolean>;
  /** Ends every session of a user; how many there were. */
  deleteUser(userId: string): Promise<number>;
  close(): Promise<void>;
}
