/**
 * `npm run bench:fanout`: GraphQL subscription fan-out across two instances sharing record
 * changes through Redis (plugins/pubsub-redis).
 *
 * Two ObjectQL server processes (bench/fanout-server.ts: JSON-RPC + GraphQL + pubsub-redis, a run's
 * own channel prefix) on one store (FANOUT_STORE: sqlite (default, bench/stores.ts SQLITE_FILE,
 * removed first) or postgres). SUBSCRIBERS graphql-ws clients (default 100), split evenly between
 * instance A and instance B, each subscribe to `bench_itemCreated`; then EVENTS records (default
 * 500) are created through JSON-RPC on instance B only: B's subscribers hear them through B's own
 * pubsub, A's through Redis.
 *
 * Writer: RATE=0 (default) sends creates as fast as possible, WRITE_CONCURRENCY (default 1) in
 * flight at a time; RATE=<n> sends one every 1/n s, whatever is still in flight.
 * Each record's name carries its sequence number; its send time is the moment the create request
 * is issued (performance.now() in this process, where the subscribers run too), so latency is
 * create sent → subscription event received, both measured on one clock.
 * Before measuring, warm-up records are created until every subscriber has received one (so every
 * subscription is known to be live); they are not counted.
 *
 * Reports deliveries/s (all deliveries / (last delivery − first send)), deliveries missing
 * (SUBSCRIBERS × EVENTS expected), duplicates, and latency p50/p95/p99/max, overall and per
 * instance. REDIS_URL (default redis://127.0.0.1:6379), DRAIN_MS (default 10000: how long to wait
 * for outstanding deliveries after the last write answered).
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startChild, stopChild } from './child';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { resetStore, type Store } from './stores';

const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 100);
const EVENTS = Number(process.env.EVENTS ?? 500);
const RATE = Number(process.env.RATE ?? 0);
const WRITE_CONCURRENCY = Math.max(1, Number(process.env.WRITE_CONCURRENCY ?? 1));
const STORE = (process.env.FANOUT_STORE ?? 'sqlite') as Store;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DRAIN_MS = Number(process.env.DRAIN_MS ?? 10_000);
const WARMUP_TIMEOUT_MS = 20_000;
const CONNECT_TIMEOUT_MS = 10_000;

/** The subscription field of object bench_item's created event (plugins/graphql/subscriptions/sdl.ts: `<object>Created`). */
const SUBSCRIPTION_FIELD = 'bench_itemCreated';
const SUBSCRIPTION = `subscription { ${SUBSCRIPTION_FIELD} { id name } }`;

interface Instance {
  label: 'A' | 'B';
  pid: number;
  rpc: string;
  graphql: string;
  ws: string;
  child: ChildProcess;
}

interface Subscriber {
  index: number;
  instance: Instance;
  client: Client;
  /** Sequence numbers received (measured events only), with their count per sequence (duplicates). */
  received: Uint16Array;
  warmedUp: boolean;
  latencies: number[];
  errors: string[];
  completed: boolean;
}

const runId = randomUUID().slice(0, 8);
const EVENT_PREFIX = `fanout:${runId}:`;
const WARMUP_PREFIX = `warmup:${runId}:`;

async function startInstance(label: 'A' | 'B', channelPrefix: string): Promise<Instance> {
  // The instance's first line: its pid and URLs, as JSON.
  const { info, child } = await startChild<Omit<Instance, 'label' | 'child'>>(resolve(__dirname, 'fanout-server.ts'), [
    STORE,
    REDIS_URL,
    channelPrefix,
  ]);
  return { label, ...info, child };
}

const stopInstance = (instance: Instance) => stopChild(instance.child);

/** A create through JSON-RPC; resolves once answered (throws on an error answer). */
async function create(rpc: string, name: string, amount: number): Promise<void> {
  const res = await fetch(rpc, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ op: 'create', object: 'bench_item', args: { name, status: 'open', amount } }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`create ${name}: HTTP ${res.status} ${text.slice(0, 300)}`);
}

