/**
 * Closing a client without ever waiting long: a graceful QUIT when the connection is ready (Redis
 * answers it and closes the connection), a plain disconnect otherwise, and a disconnect anyway once
 * `timeoutMs` has passed — a server that stopped answering never answers the QUIT.
 */
import type { Redis } from 'ioredis';

export const REDIS_QUIT_TIMEOUT_MS = 1000;

/** Resolves once the client is closed, never later than `timeoutMs` after the call. */
export async function quitRedis(client: Redis, timeoutMs = REDIS_QUIT_TIMEOUT_MS): Promise<void> {
  if (isClosed(client)) return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const timer = setTimeout(finish, timeoutMs);
  client.once('end', finish);
  // QUIT's answer does not matter ('end' says the connection is closed); a QUIT cut short by the disconnect below rejects.
  client.quit().catch(() => undefined);
  await finished;
  clearTimeout(timer);
  client.off('end', finish);
  // Still open after the time limit: closed without a goodbye.
  if (!isClosed(client)) client.disconnect();
}

/** A function, not an inline comparison: the status changes while this module awaits. */
function isClosed(client: Redis): boolean {
  return client.status === 'end';
}
