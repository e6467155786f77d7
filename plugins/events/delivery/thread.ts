/**
 * The dispatch thread (`dispatcher.thread`): deliveries made and run in a worker thread of this
 * process, so that their CPU is not taken from the requests of the main thread (Node runs each
 * thread's JavaScript on one core). The thread holds a kernel of its own, made from the same config
 * by the same factory (KernelOptions.factory), that serves no HTTP and whose events plugin runs the
 * fan-out, the dispatcher and the schedules, as a second instance of the same deployment would; the
 * main thread's events plugin records and serves the feed and the admin API only. They talk over the
 * worker's port:
 *
 * - main → thread: `wake` (a local commit of a watched object's change, once per turn of the event
 *   loop and datasource), `wake-dispatcher` (an admin retried a delivery), `stop`;
 * - thread → main: `ready` (started; with its thread id), `failed` (it could not start: why),
 *   `publish` (the thread kernel's in-process pubsub: a change an engine action made reaches the
 *   main thread's subscribers; a shared pubsub such as pubsub-redis replaces it and carries them).
 *
 * The thread is restarted (1 s, then doubling up to 30 s) if it dies; meanwhile deliveries wait, as
 * they do while no instance runs a dispatcher. Its claims held when it died expire (`leaseSeconds`).
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { PluginError, type Kernel } from '../../../kernel';
import type { EventsSettings } from '../options';

/** The key of `workerData` that marks the dispatch thread and carries what it is made from. */
export const THREAD_DATA = 'objectqlEventsDispatchThread';

export interface ThreadData {
  factory: string;
  config: unknown;
}

export type MainMessage = { type: 'wake'; datasource: string } | { type: 'wake-dispatcher' } | { type: 'stop' };
export type ThreadMessage =
  { type: 'ready'; tid: number | undefined } | { type: 'failed'; message: string } | { type: 'publish'; channel: string; message: unknown };

/** How long start-up waits for the thread's kernel. */
const START_TIMEOUT_MS = 60_000;
const RESTART_MIN_MS = 1000;
/** The longest wait before a restart; a thread that ran this long starts the backoff over. */
const RESTART_MAX_MS = 30_000;
/** How long stop() lets the thread's kernel stop (it waits for running actions) before ending the thread. */
const STOP_TIMEOUT_MS = 30_000;

export class DispatchThread {
  private worker: Worker | undefined;
  private stopping = false;
  private restartDelay = RESTART_MIN_MS;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly woken = new Set<string>();
  private readonly data: ThreadData;
  private readonly log: Kernel['logger'];

  constructor(
    private readonly kernel: Kernel,
    settings: EventsSettings,
  ) {
    this.log = kernel.logger.child({ plugin: 'events' });
    this.data = threadData(kernel, settings);
  }

  /** Resolves once the thread's kernel has started; rejects with why it could not. */
  async start(): Promise<void> {
    await this.spawn();
  }

  /** A local commit of a watched object's change in `datasource`: the thread's fan-out makes its deliveries. */
  wake(datasource: string): void {
    if (!this.worker || this.woken.has(datasource)) return;
    if (this.woken.size === 0) setImmediate(() => this.flushWakes());
    this.woken.add(datasource);
  }

  wakeDispatcher(): void {
    this.post({ type: 'wake-dispatcher' });
  }

  /** Asks the thread's kernel to stop (it waits for running actions, `stopTimeoutMs`) and waits for the thread to end. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return;
    const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    this.post({ type: 'stop' });
    const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
    await ended;
    clearTimeout(timer);
    this.worker = undefined;
  }

  private flushWakes(): void {
    for (const datasource of this.woken) this.post({ type: 'wake', datasource });
    this.woken.clear();
  }

  private post(message: MainMessage): void {
    this.worker?.postMessage(message);
  }

  private spawn(): Promise<void> {
    const worker = startWorker(this.data);
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      let startedAt = 0;
      const timeout = setTimeout(() => {
        if (started) return;
        void worker.terminate();
        reject(new PluginError(`Plugin 'events': the dispatch thread did not start within ${START_TIMEOUT_MS / 1000} s`));
      }, START_TIMEOUT_MS);
      worker.on('message', (message: ThreadMessage) => {
        if (message.type === 'ready') {
          started = true;
          startedAt = Date.now();
          clearTimeout(timeout);
          this.log.info({ tid: message.tid }, 'events: dispatch thread started');
          resolve();
        } else if (message.type === 'failed' && !started) {
          clearTimeout(timeout);
          reject(new PluginError(`Plugin 'events': the dispatch thread could not start: ${message.message}`));
        } else if (message.type === 'publish') {
          this.kernel
            .resolve('pubsub')
            .publish(message.channel, message.message)
            .catch((err: unknown) => this.log.warn({ err }, 'events: publishing a change of the dispatch thread failed'));
        }
      });
      worker.on('error', (err) => this.log.error({ err }, 'events: the dispatch thread failed'));
      worker.on('exit', (code) => {
        clearTimeout(timeout);
        if (this.worker === worker) this.worker = undefined;
        if (!started) {
          reject(new PluginError(`Plugin 'events': the dispatch thread ended while starting (exit code ${code})`));
          return;
        }
        if (this.stopping) return;
        if (Date.now() - startedAt >= RESTART_MAX_MS) this.restartDelay = RESTART_MIN_MS;
        this.log.error({ code, restartInMs: this.restartDelay }, 'events: the dispatch thread ended; starting it again');
        this.restartLater();
      });
    });
  }

  /** After the backoff's delay (doubling up to RESTART_MAX_MS), a new thread; again later if it cannot start. */
  private restartLater(): void {
    this.restartTimer = setTimeout(() => {
      if (this.stopping) return;
      this.spawn().catch((err: unknown) => {
        this.log.error({ err, restartInMs: this.restartDelay }, 'events: restarting the dispatch thread failed; trying again');
        this.restartLater();
      });
    }, this.restartDelay);
    this.restartDelay = Math.min(RESTART_MAX_MS, this.restartDelay * 2);
  }
}

/**
 * What the thread's kernel is made from: this kernel's config, with this plugin's settings (it may
 * have been registered in code rather than named in the config) and the dispatcher in-thread there.
 * Plugins registered in code (`kernel.use`) other than this one are not in it.
 */
function threadData(kernel: Kernel, settings: EventsSettings): ThreadData {
  if (!kernel.factory) {
    throw new PluginError(
      "Plugin 'events': dispatcher.thread needs a kernel made by createKernel (the objectql package), which a worker thread can make again",
    );
  }
  const config = {
    ...kernel.config,
    plugins: { ...kernel.config.plugins, events: { ...settings, dispatcher: { ...settings.dispatcher, thread: false } } },
  };
  try {
    return { factory: kernel.factory, config: structuredClone(config) };
  } catch (err) {
    throw new PluginError(
      `Plugin 'events': dispatcher.thread needs a config a worker thread can copy (plain data, no functions): ${(err as Error).message}`,
    );
  }
}

/** The thread-entry module: compiled JavaScript, or TypeScript when the source runs under tsx (the tests). */
function startWorker(data: ThreadData): Worker {
  const compiled = `${__dirname}/thread-entry.js`;
  const workerData = { [THREAD_DATA]: data };
  if (existsSync(compiled)) return new Worker(compiled, { workerData });
  // A worker does not inherit the main thread's require hooks: tsx's is registered there first.
  const source = `${__dirname}/thread-entry.ts`;
  const tsx = require.resolve('tsx/cjs');
  return new Worker(`require(${JSON.stringify(tsx)}); require(${JSON.stringify(source)});`, { eval: true, workerData });
}
