/**
 * `npm run bench:events` (and the end of `npm run bench`): what the events plugin (issue 19) costs a
 * write, and how long a delivery takes. For each store of EVENTS_STORES (default sqlite,postgres; the
 * local PostgreSQL of PG_URL), four ObjectQL servers (five on PostgreSQL) in the same run, each in a process of its own
 * on a SQLite file or PostgreSQL database of its own (the compiled build; bench/events-server.ts),
 * with the same object `bench_order` (bench/metadata-events/):
 * - events off: no events plugin;
 * - outbox only: the events plugin on, no workflow (each write also records its event);
 * - webhook workflow: the events plugin on, its dispatcher enabled, and one workflow
 *   (bench/metadata-events-workflow/) whose webhook sends every created bench_order, with the
 *   standard body, to a receiver on 127.0.0.1 (bench/events-receiver.ts, a process of its own;
 *   allowed by the plugin option webhooks.allowHosts);
 * - the same workflow sent by the plugin's dispatch thread (`dispatcher.thread`), a worker thread of
 *   the server pinned to the other CPU (the server's CPU column includes it);
 * - on PostgreSQL also: the same workflow sent by a second instance: the server under load has its
 *   dispatcher disabled, and a second ObjectQL process on the same database, on the other CPU and
 *   taking no writes, only dispatches (polling every 20 ms). The split a deployment makes when its
 *   writing instances should not spend their CPU on sending.
 * Load: REST creates (POST /api/data/bench_order) with autocannon, 10 connections, BENCH_SECONDS
 * (default 5) per run after 1 s of warm-up, in EVENTS_ROUNDS rounds (default 2; the order of the
 * servers reversed every other round, against the machine's drift). Each create carries `sent_at`,
 * the load generator's clock when it was sent. Pinned as `npm run bench` is (bench/pinning.ts): the
 * servers on CPU 0; the load generator and the receiver on CPU 1.
 * Reports each server's requests/s (p99 ms), the ratios over events off (issue 19's goal: the
 * workflow at ≥ 0.8), and for the workflow server, after the load, waiting for the queue to drain
 * (at most EVENTS_DRAIN_SECONDS, default 60): creates answered vs deliveries received, how long the
 * drain took, and the latency from commit to the receiver — the event's `at`, stamped by the outbox
 * inside the write's transaction just before it commits (ms resolution), to the receiver's arrival
 * on the same machine's clock — as p50/p99, beside the latency from the create being sent. Then
 * the same at a steady EVENTS_RATE creates/s (default 100; 0 skips it): the latency without
 * saturation, where the runs above measure it behind a full queue of writes. Also the CPU time
 * (from /proc) each create of those runs cost its server, and on PostgreSQL the database's
 * processes, every delivery made (the drain included): steadier than requests/s on a shared
 * machine, and it counts the deliveries a saturated run leaves for after the load.
 * EVENTS_PROFILE=1 (or =off, =outbox) runs the workflow server (or that one) under `node --cpu-prof` and
 * prints where the profile is. EVENTS_VARIANTS=workflow,thread (say) runs only those of the delivering
 * servers, beside the two the ratios divide by.
 */
import autocannon from 'autocannon';
import { Client } from 'pg';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startChild, stopChild } from './child';
import type { EventsVariant } from './events-server';
import { pinLoadGenerator, type Pinning } from './pinning';
import { cpuTime, cpuTimeOf, mainThreadCpuTime } from './proc-cpu';
import type { Measure } from './report';
import { PG_URL } from './stores';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.EVENTS_ROUNDS ?? 2);
const DRAIN_SECONDS = Number(process.env.EVENTS_DRAIN_SECONDS ?? 60);
/** The server run under `node --cpu-prof`: EVENTS_PROFILE=1 (the workflow server) or a variant's name. */
const PROFILE = process.env.EVENTS_PROFILE === '1' ? 'workflow' : process.env.EVENTS_PROFILE;
/** The paced run's creates/s (latency without saturation); 0 skips it. */
const PACED_RATE = Number(process.env.EVENTS_RATE ?? 100);
const CONNECTIONS = 10;
type EventsStore = 'sqlite' | 'postgres';
/** EVENTS_STORES: the stores measured one after the other (default sqlite,postgres). */
const STORES = (process.env.EVENTS_STORES ?? 'sqlite,postgres').split(',').map((s) => s.trim()) as EventsStore[];
const STORE_LABEL: Record<EventsStore, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
const WARM_SECONDS = 1;
/** The record each create sends, with `sent_at` added per request. */
const ORDER = { name: 'New order', status: 'open', amount: 42 };
const OBJECT = 'bench_order';

