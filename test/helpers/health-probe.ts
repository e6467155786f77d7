/**
 * Samples `GET /health` while an attack runs, to show that liveness keeps answering. Tests assert
 * that every probe answered (never a timing bound: see docs/security.md); `npm run bench:attacks`
 * reports the percentiles.
 */
export interface HealthSamples {
  /** Probes sent. */
  count: number;
  /** Probes that did not answer 200 (refused, reset, another status). */
  failures: number;
  p50: number;
  p99: number;
  max: number;
}

/** Probes `${baseUrl}/health` every `everyMs` until `attack` settles; resolves with the attack's result and the samples. */
export async function probeHealthDuring<T>(
  baseUrl: string,
  attack: () => Promise<T>,
  everyMs = 20,
): Promise<{ result: T; health: HealthSamples }> {
  const times: number[] = [];
  let failures = 0;
  let running = true;
  const probe = async () => {
    while (running) {
      const start = performance.now();
      try {
        const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(30_000) });
        await res.arrayBuffer();
        if (res.status !== 200) failures++;
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

function summarise(times: number[], failures: number): HealthSamples {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0);
  return { count: sorted.length, failures, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}