function connect(instance: Instance, index: number, onEvent: (s: Subscriber, name: string, at: number) => void): Promise<Subscriber> {
  return new Promise((resolveConnected, reject) => {
    let settled = false;
    const timer = setTimeout(
      () => fail(new Error(`subscriber ${index} (instance ${instance.label}): not connected within ${CONNECT_TIMEOUT_MS} ms`)),
      CONNECT_TIMEOUT_MS,
    );
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(err instanceof Error ? err : new Error(describeClose(err)));
    };
    const subscriber: Subscriber = {
      index,
      instance,
      client: undefined as unknown as Client,
      received: new Uint16Array(EVENTS),
      warmedUp: false,
      latencies: [],
      errors: [],
      completed: false,
    };
    subscriber.client = createClient({
      url: instance.ws,
      webSocketImpl: WebSocket,
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: (err) => {
        if (!settled) fail(err);
        else subscriber.errors.push(`connection: ${describeClose(err)}`);
      },
      on: {
        connected: () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolveConnected(subscriber);
        },
        closed: (event) => {
          if (!settled)
            fail(
              new Error(`subscriber ${index} (instance ${instance.label}): socket closed before connection_ack: ${describeClose(event)}`),
            );
        },
      },
    });
    subscriber.client.subscribe<Record<string, { id: string; name: string } | null>>(
      { query: SUBSCRIPTION },
      {
        next: (result) => {
          const at = performance.now();
          if (result.errors?.length) subscriber.errors.push(`event errors: ${JSON.stringify(result.errors).slice(0, 300)}`);
          const record = result.data?.[SUBSCRIPTION_FIELD];
          if (record && typeof record.name === 'string') onEvent(subscriber, record.name, at);
        },
        error: (err) => subscriber.errors.push(`subscription: ${describeClose(err)}`),
        complete: () => {
          subscriber.completed = true;
        },
      },
    );
  });
}

function describeClose(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (Array.isArray(err)) return JSON.stringify(err).slice(0, 300);
  const e = err as { code?: number; reason?: string; type?: string; message?: string } | undefined;
  if (e && typeof e.code === 'number') return `close ${e.code}${e.reason ? ` ${e.reason}` : ''}`;
  if (e?.message) return e.message;
  return String(err);
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '—');

