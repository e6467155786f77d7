/**
 * Closing a client without ever waiting long: a graceful QUIT when the connection is ready (Redis
 * answers it and closes the connection), and otherwise — or when `timeoutMs` has passed without
 * the connection closing, as against a server that stopped answering — a disconnect on the spot.
 */
import type { Redis } from 'ioredis';

export const REDIS_QUIT_TIMEOUT_MS = 1000;

/**
 * Resolves once the client is closed for good, never later than `timeoutMs` after the call: no
 * socket left open, no reconnection attempt after it, commands still queued rejected.
 */
export async function quitRedis(client: Redis, timeoutMs = REDIS_QUIT_TIMEOUT_MS): Promise<void> {
  if (isClosed(client)) return;
  if (client.status === 'ready') {
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const timer = setTimeout(finish, timeoutMs);
    client.once('end', finish);
    // QUIT's answer does not matter ('end' says the connection is closed); a QUIT cut short by closeNow rejects.
    client.quit().catch(() => undefined);
    await finished;
    clearTimeout(timer);
    client.off('end', finish);
  }
  if (!isClosed(client)) closeNow(client);
}

/** Disconnects without a goodbye: stops reconnecting and tears the socket down. */
export function closeNow(client: Redis): void {
  client.disconnect();
  // disconnect() only half-closes the socket, and a server that stopped answering may never close its side.
  client.stream?.destroy();
}

/** A function, not an inline comparison: the status changes while quitRedis awaits. */
function isClosed(client: Redis): boolean {
  return client.status === 'end';
}
