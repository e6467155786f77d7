/**
 * /health latency while an attack runs: test/helpers/health-probe.ts's probe, run in a worker thread
 * (bench/health-worker.ts) so that the attack's own work in this process does not count as the
 * server's slowness.
 */
import { once } from 'node:events';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { HealthSamples } from '../test/helpers/health-probe';

export type { HealthSamples };

export async function healthDuring<T>(url: string, attack: () => Promise<T>, everyMs = 20): Promise<{ result: T; health: HealthSamples }> {
  // A worker loads plain JavaScript: this one registers tsx's require hook, then loads the TypeScript probe.
  const worker = new Worker(`require('tsx/cjs'); require(${JSON.stringify(resolve(__dirname, 'health-worker.ts'))});`, {
    eval: true,
    workerData: { url, everyMs },
  });
  try {
    await once(worker, 'message');
    const done = new Promise<HealthSamples>((resolveHealth, reject) => {
      worker.on('message', (m: { type: string; health?: HealthSamples; message?: string }) =>
        m.type === 'done' ? resolveHealth(m.health!) : reject(new Error(m.message)),
      );
      worker.once('error', reject);
    });
    let result: T;
    try {
      result = await attack();
    } finally {
      worker.postMessage('stop');
    }
    return { result, health: await done };
  } finally {
    await worker.terminate();
  }
}
