/**
 * The events plugin (docs/events.md): a transactional outbox in every outbox datasource, a durable
 * change feed read at `path` (default /api/events), workflows (`*.workflow.yml`) whose actions are
 * delivered at least once by a dispatcher, and retention of old events.
 *
 * - store.ts: inside each write's transaction (`recordChanging`), numbers the change and stores
 *   the event;
 * - feed.ts, feed-routes.ts: the change feed, as the kernel's `changeFeed` service and over HTTP;
 * - retention.ts: hourly pruning of events older than `retentionHours`;
 * - workflows/: reading and matching workflows; actions/: running them; delivery/: the fan-out
 *   that makes deliveries from the feed after commit, the deliveries table, the dispatcher and the
 *   schedules, and the dispatch thread that may run them off the main thread.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { definePlugin, PluginError, type Datasource, type Kernel, type RecordChange } from '../../kernel';
import { createActionRunner } from './actions';
import {
  createDeliveryQueue,
  deliveryTables,
  FanOutLoop,
  mountDeliveryRoutes,
  startDispatcher,
  startScheduler,
  type Dispatcher,
  type Scheduler,
} from './delivery';
import { DispatchThread, THREAD_DATA, type MainMessage } from './delivery/thread';
import { BATCH_WINDOW_MS, THREAD_BATCH_WINDOW_MS } from './delivery/window';
import { EventFeed } from './feed';
import { mountFeedRoutes } from './feed-routes';
import { DEFAULT_FEED_LIMIT, parseOptions, type EventsOptions, type EventsSettings } from './options';
import { Retention } from './retention';
import { Outbox } from './store';
import { outboxTables } from './tables';
import type { ActionRunner, Workflow } from './types';
import { loadWorkflows, Triggers } from './workflows';

export type { EventsOptions, EventsSettings } from './options';
export type { FeedEvent, FeedPage, FeedRange, FeedJudge, FeedRequest } from './feed';
export { EventFeed, readFeed, feedJudge } from './feed';
export { pruneDeliveries, pruneEvents } from './retention';

export default definePlugin((options: EventsOptions = {}) => {
  const settings = parseOptions(options);
  let kernel: Kernel;
  let outboxNames: string[] = [];
  let started = false;
  /** The workflows by name: the dispatcher and the scheduler read them at every delivery. */
  const workflows = new Map<string, Workflow>();
  let runner: ActionRunner | undefined;
  let dispatcher: Dispatcher | undefined;
  let scheduler: Scheduler | undefined;
  let retention: Retention | undefined;
  /** On the main thread with `dispatcher.thread`: the thread that makes and runs the deliveries. */
  let thread: DispatchThread | undefined;
  /** In the dispatch thread: the port its wakes come from. */
  const mainPort = (workerData as Record<string, unknown> | null)?.[THREAD_DATA] ? parentPort : null;
  const queue = createDeliveryQueue();
  const outbox = new Outbox({ datasources: () => outboxNames });
  const triggers = new Triggers();
  /** The fan-out of each outbox datasource, by name: only while the dispatcher runs. */
  const fanOuts = new Map<string, FanOutLoop>();
  /** The datasource of a recorded change a workflow may watch, until it commits (a rolled-back change is never looked up again). */
  const watched = new WeakMap<RecordChange, string>();
  const outboxes = (): Datasource[] => outboxNames.map((name) => kernel.resolve('datasources').get(name));

  return {
    name: 'events',
    register(k) {
      kernel = k;
      const path = k.http.path(settings.path);
      const feed = new EventFeed(k, () => outboxNames, DEFAULT_FEED_LIMIT, settings.feedMaxLimit);
      // The kernel's change feed service (kernel/change-feed.ts): realtime and GraphQL resume from it.
      k.provide('changeFeed', feed);
      // Initial data is loaded before plugins start: it is not recorded (the outbox opens at start).
      k.hooks.recordChanging.tapPromise('events', async (change, { datasource, tx }) => {
        if (!started) return;
        const event = await outbox.record(change, datasource, tx);
        if (event && triggers.watches(event.object)) watched.set(change, datasource.name);
      });
      // After commit: the datasource's fan-out makes the deliveries of the change's event at once.
      k.hooks.recordChanged.tap('events', (change) => {
        const datasource = watched.get(change);
        if (datasource === undefined) return;
        watched.delete(change);
        fanOuts.get(datasource)?.wake();
        thread?.wake(datasource);
      });
      k.hooks.capabilities.tap('events', (list) => [...list, { plugin: 'events', protocol: 'events', routes: [`GET ${path}`] }]);
      k.hooks.routes.tap('events', (router) => {
        // The deliveries admin API (delivery/routes.ts) before the feed, under `{path}/deliveries`.
        mountDeliveryRoutes(router, k, `${path}/deliveries`, outboxes(), () => {
          dispatcher?.wake();
          thread?.wakeDispatcher();
        });
        mountFeedRoutes(router, k, path, () => (started ? feed : undefined));
      });
    },
    async start() {
      outboxNames = chooseOutboxes(kernel, settings);
      for (const ds of outboxes()) {
        await ds.syncSchema([...outboxTables(ds.name), ...deliveryTables(ds.name)]);
        await outbox.prepare(ds);
      }
      const loaded = loadWorkflows(kernel, settings);
      for (const w of loaded) workflows.set(w.name, w);
      triggers.set(loaded);
      started = true;
      if (settings.dispatcher.enabled && settings.dispatcher.thread && outboxNames.length > 0) {
        refuseThreadOn(kernel, outboxNames);
        thread = new DispatchThread(kernel, settings);
        await thread.start();
      } else if (settings.dispatcher.enabled && outboxNames.length > 0) {
        runner = createActionRunner(kernel, settings, { concurrency: settings.dispatcher.concurrency });
        const windowMs = mainPort ? THREAD_BATCH_WINDOW_MS : BATCH_WINDOW_MS;
        dispatcher = startDispatcher({
          kernel,
          datasources: outboxes(),
          workflows,
          runner,
          settings: settings.dispatcher,
          instanceId: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
          onRoom: (datasource) => fanOuts.get(datasource)?.roomFreed(),
          windowMs,
        });
        for (const ds of outboxes()) {
          const running = dispatcher;
          const loop = new FanOutLoop(ds, {
            kernel,
            triggers,
            queue,
            pollMs: settings.dispatcher.pollMs,
            preclaim: () => running.preclaim(ds.name),
            adopt: (deliveries, heldBack) => running.adopt(ds.name, deliveries, heldBack),
            windowMs,
          });
          fanOuts.set(ds.name, loop);
          loop.start();
        }
        // Schedule deliveries are kept in the default datasource (else the first outbox).
        const home = outboxNames.includes('default') ? 'default' : outboxNames[0];
        scheduler = startScheduler({
          kernel,
          datasource: kernel.resolve('datasources').get(home),
          workflows,
          queue,
          wake: () => dispatcher?.wake(),
        });
        mainPort?.on('message', (message: MainMessage) => {
          if (message.type === 'wake') fanOuts.get(message.datasource)?.wake();
          else if (message.type === 'wake-dispatcher') dispatcher?.wake();
        });
      }
      // The main thread prunes; a dispatch thread only delivers.
      if (mainPort) return;
      retention = new Retention(outboxes, settings.retentionHours, kernel.logger, () => triggers.objects().length > 0);
      retention.start();
    },
    async stop() {
      started = false;
      await retention?.stop();
      retention = undefined;
      await thread?.stop();
      thread = undefined;
      await scheduler?.stop();
      scheduler = undefined;
      await Promise.all([...fanOuts.values()].map((loop) => loop.stop()));
      fanOuts.clear();
      await dispatcher?.stop();
      dispatcher = undefined;
      await runner?.close();
      runner = undefined;
    },
  };
});

