/**
 * The server measured by `npm run bench:soak` and `npm run bench:attacks`, in its own process
 * (bench/child.ts, with an IPC channel): `node --import tsx bench/target-server.ts <store> <profile>`.
 *
 * The sample application (metadata/) with every protocol on — JSON-RPC, REST, OData, GraphQL with
 * graphql-ws subscriptions, realtime — behind the auth plugin (the API keys and JWT secret of
 * bench/target.ts) and the rate limiter. Profile `soak` raises the rate limiter's tiers so that it
 * is on the path of every request without refusing the soak's steady load; `attack` keeps the
 * spec's tiers, as the sample config does.
 *
 * Over IPC it reports `process.memoryUsage()` every second ({type: 'memory', ...}) and, asked
 * {type: 'gc'} (node runs with --expose-gc), collects garbage first and answers {type: 'gc', ...}:
 * the live heap, for the soak's leak verdict. Prints {pid, url} once listening; SIGTERM stops it.
 */
import { resolve } from 'node:path';
import { createKernel } from '../server';
import { datasource, type Store } from './stores';
import { API_KEYS, JWT_SECRET, type MemorySample } from './target';

const SAMPLE_MS = 1000;
/** Requests per window for the soak: far above its load, so the limiter counts without refusing. */
const SOAK_TIERS = { perMinute: 10_000_000, perHour: 100_000_000 };

/** The sample; NaN when it cannot be taken: reading the RSS needs a file descriptor, which an attack may have used up. */
function memory(type: MemorySample['type']): MemorySample {
  try {
    const m = process.memoryUsage();
    return { type, at: Date.now(), rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external };
  } catch {
    return { type, at: Date.now(), rss: NaN, heapUsed: NaN, heapTotal: NaN, external: NaN };
  }
}

async function main(store: Store, profile: 'soak' | 'attack') {
  const kernel = await createKernel({
    port: 0,
    host: '127.0.0.1',
    logLevel: (process.env.TARGET_LOG_LEVEL ?? 'silent') as 'silent',
    metadata: [resolve(__dirname, '../metadata')],
    datasources: { default: datasource(store) },
    plugins: {
      rpc: true,
      rest: true,
      odata: true,
      graphql: true,
      realtime: true,
      auth: { jwt: { secret: JWT_SECRET }, apiKeys: API_KEYS.map(({ key, user }) => ({ key, user })) },
      'rate-limit': profile === 'soak' ? { tiers: { anonymous: SOAK_TIERS, authenticated: SOAK_TIERS, premium: SOAK_TIERS } } : true,
    },
    security: { adminRoles: ['admin'] },
  });
  await kernel.start();
  const send = (message: MemorySample) => process.send?.(message);
  const timer = setInterval(() => send(memory('memory')), SAMPLE_MS);
  process.on('message', (message: { type?: string }) => {
    if (message?.type !== 'gc') return;
    (globalThis as { gc?: () => void }).gc?.();
    send(memory('gc'));
  });
  const stop = () => {
    clearInterval(timer);
    kernel.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // The parent going away (a killed bench) takes the server with it.
  process.once('disconnect', stop);
  process.stdout.write(`${JSON.stringify({ pid: process.pid, url: kernel.http.url })}\n`);
}

main(process.argv[2] as Store, process.argv[3] as 'soak' | 'attack').catch((err) => {
  console.error(err);
  process.exit(1);
});
