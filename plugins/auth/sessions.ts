/**
 * The `sessions` service (registered in the kernel's container): creates sessions, looks them up
 * and revokes them, one at a time or all of a user's. Session ids are 32 random bytes in
 * base64url; the store only ever sees their SHA-256.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { User } from '../../kernel';
import type { SessionStore } from './session-store';

export interface Session {
  user: User;
  createdAt: Date;
  expiresAt: Date;
}

export interface SessionService {
  /** A new session for `user`; `id` is the value of the session_id cookie. */
  create(user: User): Promise<Session & { id: string }>;
  /** The live session with this id, or undefined (unknown, ended or expired). */
  get(sessionId: string): Promise<Session | undefined>;
  /** Ends one session; true when it was live. */
  revoke(sessionId: string): Promise<boolean>;
  /** Ends every session of a user; how many there were. */
  revokeUser(userId: string): Promise<number>;
}

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** Whether a cookie value has the shape of a session id (43 base64url characters). */
export function isSessionId(value: string): boolean {
  return SESSION_ID.test(value);
}

export class SessionManager implements SessionService {
  constructor(
    private readonly store: SessionStore,
    private readonly ttlSeconds: number,
  ) {}

  async create(user: User): Promise<Session & { id: string }> {
    const id = randomBytes(32).toString('base64url');
    const createdAt = Date.now();
    const expiresAt = createdAt + this.ttlSeconds * 1000;
    await this.store.put(storeKey(id), { user, createdAt, expiresAt });
    return { id, user, createdAt: new Date(createdAt), expiresAt: new Date(expiresAt) };
  }

  async get(sessionId: string): Promise<Session | undefined> {
    if (!isSessionId(sessionId)) return undefined;
    const stored = await this.store.get(storeKey(sessionId));
    return stored && { user: stored.user, createdAt: new Date(stored.createdAt), expiresAt: new Date(stored.expiresAt) };
  }

  async revoke(sessionId: string): Promise<boolean> {
    if (!isSessionId(sessionId)) return false;
    return this.store.delete(storeKey(sessionId));
  }

  async revokeUser(userId: string): Promise<number> {
    return this.store.deleteUser(userId);
  }
}

function storeKey(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}
