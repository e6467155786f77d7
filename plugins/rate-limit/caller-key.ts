/**
 * The key a caller's budget is counted under. Pure: no I/O.
 *
 * An authenticated caller is counted by user id, wherever it calls from. An anonymous caller is
 * counted by the address of the TCP peer (`req.socket.remoteAddress`; the kernel does not trust
 * X-Forwarded-For, so behind a reverse proxy every anonymous caller shares the proxy's budget),
 * keyed by the protocol layer's `addressKey` (IPv6 by its /64 prefix).
 */
import type { User } from '../../kernel';
import { addressKey } from '../../kernel/protocol';

export { addressKey };

export function callerKey(user: User | undefined, remoteAddress: string | undefined): string {
  return user ? `user:${user.id}` : `ip:${addressKey(remoteAddress)}`;
}