/**
 * The datasources that keep an outbox: those listed, else every datasource holding an object.
 * Each must be configured and able to lock rows.
 */
function chooseOutboxes(kernel: Kernel, settings: EventsSettings): string[] {
  const open = kernel.resolve('datasources');
  const names =
    settings.datasources ??
    [...new Set(kernel.registry.objects().map((def) => def.datasource ?? 'default'))].filter((n) => open.names().includes(n));
  for (const name of names) {
    if (!open.names().includes(name))
      throw new PluginError(
        `Plugin 'events': datasources names '${name}', which is not a configured datasource (${open.names().join(', ')})`,
      );
    const ds = open.get(name);
    const lacks = (['lockRows', 'updateWhere', 'increment', 'createMany'] as const).filter((m) => typeof ds[m] !== 'function');
    if (lacks.length > 0)
      throw new PluginError(
        `Plugin 'events': datasource '${name}' cannot keep an outbox (its driver lacks ${lacks.join(', ')}); leave it out of the plugin's 'datasources' option`,
      );
  }
  return [...new Set(names)].sort();
}

/**
 * A dispatch thread opens its own connections to the outbox datasources: each must be stored where
 * another connection finds it. Not the memory driver, nor SQLite's `:memory:` (a store per
 * connection). Told apart by their config, as the built-in drivers name them.
 */
function refuseThreadOn(kernel: Kernel, outboxNames: string[]): void {
  for (const name of outboxNames) {
    const config = kernel.config.datasources[name] as { driver: string; client?: unknown; connection?: unknown };
    const sqlite = config.driver === 'sql' && (config.client === 'better-sqlite3' || config.client === 'sqlite3');
    const file =
      typeof config.connection === 'string' ? config.connection : (config.connection as { filename?: unknown } | undefined)?.filename;
    if (config.driver !== 'memory' && !(sqlite && file === ':memory:')) continue;
    throw new PluginError(
      `Plugin 'events': dispatcher.thread needs datasources that another connection can open; '${name}' is in memory (${sqlite ? "SQLite's :memory:" : 'the memory driver'}). Set dispatcher.thread to false`,
    );
  }
}