const now = () => performance.timeOrigin + performance.now();

/** The servers under load: `thread`'s deliveries a worker thread sends; on PostgreSQL, `split`'s a second instance (`dispatcher`). */
type LoadedVariant = Exclude<EventsVariant, 'dispatcher'>;
const LABEL: Record<LoadedVariant, string> = {
  off: 'events off',
  outbox: 'events on, outbox only (no workflow)',
  workflow: 'events on, one webhook workflow',
  thread: 'events on, one webhook workflow, sent by a dispatch thread',
  split: 'events on, one webhook workflow, sent by a second instance',
};
/** EVENTS_VARIANTS: the delivering servers to run (default all); the two the ratios divide by always run. */
const ONLY = process.env.EVENTS_VARIANTS?.split(',').map((s) => s.trim());
const variantsOf = (store: EventsStore): LoadedVariant[] =>
  (store === 'postgres'
    ? (['off', 'outbox', 'workflow', 'thread', 'split'] as const)
    : (['off', 'outbox', 'workflow', 'thread'] as const)
  ).filter((v) => !ONLY || !DELIVERING.has(v) || ONLY.includes(v));
/** The servers whose writes trigger deliveries. */
const DELIVERING = new Set<LoadedVariant>(['workflow', 'thread', 'split']);

interface ReceiverStats {
  delivered: number;
  duplicates: number;
  ignored: number;
  commitToArrival: number[];
  sentToArrival: number[];
  firstArrival: number;
  lastArrival: number;
}

/** The receiver process, asked through its IPC channel. */
class Receiver {
  constructor(
    readonly url: string,
    readonly child: ChildProcess,
  ) {}

  private ask<T>(msg: object, type: string): Promise<T> {
    return new Promise((resolveAnswer) => {
      const onMessage = (answer: { type: string }) => {
        if (answer.type !== type) return;
        this.child.off('message', onMessage);
        resolveAnswer(answer as T);
      };
      this.child.on('message', onMessage);
      this.child.send(msg);
    });
  }

  reset(since: number): Promise<void> {
    return this.ask({ type: 'reset', since }, 'reset');
  }

  stats(): Promise<ReceiverStats> {
    return this.ask({ type: 'stats' }, 'stats');
  }
}

interface CreateMeasure extends Measure {
  /** Creates answered 2xx. */
  created: number;
}

async function createLoad(rest: string, duration: number, overallRate?: number): Promise<CreateMeasure> {
  const url = new URL(rest);
  let firstError: string | undefined;
  const result = await autocannon({
    url: url.origin,
    duration,
    connections: CONNECTIONS,
    ...(overallRate ? { overallRate } : {}),
    requests: [
      {
        method: 'POST',
        path: `${url.pathname.replace(/\/$/, '')}/${OBJECT}`,
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ ...ORDER, sent_at: now() }) }),
        onResponse: (status: number, body: string) => {
          if (status >= 300 && !firstError) firstError = `HTTP ${status} ${body.slice(0, 300)}`;
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    mean: result.latency.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
    firstError,
    created: result['2xx'],
  };
}

interface Delivery {
  created: number;
  /** Received by the time the load ended. */
  byEndOfLoad: number;
  delivered: number;
  duplicates: number;
  /** From the end of the load to the last delivery (or to giving up), s. */
  drainSeconds: number;
  drained: boolean;
  commit: { p50: number; p99: number };
  sent: { p50: number; p99: number };
}

