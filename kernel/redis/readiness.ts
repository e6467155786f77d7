/**
 * A plugin's Redis connections as one dependency of GET /health/ready (the kernel's `readiness`
 * hook): up when every connection is ready and answers a PING. A `commands` client fails the PING
 * within REDIS_COMMAND_TIMEOUT_MS; a `subscriber` one drops a connection whose PING goes unanswered
 * that long (socketTimeout), so the check also notices a subscriber that went silent.
 */
import type { Redis } from 'ioredis';
import type { ReadinessCheck } from '../http/readiness';

/** Resolves once every client answered a PING; rejects at once for a client that is not connected. */
export async function pingRedis(clients: Redis[]): Promise<void> {
  const waiting = clients.find((c) => c.status !== 'ready');
  if (waiting) throw new Error(`not connected (${waiting.status})`);
  await Promise.all(clients.map((c) => c.ping()));
}

/** The readiness check of `clients`, reported as redis `name` (e.g. 'auth sessions'). */
export function redisReadiness(name: string, clients: Redis[]): ReadinessCheck {
  return { kind: 'redis', name, check: () => pingRedis(clients) };
}
