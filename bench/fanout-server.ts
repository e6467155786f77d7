/**
 * One instance of the subscription fan-out bench (bench/fanout.ts), in its own process:
 * `tsx bench/fanout-server.ts <store> <redisUrl> <channelPrefix>`. JSON-RPC and GraphQL (with its
 * subscriptions over graphql-ws at the endpoint's path, ws scheme) on the bench metadata, sharing
 * record changes with the other instance through the pubsub-redis plugin. The store must be a
 * shared one (sqlite file or postgres): the two instances read the same records.
 * Prints one JSON line once listening: {pid, rpc, graphql, ws}.
 */
import { resolve } from 'node:path';
import { createKernel } from '../server';
import { datasource, type Store } from './stores';

/** The GraphQL plugin's endpoint (its default `path`); subscriptions are served there with the ws scheme. */
const GRAPHQL_PATH = '/api/graphql';

async function main(store: Store, url: string, channelPrefix: string) {
  const kernel = await createKernel({
    port: 0,
    host: '127.0.0.1',
    logLevel: (process.env.FANOUT_LOG_LEVEL ?? 'silent') as 'silent' | 'warn' | 'info' | 'debug',
    metadata: [resolve(__dirname, 'metadata')],
    datasources: { default: datasource(store) },
    // pubsub-redis first: it must have connected before graphql's subscriptions subscribe to the
    // kernel's pubsub in their start() (plugins start in this order).
    plugins: { 'pubsub-redis': { url, channelPrefix }, rpc: true, graphql: { path: GRAPHQL_PATH } },
  });
  await kernel.start();
  const stop = () => {
    kernel.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const base = kernel.http.url;
  process.stdout.write(
    `${JSON.stringify({ pid: process.pid, rpc: base + kernel.config.routes.rpc, graphql: base + GRAPHQL_PATH, ws: base.replace(/^http/, 'ws') + GRAPHQL_PATH })}\n`,
  );
}

main(process.argv[2] as Store, process.argv[3], process.argv[4]).catch((err) => {
  console.error(err);
  process.exit(1);
});