async function main() {
  const channelPrefix = `objectql-bench-fanout:${runId}:`;
  await resetStore(STORE);
  // One after the other: the first creates the tables, the second finds them.
  const a = await startInstance('A', channelPrefix);
  const instances: Instance[] = [a];
  const subscribers: Subscriber[] = [];
  try {
    const b = await startInstance('B', channelPrefix);
    instances.push(b);
    console.error(
      `instances up: A ${a.ws} (pid ${a.pid}), B ${b.ws} (pid ${b.pid}); store ${STORE}; Redis ${REDIS_URL}, channel prefix ${channelPrefix}`,
    );

    const sendTimes = new Float64Array(EVENTS).fill(NaN);
    let lastDelivery = 0;
    let deliveries = 0;
    let duplicates = 0;
    let foreign = 0;
    const onEvent = (s: Subscriber, name: string, at: number) => {
      if (name.startsWith(WARMUP_PREFIX)) {
        s.warmedUp = true;
        return;
      }
      if (!name.startsWith(EVENT_PREFIX)) {
        foreign++;
        return;
      }
      const seq = Number(name.slice(EVENT_PREFIX.length));
      if (!(seq >= 0 && seq < EVENTS)) {
        foreign++;
        return;
      }
      if (s.received[seq]++ > 0) duplicates++;
      deliveries++;
      lastDelivery = at;
      s.latencies.push(at - sendTimes[seq]);
    };

    const connectStarted = performance.now();
    const connecting: Promise<Subscriber>[] = [];
    for (let i = 0; i < SUBSCRIBERS; i++) connecting.push(connect(i % 2 === 0 ? a : b, i, onEvent));
    const settled = await Promise.allSettled(connecting);
    for (const r of settled) if (r.status === 'fulfilled') subscribers.push(r.value);
    const refused = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (refused.length)
      throw new Error(`${refused.length} of ${SUBSCRIBERS} subscribers could not connect; first: ${(refused[0].reason as Error).message}`);
    console.error(`${SUBSCRIBERS} subscribers connected in ${(performance.now() - connectStarted).toFixed(0)} ms`);

    // Warm-up: records until every subscription has delivered one (so each is known to be live).
    const warmStarted = performance.now();
    let warmups = 0;
    while (subscribers.some((s) => !s.warmedUp)) {
      const failed = subscribers.find((s) => s.errors.length || s.completed);
      if (failed)
        throw new Error(
          `subscriber ${failed.index} (instance ${failed.instance.label}) failed before measuring: ${failed.errors[0] ?? 'the server completed the subscription'}`,
        );
      if (performance.now() - warmStarted > WARMUP_TIMEOUT_MS) {
        const cold = subscribers.filter((s) => !s.warmedUp);
        throw new Error(
          `after ${WARMUP_TIMEOUT_MS} ms and ${warmups} warm-up records, ${cold.length} subscribers (A: ${cold.filter((s) => s.instance === a).length}, B: ${cold.filter((s) => s.instance === b).length}) had received none`,
        );
      }
      await create(b.rpc, `${WARMUP_PREFIX}${warmups++}`, -1);
      await sleep(200);
    }
    console.error(`every subscription live after ${warmups} warm-up record(s), ${(performance.now() - warmStarted).toFixed(0)} ms`);

    // Measured writes, all on instance B.
    const writeErrors: string[] = [];
    const writeLatencies: number[] = [];
    const send = async (seq: number) => {
      const t = performance.now();
      sendTimes[seq] = t;
      try {
        await create(b.rpc, `${EVENT_PREFIX}${seq}`, seq);
        writeLatencies.push(performance.now() - t);
      } catch (err) {
        writeErrors.push((err as Error).message);
      }
    };
    const t0 = performance.now();
    if (RATE > 0) {
      const inFlight: Promise<void>[] = [];
      for (let seq = 0; seq < EVENTS; seq++) {
        const due = t0 + (seq * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 1) await sleep(wait);
        inFlight.push(send(seq));
      }
      await Promise.all(inFlight);
    } else {
      let next = 0;
      await Promise.all(
        Array.from({ length: WRITE_CONCURRENCY }, async () => {
          while (next < EVENTS) await send(next++);
        }),
      );
    }
    const writesDone = performance.now();
    const expected = SUBSCRIBERS * EVENTS;
    let lastProgress = performance.now();
    let seen = deliveries;
    while (deliveries < expected) {
      await sleep(50);
      if (deliveries !== seen) {
        seen = deliveries;
        lastProgress = performance.now();
      } else if (performance.now() - Math.max(lastProgress, writesDone) > DRAIN_MS) break;
    }

    // Results.
    const elapsed = (lastDelivery - t0) / 1000;
    let missing = 0;
    const missingBy = { A: 0, B: 0 };
    for (const s of subscribers) {
      for (let seq = 0; seq < EVENTS; seq++) {
        if (s.received[seq] === 0 && !Number.isNaN(sendTimes[seq])) {
          missing++;
          missingBy[s.instance.label]++;
        }
      }
    }
    const subscriberErrors = subscribers.filter((s) => s.errors.length);
    const writer =
      RATE > 0
        ? `steady rate, ${RATE} creates/s`
        : `as fast as possible, ${WRITE_CONCURRENCY} create${WRITE_CONCURRENCY > 1 ? 's' : ''} in flight`;
    const writeRate = (EVENTS - writeErrors.length) / ((writesDone - t0) / 1000);
    writeLatencies.sort((x, y) => x - y);

    console.log(
      `\n### GraphQL subscription fan-out: ${SUBSCRIBERS} subscribers (${subscribers.filter((s) => s.instance === a).length} on A, ${subscribers.filter((s) => s.instance === b).length} on B), ${EVENTS} creates on B, ${STORE}, pubsub-redis\n`,
    );
    console.log(
      `Writer: JSON-RPC create on instance B, ${writer}: ${writeRate.toFixed(0)} creates/s, create answered p50 ${ms(percentile(writeLatencies, 0.5))} ms / p99 ${ms(percentile(writeLatencies, 0.99))} ms${writeErrors.length ? `; ${writeErrors.length} failed, first: ${writeErrors[0]}` : ''}.`,
    );
    console.log('Latency: create request sent → event received by the subscriber (same process, one clock).\n');
    console.log('| subscribers | deliveries | expected | missing | duplicates | deliveries/s | p50 ms | p95 ms | p99 ms | max ms |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    const row = (label: string, group: Subscriber[], miss: number) => {
      const lat = group.flatMap((s) => s.latencies).sort((x, y) => x - y);
      const got = lat.length;
      const exp = group.length * EVENTS;
      const rate = label === 'all' ? (elapsed > 0 ? (got / elapsed).toFixed(0) : '—') : '';
      console.log(
        `| ${label} | ${got} | ${exp} | ${miss} | ${label === 'all' ? duplicates : ''} | ${rate} | ${ms(percentile(lat, 0.5))} | ${ms(percentile(lat, 0.95))} | ${ms(percentile(lat, 0.99))} | ${ms(lat[lat.length - 1] ?? NaN)} |`,
      );
    };
    row('all', subscribers, missing);
    row(
      `on A (via Redis)`,
      subscribers.filter((s) => s.instance === a),
      missingBy.A,
    );
    row(
      `on B (local to the writer)`,
      subscribers.filter((s) => s.instance === b),
      missingBy.B,
    );
    console.log(
      `\nElapsed: first create sent → last delivery ${elapsed.toFixed(2)} s (writes took ${((writesDone - t0) / 1000).toFixed(2)} s). Every subscriber received every event: ${missing === 0 ? 'yes' : `no, ${missing} deliveries missing`}.`,
    );
    if (foreign) console.log(`Unexpected events (not this run's): ${foreign}.`);
    if (subscriberErrors.length)
      console.log(`Subscribers with errors: ${subscriberErrors.length}; first: ${subscriberErrors[0].errors[0]}`);
  } finally {
    await Promise.all(subscribers.map((s) => Promise.resolve(s.client.dispose())));
    await Promise.all(instances.map(stopInstance));
  }
}

main().catch((err) => {
  console.error(`fan-out bench failed: ${(err as Error).stack ?? err}`);
  process.exitCode = 1;
});
