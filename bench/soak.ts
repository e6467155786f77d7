/**
 * `npm run bench:soak`: a bounded soak of the sample application with every protocol on.
 *
 * For each engine (`--engines sqlite,postgres`; PostgreSQL at PG_URL, default 127.0.0.1:5432 trust,
 * in a database of its own, bench/stores.ts) the server runs in its own process
 * (bench/target-server.ts) on a fresh store, on loopback. `--concurrency` clients (default 16)
 * send, one request at a time each, a weighted mix of reads and writes through JSON-RPC, REST,
 * OData and GraphQL (bench/soak-workload.ts) for `--duration` seconds (default 120), while
 * `--listeners` realtime sockets and as many graphql-ws clients (default 8 each) stay subscribed to
 * every task change (bench/soak-subscribers.ts).
 *
 * Reports, per engine: requests, outcomes by class (a 4xx is the caller's; anything else — 5xx, a
 * GraphQL error with a server code, a reset, a request over `--timeout` ms — is a failure), p50/p99
 * per 10 s window and per protocol, the events the listeners received, the server's RSS and heap
 * over time (it reports process.memoryUsage() over IPC every second), and a leak verdict:
 *
 *   Leak rule: after a warm-up (a quarter of the run, at most 20 s), the server collects garbage
 *   and reports its heap every few seconds (at least 6 points); the least-squares slope of those
 *   live-heap sizes must stay under `--leak-mib-per-min` (default 2 MiB per minute). A leak of
 *   even 100 bytes a request, at this load, grows the live heap far faster; caches that fill once
 *   (compiled queries, GraphQL documents) fill during the warm-up.
 *
 * Exits non-zero when any engine had a failure, a listener failed, the server died, or the verdict
 * is "leak". `--json` prints the results as JSON instead of the tables.
 */
import { parseArgs } from 'node:util';
import { listen, type Listeners } from './soak-subscribers';
import { classify, pickOperation, type Caller, type Protocol } from './soak-workload';
import { isServerFailure, latencies, Outcomes, slopePerMinute, type Latencies } from './soak-stats';
import { mib, startTarget, type MemorySample } from './target';
import type { Store } from './stores';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '120' },
    engines: { type: 'string', default: 'sqlite,postgres' },
    concurrency: { type: 'string', default: '16' },
    listeners: { type: 'string', default: '8' },
    timeout: { type: 'string', default: '10000' },
    'leak-mib-per-min': { type: 'string', default: '2' },
    json: { type: 'boolean', default: false },
  },
});

const DURATION_MS = Number(args.duration) * 1000;
const CONCURRENCY = Number(args.concurrency);
const LISTENERS = Number(args.listeners);
const TIMEOUT_MS = Number(args.timeout);
const LEAK_LIMIT = Number(args['leak-mib-per-min']);
const WINDOW_MS = 10_000;
const DRAIN_MS = 20_000;
/** No event for this long after the load means the listeners heard all they will. */
const QUIET_MS = 3000;
const WARMUP_MS = Math.min(20_000, DURATION_MS / 4);
const GC_EVERY_MS = Math.min(15_000, Math.max(2_000, (DURATION_MS - WARMUP_MS) / 8));

interface WindowRow extends Latencies {
  window: string;
  perSecond: number;
  clientErrors: number;
  failures: number;
  events: { realtime: number; graphql: number };
  rssMiB: number;
  heapMiB: number;
}

interface EngineResult {
  engine: Store;
  durationS: number;
  concurrency: number;
  listeners: number;
  requests: number;
  failures: number;
  clientErrors: number;
  outcomes: Record<string, { count: number; example: string }>;
  windows: WindowRow[];
  protocols: Array<{ protocol: Protocol } & Latencies & { clientErrors: number; failures: number }>;
  /** Events received by the time the load stopped, and by the end of the drain. */
  events: { realtime: number; graphql: number };
  eventsAtEnd: { realtime: number; graphql: number };
  /** Seconds after the load stopped until no more events came (at most DRAIN_MS). */
  drainS: number;
  listenerFailures: string[];
  serverExited?: string;
  liveHeap: Array<{ atS: number; heapMiB: number }>;
  heapSlopeMiBPerMin: number;
  rssSlopeMiBPerMin: number;
  leak: 'no leak' | 'leak' | 'not enough samples';
}

