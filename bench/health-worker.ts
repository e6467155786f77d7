/**
 * Probes a server's /health in a worker thread (bench/health.ts), so that an attack driven from
 * the main thread cannot delay the probes by keeping this process's event loop busy. Reuses the
 * tests' probe (test/helpers/health-probe.ts); the attack it waits on is the main thread's 'stop'. Each probe opens a connection of its own.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { probeHealthDuring } from '../test/helpers/health-probe';

const { url, everyMs } = workerData as { url: string; everyMs: number };
const stopped = new Promise<void>((resolve) => parentPort!.once('message', () => resolve()));

/** A few unmeasured probes first: the worker's first fetch pays for loading its HTTP client and connecting. */
async function warm(): Promise<void> {
  for (let i = 0; i < 3; i++) await (await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) })).arrayBuffer();
}

warm()
  .catch(() => undefined)
  .then(() => {
    parentPort!.postMessage({ type: 'started' });
    return probeHealthDuring(url, () => stopped, everyMs, { newConnections: true });
  })
  .then(
    ({ health }) => parentPort!.postMessage({ type: 'done', health }),
    (err: Error) => parentPort!.postMessage({ type: 'error', message: err.message }),
  );