function percentile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `created` deliveries arrived, or nothing arrived for DRAIN_SECONDS. */
async function drain(receiver: Receiver, created: number): Promise<{ stats: ReceiverStats; drained: boolean }> {
  let stats = await receiver.stats();
  let progressAt = now();
  let last = stats.delivered;
  while (stats.delivered < created && now() - progressAt < DRAIN_SECONDS * 1000) {
    await sleep(100);
    stats = await receiver.stats();
    if (stats.delivered > last) {
      last = stats.delivered;
      progressAt = now();
    }
  }
  return { stats, drained: stats.delivered >= created };
}

/** `rate`: creates/s over all connections (a paced run); default as fast as the server answers. */
async function measureWorkflow(
  server: string,
  receiver: Receiver,
  rate?: number,
  cpu?: { pid: number; store: EventsStore },
): Promise<{ load: CreateMeasure; delivery: Delivery; cpu?: CpuMeasure }> {
  // The warm-up's deliveries are drained first: the measured run starts with an empty queue.
  const warm = await createLoad(server, WARM_SECONDS);
  await drain(receiver, (await receiver.stats()).delivered + warm.created);
  await sleep(500);
  await receiver.reset(now());
  let endOfLoad = 0;
  let byEndOfLoad = 0;
  const loadAndDrain = async () => {
    const load = await createLoad(server, SECONDS, rate);
    endOfLoad = now();
    byEndOfLoad = (await receiver.stats()).delivered;
    const drainedRun = await drain(receiver, load.created);
    // The last outcomes are written within a batch window of the last arrival.
    await sleep(100);
    return { ...drainedRun, load, created: load.created };
  };
  const [{ load, stats, drained }, used] = cpu ? await withCpu(cpu.pid, cpu.store, loadAndDrain) : [await loadAndDrain(), undefined];
  const lastArrival = stats.lastArrival || endOfLoad;
  return {
    ...(used ? { cpu: used } : {}),
    load,
    delivery: {
      created: load.created,
      byEndOfLoad,
      delivered: stats.delivered,
      duplicates: stats.duplicates,
      drainSeconds: drained ? Math.max(0, lastArrival - endOfLoad) / 1000 : (now() - endOfLoad) / 1000,
      drained,
      commit: { p50: percentile(stats.commitToArrival, 0.5), p99: percentile(stats.commitToArrival, 0.99) },
      sent: { p50: percentile(stats.sentToArrival, 0.5), p99: percentile(stats.sentToArrival, 0.99) },
    },
  };
}

interface CpuMeasure {
  created: number;
  /** µs of CPU per create: the server's process, and (PostgreSQL) every `postgres` process. */
  server: number;
  /** Of which the server's main thread (the event loop answering requests). */
  main: number;
  database?: number;
}

/** Reads the server's CPU time (and on PostgreSQL the database's) around `run`, per create it made. */
async function withCpu<T extends { created: number }>(pid: number, store: EventsStore, run: () => Promise<T>): Promise<[T, CpuMeasure]> {
  const database = () => (store === 'postgres' ? cpuTimeOf('postgres') : undefined);
  const [server0, main0, database0] = [cpuTime(pid), mainThreadCpuTime(pid), database()];
  const result = await run();
  const [server1, main1, database1] = [cpuTime(pid), mainThreadCpuTime(pid), database()];
  const per = (a?: number, b?: number) => (a === undefined || b === undefined || result.created === 0 ? NaN : (b - a) / result.created);
  const cpu: CpuMeasure = { created: result.created, server: per(server0, server1), main: per(main0, main1) };
  if (store === 'postgres') cpu.database = per(database0, database1);
  return [result, cpu];
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '—');
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export async function benchEvents(pin: Pinning): Promise<void> {
  for (const store of STORES) await benchEventsOn(store, pin);
}