async function soak(engine: Store): Promise<EngineResult> {
  const target = await startTarget(engine, 'soak');
  const t0 = Date.now();
  const lastWindow = Math.ceil(DURATION_MS / WINDOW_MS) - 1;
  // A request answered after the end counts in the last window.
  const windowOf = (at: number) => Math.min(lastWindow, Math.max(0, Math.floor((at - t0) / WINDOW_MS)));
  const outcomes = new Outcomes();
  const windowLatencies: number[][] = [];
  const windowOutcomes: Array<{ client: number; failures: number }> = [];
  const perProtocol = new Map<Protocol, { times: number[]; client: number; failures: number }>();
  const listeners = await listen(target, LISTENERS, windowOf);
  const liveHeap: MemorySample[] = [];
  let drain: Awaited<ReturnType<typeof drainEvents>> | undefined;
  const end = t0 + DURATION_MS;
  try {
    const client = async (index: number) => {
      const caller: Caller = { url: target.url, index, own: [], sequence: 0, timeoutMs: TIMEOUT_MS };
      while (Date.now() < end && !target.exited) {
        const op = pickOperation();
        const started = performance.now();
        let cls: string;
        let example: string;
        try {
          const answer = await op.run(caller);
          cls = classify(op.protocol, answer);
          example = `${op.protocol} ${op.name}: HTTP ${answer.status} ${answer.body}`;
        } catch (err) {
          const e = err as Error & { cause?: { code?: string } };
          cls = e.name === 'TimeoutError' ? `timeout over ${TIMEOUT_MS} ms` : `network ${e.cause?.code ?? e.message}`;
          example = `${op.protocol} ${op.name}: ${e.cause?.code ?? e.message}`;
        }
        const elapsed = performance.now() - started;
        const w = windowOf(Date.now());
        (windowLatencies[w] ??= []).push(elapsed);
        const wo = (windowOutcomes[w] ??= { client: 0, failures: 0 });
        const p = perProtocol.get(op.protocol) ?? { times: [], client: 0, failures: 0 };
        perProtocol.set(op.protocol, p);
        p.times.push(elapsed);
        outcomes.add(cls, example);
        if (cls.startsWith('4xx')) {
          wo.client++;
          p.client++;
        } else if (isServerFailure(cls)) {
          wo.failures++;
          p.failures++;
        }
      }
    };
    const sampleLiveHeap = async () => {
      await sleep(WARMUP_MS);
      while (Date.now() < end - 500 && !target.exited) {
        liveHeap.push(await target.gc());
        await sleep(Math.min(GC_EVERY_MS, end - Date.now() - 500));
      }
    };
    await Promise.all([...Array.from({ length: CONCURRENCY }, (_, i) => client(i)), sampleLiveHeap()]);
    drain = await drainEvents(listeners);
  } finally {
    await listeners.close();
    await target.stop();
  }

  const heapPoints = liveHeap.filter((s) => Number.isFinite(s.heapUsed)).map((s) => ({ at: s.at - t0, bytes: s.heapUsed }));
  const rssPoints = target.samples.filter((s) => s.at - t0 >= WARMUP_MS).map((s) => ({ at: s.at - t0, bytes: s.rss }));
  const heapSlope = slopePerMinute(heapPoints);
  const windows: WindowRow[] = windowLatencies.map((times, w) => {
    const last = [...target.samples].reverse().find((s) => s.at - t0 <= (w + 1) * WINDOW_MS) ?? target.samples[0];
    const span = Math.min(WINDOW_MS, DURATION_MS - w * WINDOW_MS) / 1000;
    return {
      window: `${w * 10}–${Math.min((w + 1) * 10, DURATION_MS / 1000)} s`,
      ...latencies(times ?? []),
      perSecond: (times?.length ?? 0) / span,
      clientErrors: windowOutcomes[w]?.client ?? 0,
      failures: windowOutcomes[w]?.failures ?? 0,
      events: { realtime: listeners.eventsAt.realtime[w] ?? 0, graphql: listeners.eventsAt.graphql[w] ?? 0 },
      rssMiB: last ? last.rss / 1048576 : NaN,
      heapMiB: last ? last.heapUsed / 1048576 : NaN,
    };
  });
  return {
    engine,
    durationS: DURATION_MS / 1000,
    concurrency: CONCURRENCY,
    listeners: LISTENERS,
    requests: outcomes.count(() => true),
    failures: outcomes.count(isServerFailure),
    clientErrors: outcomes.count((c) => c.startsWith('4xx')),
    outcomes: Object.fromEntries(outcomes.byClass),
    windows,
    protocols: [...perProtocol].map(([protocol, p]) => ({ protocol, ...latencies(p.times), clientErrors: p.client, failures: p.failures })),
    events: listeners.events,
    eventsAtEnd: drain?.atEnd ?? { ...listeners.events },
    drainS: drain?.seconds ?? NaN,
    listenerFailures: [
      ...listeners.failures,
      ...(listeners.events.realtime === listeners.events.graphql
        ? []
        : [
            `realtime delivered ${listeners.events.realtime} events and GraphQL ${listeners.events.graphql} for the same changes ` +
              `(the last ${drain?.seconds ?? NaN} s after the load stopped): a delivery backlog (a record deleted before its re-read gives no event)`,
          ]),
    ],
    serverExited: target.exited === 'exited with code 0' ? undefined : target.exited,
    liveHeap: heapPoints.map((p) => ({ atS: p.at / 1000, heapMiB: p.bytes / 1048576 })),
    heapSlopeMiBPerMin: heapSlope,
    rssSlopeMiBPerMin: slopePerMinute(rssPoints),
    leak: Number.isNaN(heapSlope) ? 'not enough samples' : heapSlope < LEAK_LIMIT ? 'no leak' : 'leak',
  };
}

