/**
 * External services for tests (docs/design.md §7). A test that needs one probes it: unreachable, it
 * skips with the reason printed — unless REQUIRE_SERVICES names it (as .ci/run does for every
 * service the machine runs), in which case the test fails.
 */
import type { Context } from 'mocha';
// Hides a password in any service URL (user:password@ or ?password=), not only Redis ones.
import { redactRedisUrl } from '../../kernel/redis';

/** Services reached over a URL, plus `chromium`: a browser the tests drive (not a URL; see isRequired). */
export type ServiceName = 'postgres' | 'mysql' | 'redis' | 'mongo' | 'nats' | 'rabbitmq';
export type RequirableName = ServiceName | 'chromium';

/** Where each service is expected; override with the environment variable. */
export const SERVICE_URLS: Record<ServiceName, string | undefined> = {
  postgres: process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  mysql: process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test',
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  // No default: these machines run no MongoDB server.
  mongo: process.env.MONGO_URL,
  nats: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  rabbitmq: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
};

export function isRequired(name: RequirableName): boolean {
  return (process.env.REQUIRE_SERVICES ?? '')
    .split(',')
    .map((s) => s.trim())
    .includes(name);
}

/**
 * Runs `probe` (which should connect and disconnect quickly); returns true when the service is
 * there. Otherwise skips the calling test or hook with a printed reason, or throws when required.
 */
export async function needService(ctx: Context, name: ServiceName, probe: (url: string) => Promise<void>): Promise<boolean> {
  const url = SERVICE_URLS[name];
  let reason: string;
  if (!url) {
    reason = `no ${name} URL configured`;
  } else {
    try {
      await probe(url);
      return true;
    } catch (err) {
      reason = `${name} unreachable at ${redactRedisUrl(url)}: ${(err as Error).message}`;
    }
  }
  if (isRequired(name)) throw new Error(`REQUIRE_SERVICES names ${name}, but ${reason}`);
  console.log(`      (skipped: ${reason})`);
  ctx.skip();
  return false;
}

/** Connects to Redis and pings it, without retrying: the probe for needService(ctx, 'redis', probeRedis). */
export async function probeRedis(url: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 2000, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
  } finally {
    client.disconnect();
  }
}

/** Connects to NATS and checks that JetStream answers: the probe for needService(ctx, 'nats', probeNats). */
export async function probeNats(url: string): Promise<void> {
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const nc = await connect({ servers: url, timeout: 2000, reconnect: false });
  try {
    await (await jetstreamManager(nc, { timeout: 2000 })).getAccountInfo();
  } finally {
    await nc.close();
  }
}

/** Opens an AMQP connection and closes it: the probe for needService(ctx, 'rabbitmq', probeRabbitmq). */
export async function probeRabbitmq(url: string): Promise<void> {
  const amqp = await import('amqplib');
  const conn = await amqp.connect(url, { timeout: 2000 });
  await conn.close();
}
