/**
 * The dispatch thread's first module (thread.ts starts it in a worker): makes the thread's kernel
 * with the main thread's factory and config, serving no HTTP, starts it, and stops it when told.
 * Its events plugin sees THREAD_DATA in `workerData` and takes its wakes from the port (index.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readlinkSync } from 'node:fs';
import type { Kernel, KernelOptions, PubSub } from '../../../kernel';
import { THREAD_DATA, type MainMessage, type ThreadData, type ThreadMessage } from './thread';

type Factory = (config: unknown, options: KernelOptions) => Promise<Kernel>;

const port = parentPort!;
const send = (message: ThreadMessage) => port.postMessage(message);

/**
 * The thread kernel's default pubsub: what it publishes goes to the main thread's pubsub (its
 * subscribers are there); a plugin that provides a shared pubsub (pubsub-redis) replaces this one.
 */
function mainThreadPubSub(): PubSub {
  return {
    publish: (channel, message) => {
      send({ type: 'publish', channel, message });
      return Promise.resolve();
    },
    // Nothing in the thread subscribes (it serves no clients): no message comes back to it.
    subscribe: () => Promise.resolve(() => Promise.resolve()),
    close: () => Promise.resolve(),
  };
}

/** This thread's id in the operating system (for pinning it to a CPU), where /proc tells. */
function osThreadId(): number | undefined {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const { factory, config } = (workerData as Record<string, ThreadData>)[THREAD_DATA];
  let kernel: Kernel | undefined;
  let stopping = false;
  const stop = () => {
    if (!kernel) return;
    kernel
      .stop()
      .catch((err: unknown) => kernel?.logger.error({ err }, 'events: stopping the dispatch thread failed'))
      .finally(() => port.close());
  };
  // Told to stop while starting: it stops once started.
  port.on('message', (message: MainMessage) => {
    if (message.type !== 'stop' || stopping) return;
    stopping = true;
    stop();
  });
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the composition root that made the main kernel, known at run time
    const { createKernel } = require(factory) as { createKernel: Factory };
    const made = await createKernel(config, { serve: false, logBindings: { thread: 'events-dispatch' } });
    made.provide('pubsub', mainThreadPubSub());
    await made.start();
    kernel = made;
  } catch (err) {
    send({ type: 'failed', message: (err as Error).message });
    port.close();
    return;
  }
  send({ type: 'ready', tid: osThreadId() });
  if (stopping) stop();
}

void main();
