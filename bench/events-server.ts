/**
 * One server of `npm run bench:events` in its own process:
 * `tsx bench/events-server.ts off|outbox|workflow|thread|split|dispatcher <sqlite file | postgres URL> [receiver URL]`.
 * - off: ObjectQL with REST on bench_order (bench/metadata-events/), no events plugin;
 * - outbox: the events plugin on, no workflow (each write also records its event);
 * - workflow: the events plugin on, its dispatcher enabled, and one workflow
 *   (bench/metadata-events-workflow/) sending every created bench_order to the receiver;
 * - thread: the same workflow, delivered by the plugin's dispatch thread (`dispatcher.thread`, a
 *   worker thread of this process); the JSON line also lists the threads its start added (`threads`: the
 *   dispatch thread's OS ids), for the caller to pin them;
 * - split, dispatcher: the same workflow, delivered by a second instance (below).
 * A SQLite file is removed first (a PostgreSQL database is made empty by the caller). Prints one JSON line once listening: its pid and REST base URL.
 * Runs the compiled build, as bench/server.ts does.
 */
import { existsSync, promises as fs, readdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type * as Server from '../server';

/**
 * `split` and `dispatcher` are one deployment (PostgreSQL only): `split` takes the writes, with the
 * workflow and its dispatcher disabled; `dispatcher`, on the same database, takes no writes and
 * delivers what `split` records (polling every 20 ms: nothing wakes it across processes).
 */
export type EventsVariant = 'off' | 'outbox' | 'workflow' | 'thread' | 'split' | 'dispatcher';

/** This process's threads, by OS id (none known without /proc). */
const threads = () => new Set(existsSync('/proc/self/task') ? readdirSync('/proc/self/task').map(Number) : []);

async function main(variant: EventsVariant, store: string, receiver: string | undefined) {
  const built = resolve(__dirname, '../dist/server/index.js');
  if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build first`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the build, found at run time
  const { createKernel } = require(built) as typeof Server;
  const postgres = store.startsWith('postgres://');
  if (!postgres && (variant === 'split' || variant === 'dispatcher')) throw new Error(`the ${variant} variant needs PostgreSQL`);
  if (!postgres) for (const suffix of ['', '-wal', '-shm']) rmSync(store + suffix, { force: true });
  const metadata = [resolve(__dirname, 'metadata-events')];
  if (variant !== 'off' && variant !== 'outbox') {
    if (!receiver) throw new Error(`the ${variant} variant needs the receiver URL`);
    process.env.BENCH_EVENTS_RECEIVER = receiver;
    metadata.push(resolve(__dirname, 'metadata-events-workflow'));
  }
  const dispatcher =
    variant === 'split'
      ? { enabled: false }
      : variant === 'dispatcher'
        ? { enabled: true, pollMs: 20 }
        : { enabled: true, thread: variant === 'thread' };
  const events = { webhooks: { allowHosts: ['127.0.0.1'] }, dispatcher };
  const kernel = await createKernel({
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
    metadata,
    datasources: {
      default: postgres
        ? { driver: 'sql', client: 'pg', connection: store }
        : { driver: 'sql', client: 'better-sqlite3', connection: { filename: store } },
    },
    plugins: { rest: true, ...(variant === 'off' ? {} : { events }) },
  });
  // libuv's thread pool started first (it starts all its threads at once), so that what start adds is the dispatch thread.
  await Promise.all(Array.from({ length: 4 }, () => fs.stat(__filename)));
  const before = threads();
  await kernel.start();
  const added = [...threads()].filter((tid) => !before.has(tid));
  process.stdout.write(`${JSON.stringify({ pid: process.pid, rest: kernel.http.url + kernel.config.routes.data, threads: added })}\n`);
}

// An exit on SIGINT or SIGTERM writes the CPU profile of EVENTS_PROFILE=1 (node --cpu-prof).
process.once('SIGINT', () => process.exit(0));
process.once('SIGTERM', () => process.exit(0));

main(process.argv[2] as EventsVariant, process.argv[3], process.argv[4]).catch((err) => {
  console.error(err);
  process.exit(1);
});