/**
 * Waits, after the load stopped, until the listeners' counts have not moved for QUIET_MS (at most
 * DRAIN_MS): both kinds hear the same changes, so they must end equal — events still arriving late,
 * or never, are a delivery backlog.
 */
async function drainEvents(listeners: Listeners) {
  const atEnd = { ...listeners.events };
  const started = Date.now();
  let last = { ...listeners.events };
  let still = Date.now();
  while (Date.now() - started < DRAIN_MS) {
    await sleep(200);
    const now = listeners.events;
    if (now.realtime !== last.realtime || now.graphql !== last.graphql) {
      last = { ...now };
      still = Date.now();
    } else if (Date.now() - still >= QUIET_MS) break;
  }
  return { seconds: (still - started) / 1000, atEnd };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const f = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '—');

function print(r: EngineResult): void {
  console.log(
    `\n### ${r.engine}: ${r.durationS} s, ${r.concurrency} clients (JSON-RPC, REST, OData, GraphQL), ${r.listeners} realtime sockets + ${r.listeners} graphql-ws clients\n`,
  );
  console.log(
    `${r.requests} requests (${f(r.requests / r.durationS, 0)}/s), ${r.clientErrors} expected 4xx, **${r.failures} failures**; ` +
      `events delivered: realtime ${r.events.realtime}, GraphQL ${r.events.graphql} (when the load stopped: ${r.eventsAtEnd.realtime} / ${r.eventsAtEnd.graphql}; the last came ${f(r.drainS)} s after it).\n`,
  );
  console.log('| window | requests/s | p50 ms | p99 ms | max ms | 4xx | failures | events realtime / GraphQL | RSS MiB | heap MiB |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const w of r.windows)
    console.log(
      `| ${w.window} | ${f(w.perSecond, 0)} | ${f(w.p50)} | ${f(w.p99)} | ${f(w.max)} | ${w.clientErrors} | ${w.failures} | ${w.events.realtime} / ${w.events.graphql} | ${f(w.rssMiB, 0)} | ${f(w.heapMiB, 0)} |`,
    );
  console.log('\n| protocol | requests | p50 ms | p99 ms | max ms | 4xx | failures |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const p of r.protocols)
    console.log(`| ${p.protocol} | ${p.count} | ${f(p.p50)} | ${f(p.p99)} | ${f(p.max)} | ${p.clientErrors} | ${p.failures} |`);
  console.log('\n| outcome | count | first example |');
  console.log('|---|---:|---|');
  for (const [cls, { count, example }] of Object.entries(r.outcomes))
    console.log(`| ${cls} | ${count} | ${cls === 'ok' ? '' : example.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
  const heap = r.liveHeap;
  console.log(
    `\nLive heap after GC, from ${f(heap[0]?.atS ?? NaN, 0)} s to ${f(heap.at(-1)?.atS ?? NaN, 0)} s: ${heap.map((h) => f(h.heapMiB)).join(' → ')} MiB; ` +
      `slope ${f(r.heapSlopeMiBPerMin, 2)} MiB/min (limit ${LEAK_LIMIT}): **${r.leak}**. RSS slope after warm-up ${f(r.rssSlopeMiBPerMin, 2)} MiB/min.`,
  );
  if (r.listenerFailures.length) console.log(`Listener failures: ${r.listenerFailures.length}; first: ${r.listenerFailures[0]}`);
  if (r.serverExited) console.log(`The server went away: ${r.serverExited}.`);
}

async function main() {
  const engines = args.engines.split(',').map((e) => e.trim()) as Store[];
  const results: EngineResult[] = [];
  let failed = false;
  for (const engine of engines) {
    try {
      if (!args.json) console.error(`${engine}: soaking for ${DURATION_MS / 1000} s…`);
      const r = await soak(engine);
      results.push(r);
      if (!args.json) print(r);
      if (r.failures || r.listenerFailures.length || r.serverExited || r.leak === 'leak') failed = true;
    } catch (err) {
      failed = true;
      console.error(`${engine}: not measured: ${(err as Error).stack ?? String(err)}`);
    }
  }
  if (args.json) console.log(JSON.stringify(results, null, 2));
  else
    console.log(
      `\nServer memory: ${results.map((r) => `${r.engine} RSS ${mib((r.windows.at(-1)?.rssMiB ?? NaN) * 1048576)} MiB`).join(', ')}.`,
    );
  if (failed) {
    console.error('bench:soak: FAILED (a failure, a listener failure, a dead server or a leak; see above)');
    process.exitCode = 1;
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
