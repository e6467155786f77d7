/**
 * Samples `GET /health` while an attack runs, to show that liveness keeps answering. Tests assert
 * that every probe answered (never a timing bound: see docs/security.md); `npm run bench:attacks`
 * reports the percentiles.
 */
import { get } from 'node:http';

const PROBE_TIMEOUT_MS = 30_000;

export interface HealthSamples {
  /** Probes sent. */
  count: number;
  /** Probes that did not answer 200 (refused, reset, another status). */
  failures: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Probes `${baseUrl}/health` every `everyMs` until `attack` settles; resolves with the attack's result and the samples.
 * `newConnections`: each probe on a connection of its own, as a load balancer's health check comes — so
 * a server that stopped accepting connections fails, where a kept-alive connection opened before the
 * attack would still be served.
 */
export async function probeHealthDuring<T>(
  baseUrl: string,
  attack: () => Promise<T>,
  everyMs = 20,
  options: { newConnections?: boolean } = {},
): Promise<{ result: T; health: HealthSamples }> {
  const times: number[] = [];
  let failures = 0;
  let running = true;
  const probe = async () => {
    while (running) {
      const start = performance.now();
      try {
        const status = options.newConnections ? await getOnNewConnection(`${baseUrl}/health`) : await getStatus(`${baseUrl}/health`);
        if (status !== 200) failures++;
      } catch {
        failures++;
      }
      times.push(performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  };
  const prober = probe();
  let result: T;
  try {
    result = await attack();
  } finally {
    running = false;
    await prober;
  }
  // Summarised after the last probe answered: the one in flight when the attack ended is often the
  // one the attack held up the longest.
  return { result, health: summarise(times, failures) };
}

async function getStatus(url: string): Promise<number> {
  const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  await res.arrayBuffer();
  return res.status;
}

function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false, timeout: PROBE_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

function summarise(times: number[], failures: number): HealthSamples {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0);
  return { count: sorted.length, failures, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}
