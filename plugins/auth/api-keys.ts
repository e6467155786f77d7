/**
 * API keys (`X-API-Key`). Keys are held as SHA-256 digests only; a presented key is hashed and
 * compared with every stored digest in constant time, without stopping at a match, so the time
 * taken says nothing about which key (or how much of one) matched.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { PluginError, type User } from '../../kernel';
import type { ApiKeyOption } from './options';
import { CredentialRejected } from './rejection';

/** `sha256:<hex>`: the form `apiKeys[].keyHash` takes (and what `objectql hash-key` prints). */
export function hashApiKey(key: string): string {
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

interface Entry {
  digest: Buffer;
  user: User;
}

export class ApiKeyTable {
  private readonly entries: Entry[];
  /** How many keys are configured in plain text (warned about outside development and tests). */
  readonly plainCount: number;

  constructor(options: readonly ApiKeyOption[]) {
    const seen = new Map<string, number>();
    this.entries = options.map((o, i) => {
      const hex = (o.keyHash ?? hashApiKey(o.key!)).slice('sha256:'.length).toLowerCase();
      const first = seen.get(hex);
      if (first !== undefined) throw new PluginError(`Plugin 'auth': apiKeys[${i}] is the same key as apiKeys[${first}]`);
      seen.set(hex, i);
      const { id, roles, ...rest } = o.user;
      return { digest: Buffer.from(hex, 'hex'), user: Object.freeze({ ...rest, id, roles: [...roles] }) };
    });
    this.plainCount = options.filter((o) => o.key !== undefined).length;
  }

  get size(): number {
    return this.entries.length;
  }

  /** The user of `key`; CredentialRejected when no configured key matches. */
  lookup(key: string): User {
    const digest = createHash('sha256').update(key, 'utf8').digest();
    let found: Entry | undefined;
    for (const entry of this.entries) {
      // No early exit: every entry is compared whatever the outcome.
      const match = timingSafeEqual(digest, entry.digest);
      found = match && !found ? entry : found;
    }
    if (!found) throw new CredentialRejected('apiKey', 'unknown key');
    // A copy per request: nothing downstream can change the configured user.
    return { ...found.user, roles: [...found.user.roles] };
  }
}