/** The store of one variant's server: a SQLite file in `dir`, or a PostgreSQL database of its own, made empty. */
async function storeOf(store: EventsStore, variant: EventsVariant, dir: string): Promise<string> {
  if (store === 'sqlite') return join(dir, `${variant}.sqlite`);
  const database = `objectql_bench_events_${variant}`;
  const admin = new Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  return PG_URL.replace(/\/[^/?]+(\?|$)/, `/${database}$1`);
}

async function benchEventsOn(store: EventsStore, pin: Pinning): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'objectql-bench-events-'));
  const children: ChildProcess[] = [];
  try {
    // The receiver stands for the outside world: beside the load generator, not the servers.
    const other = pin.server === undefined ? undefined : 1;
    const r = await startChild<{ url: string }>(resolve(__dirname, 'events-receiver.ts'), [], { ipc: true, cpu: other });
    children.push(r.child);
    const receiver = new Receiver(r.info.url, r.child);
    const variants = variantsOf(store);
    const servers = {} as Record<LoadedVariant, string>;
    const pids = {} as Record<LoadedVariant, number>;
    for (const v of variants) {
      const profile = PROFILE === v ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, 'profile')}`] : [];
      const where = await storeOf(store, v, dir);
      const { info, child } = await startChild<{ rest: string; threads: number[] }>(
        resolve(__dirname, 'events-server.ts'),
        [v, where, receiver.url],
        {
          cpu: pin.server,
          nodeFlags: profile,
        },
      );
      children.push(child);
      servers[v] = info.rest;
      pids[v] = child.pid!;
      // The dispatch thread on the other CPU, where the split's second instance runs.
      if (v === 'thread' && other !== undefined)
        for (const tid of info.threads) execFileSync('taskset', ['-p', '-c', String(other), String(tid)], { stdio: 'ignore' });
      if (v !== 'split') continue;
      // Its dispatcher, on the other CPU: what a deployment adds to deliver beside the instances taking the writes.
      const second = await startChild<{ rest: string }>(resolve(__dirname, 'events-server.ts'), ['dispatcher', where, receiver.url], {
        cpu: other,
      });
      children.push(second.child);
    }
    console.log(`\n### events: ${STORE_LABEL[store]}, ${SECONDS} s per run, ${CONNECTIONS} connections, ${ROUNDS} round(s); ${pin.note}\n`);
    console.log(
      `REST creates (POST /api/data/${OBJECT}) on ${['three', 'four', 'five'][variants.length - 3]} ObjectQL servers, each on a ${store === 'sqlite' ? 'SQLite file' : 'PostgreSQL database'} of its own: ` +
        `${variants.map((v) => LABEL[v]).join('; ')} (to ${receiver.url}, the receiver on ${other === undefined ? 'any CPU' : `CPU ${other}`}` +
        `${variants.includes('thread') ? `; the dispatch thread on ${other === undefined ? 'any CPU' : `CPU ${other}`}` : ''}` +
        `${variants.includes('split') ? `; the second instance, a dispatcher taking no writes, on ${other === undefined ? 'any CPU' : `CPU ${other}`} too, on the same database` : ''}).\n`,
    );
    const loads: Record<LoadedVariant, CreateMeasure[]> = { off: [], outbox: [], workflow: [], thread: [], split: [] };
    const cpus: Record<LoadedVariant, CpuMeasure[]> = { off: [], outbox: [], workflow: [], thread: [], split: [] };
    const deliveries: Array<[LoadedVariant, Delivery]> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) {
        let m: CreateMeasure;
        if (DELIVERING.has(v)) {
          const w = await measureWorkflow(servers[v], receiver, undefined, { pid: pids[v], store });
          m = w.load;
          deliveries.push([v, w.delivery]);
          cpus[v].push(w.cpu!);
        } else {
          await createLoad(servers[v], WARM_SECONDS);
          const [load, used] = await withCpu(pids[v], store, async () => {
            const result = await createLoad(servers[v], SECONDS);
            await sleep(100);
            return result;
          });
          m = load;
          cpus[v].push(used);
        }
        if (m.errors) console.error(`events ${v}: ${m.errors} errors; first: ${m.firstError ?? 'a timeout or connection error'}`);
        loads[v].push(m);
      }
    }

    const paced = PACED_RATE > 0 ? await measureWorkflow(servers.workflow, receiver, PACED_RATE) : undefined;

    const rounds = Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`);
    const off = mean(loads.off.map((m) => m.rps));
    console.log('Requests/s (p99 ms):\n');
    console.log(`| server | ${rounds.join(' | ')} | mean req/s | ÷ events off |`);
    console.log(`|---|${rounds.map(() => '---:').join('|')}|---:|---:|`);
    for (const v of variants) {
      const rps = mean(loads[v].map((m) => m.rps));
      const cells = loads[v].map((m) => `${m.rps.toFixed(0)} (${m.p99})`);
      console.log(`| ${LABEL[v]} | ${cells.join(' | ')} | ${rps.toFixed(0)} | ${off > 0 ? (rps / off).toFixed(2) : '—'} |`);
    }
    const ratio = off > 0 ? mean(loads.workflow.map((m) => m.rps)) / off : NaN;
    const perRound = loads.workflow.map((m, i) => (loads.off[i].rps > 0 ? (m.rps / loads.off[i].rps).toFixed(2) : '—'));
    const outbox = mean(loads.outbox.map((m) => m.rps));
    const overOutbox = outbox > 0 ? mean(loads.workflow.map((m) => m.rps)) / outbox : NaN;
    console.log(
      `\nWith a workflow ÷ events off: ${ratio.toFixed(2)} (per round ${perRound.join(', ')}); goal ≥ 0.80: ${ratio >= 0.8 ? 'met' : 'not met'}. ` +
        `What attaching the workflow alone costs, with a workflow ÷ outbox only: ${overOutbox.toFixed(2)}.`,
    );
    const sentElsewhere: Array<[LoadedVariant, string]> = [
      ['thread', 'Sent by the dispatch thread, requests/s'],
      ['split', "Sent by a second instance, the writing instance's requests/s"],
    ];
    for (const [v, what] of sentElsewhere) {
      if (!variants.includes(v)) continue;
      const rps = mean(loads[v].map((m) => m.rps));
      console.log(
        `${what} ÷ events off: ${(off > 0 ? rps / off : NaN).toFixed(2)}; ÷ outbox only: ${(outbox > 0 ? rps / outbox : NaN).toFixed(2)}.`,
      );
    }

    console.log(
      `\nDelivery (the servers with the webhook workflow): creates answered, deliveries received (each counted once) by the end of the load and ` +
        `after waiting for the queue to drain (giving up after ${DRAIN_SECONDS} s without progress); latency from commit (the event's ` +
        "`at`, stamped inside the write's transaction) and from the create being sent, to the arrival at the receiver, ms:\n",
    );
    console.log(
      '| run | created | delivered by end of load | delivered | duplicates | drain after the load | commit → receiver p50 / p99 | sent → receiver p50 / p99 |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    const roundOf = new Map<LoadedVariant, number>();
    const runs: Array<[string, Delivery]> = deliveries.map(([v, d]) => {
      const round = (roundOf.get(v) ?? 0) + 1;
      roundOf.set(v, round);
      const by = v === 'split' ? 'second instance sends, ' : v === 'thread' ? 'dispatch thread sends, ' : '';
      return [`${by}round ${round}, as fast as it answers`, d];
    });
    if (paced)
      runs.push([`paced, ${PACED_RATE} creates/s (${paced.load.rps.toFixed(0)} answered/s, p99 ${paced.load.p99} ms)`, paced.delivery]);
    // Paced, autocannon builds each request (and stamps its sent_at) before waiting for its turn.
    if (paced) paced.delivery.sent = { p50: NaN, p99: NaN };
    runs.forEach(([name, d]) => {
      const drained = `${d.drainSeconds.toFixed(1)} s${d.drained ? '' : ' (not drained)'}`;
      console.log(
        `| ${name} | ${d.created} | ${d.byEndOfLoad} | ${d.delivered} | ${d.duplicates} | ${drained} | ${ms(d.commit.p50)} / ${ms(d.commit.p99)} | ${ms(d.sent.p50)} / ${ms(d.sent.p99)} |`,
      );
    });
    console.log(
      `\nDelivered can exceed created by up to the ${CONNECTIONS} creates in flight when the load stops (committed, their answers not counted). ` +
        'Paced, sent → receiver is left out: autocannon stamps a request when it builds it, before it waits for its turn.',
    );
    if (cpus.off.some((m) => Number.isFinite(m.server))) {
      const pg = store === 'postgres';
      const meanOf = (list: CpuMeasure[], pick: (m: CpuMeasure) => number) => mean(list.map(pick));
      const total = (m: CpuMeasure) => m.server + (m.database ?? 0);
      console.log(
        `\nCPU per create in the runs above (µs; every delivery made, the drain included; the server's process` +
          `${pg ? ", and every PostgreSQL process: the dispatch thread is in the server's column; the split's second instance is not, its queries are in PostgreSQL's" : ''}). ` +
          'Where CPU is what runs out, throughput goes as its inverse:\n',
      );
      console.log(`| server | server µs |${pg ? ' PostgreSQL µs | total µs |' : ''} events off ÷ it | outbox only ÷ it |`);
      console.log(`|---|---:|${pg ? '---:|---:|' : ''}---:|---:|`);
      const off = meanOf(cpus.off, total);
      const outbox = meanOf(cpus.outbox, total);
      for (const v of variants) {
        const all = meanOf(cpus[v], total);
        const cells = [
          meanOf(cpus[v], (m) => m.server).toFixed(0),
          ...(pg ? [meanOf(cpus[v], (m) => m.database ?? NaN).toFixed(0), all.toFixed(0)] : []),
        ];
        console.log(`| ${LABEL[v]} | ${cells.join(' | ')} | ${(off / all).toFixed(2)} | ${v === 'off' ? '' : (outbox / all).toFixed(2)} |`);
      }
      const own = meanOf(cpus.workflow, (m) => m.server) - meanOf(cpus.outbox, (m) => m.server);
      const ownDb = meanOf(cpus.workflow, (m) => m.database ?? NaN) - meanOf(cpus.outbox, (m) => m.database ?? NaN);
      console.log(
        `\nThe workflow's own CPU per delivery (workflow − outbox only): ${own.toFixed(0)} µs in the server${pg ? `, ${ownDb.toFixed(0)} µs in PostgreSQL` : ''}.`,
      );
      // Node answers every request on one thread: with cores for the others, that thread's CPU bounds the writes.
      console.log(
        "\nOf which the server's main thread, the one event loop every request goes through (not the dispatch thread, nor V8's " +
          "and libuv's helper threads): where the other threads have cores of their own, this bounds the writes:\n",
      );
      console.log('| server | main thread µs | events off ÷ it | outbox only ÷ it |');
      console.log('|---|---:|---:|---:|');
      const mainOff = meanOf(cpus.off, (m) => m.main);
      const mainOutbox = meanOf(cpus.outbox, (m) => m.main);
      for (const v of variants) {
        const main = meanOf(cpus[v], (m) => m.main);
        console.log(
          `| ${LABEL[v]} | ${main.toFixed(0)} | ${(mainOff / main).toFixed(2)} | ${v === 'off' ? '' : (mainOutbox / main).toFixed(2)} |`,
        );
      }
    }
    if (PROFILE) console.log(`\nCPU profile of the ${PROFILE} server: ${join(dir, 'profile')} (written when it stops).`);
  } finally {
    await Promise.all(children.map((c) => stopChild(c)));
    // The SQLite files go; a profile stays where it was said to be.
    if (!PROFILE) rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchEvents(pinLoadGenerator()).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
