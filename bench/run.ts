/**
 * `npm run bench`: real HTTP load (autocannon) on list / get / count / expand / one-to-many / group-by / create,
 * through ObjectQL's JSON-RPC, REST, OData V4 and GraphQL, against each store (BENCH_STORES: memory, sqlite,
 * postgres), in the same run beside:
 * - a bare node:http baseline doing the same work by hand (plain arrays, or the equivalent prepared
 *   SQL) on the same data;
 * - the peer, SAP CAP (bench/cap: @sap/cds OData V4 in production mode, anonymous), on the same rows
 *   and indexes in a database of its own — each answer checked once against ObjectQL's first;
 * - an express hello-world answering the get from a Map (the floor for a get by id).
 * Each server runs in a process of its own, pinned to CPU 0 with the load generator on CPU 1 where
 * taskset exists, and is warmed up first on every request form. Reports requests/s and p99 latency per protocol and peer,
 * then ratios: ObjectQL's throughput over the baseline's, over CAP's (where CAP has the request),
 * over express's (the get), OData's and GraphQL's over REST's, and what each protocol's form costs
 * beside JSON-RPC's. '—' where a server has no such request (REST has no count route, express
 * answers a get only). Then one client alone on the list, and paging through every row while
 * sampling the server's memory.
 * ROWS (default 10000), BENCH_SECONDS (default 5) and BENCH_PEERS (default cap,express; none skips
 * both) tune it. At the end, the events plugin's cost on writes and its delivery latency
 * (bench/events.ts, `npm run bench:events` alone); BENCH_EVENTS=none skips it.
 */
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { capDiffers } from './cap/verify';
import { startChild, stopChild } from './child';
import { benchEvents } from './events';
import { pageThroughAll } from './paging';
import { pinLoadGenerator, type Pinning } from './pinning';
import { printTables, type Measure, type Row } from './report';
import { formOf, PROTOCOLS, type Protocol } from './forms';
import { SCENARIOS, makeData, sent, type HttpRequest, type Scenario } from './scenarios';
import { seed } from './seed';
import { resetStore, STORES, type Store } from './stores';

const ROWS = Number(process.env.ROWS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;
/** Each form's load before the measured runs begin (and 1 s again right before its own run). */
const WARM_SECONDS = 1;
const PEERS = (process.env.BENCH_PEERS ?? 'cap,express').split(',').map((p) => p.trim());

interface Server {
  pid: number;
  rpc: string;
  rest: string;
  /** The OData service root (the ObjectQL server only). */
  odata?: string;
  /** The GraphQL endpoint (the ObjectQL server only). */
  graphql?: string;
  child: ChildProcess;
}

async function startServer(mode: 'objectql' | 'baseline', store: Store, pin: Pinning): Promise<Server> {
  // The server's first line: its pid and URLs, as JSON.
  const { info, child } = await startChild<Omit<Server, 'child'>>(resolve(__dirname, 'server.ts'), [mode, store, String(ROWS)], {
    cpu: pin.server,
  });
  return { ...info, child };
}

interface Peers {
  /** SAP CAP: its version and OData service root. */
  cap?: { cds: string; odata: string; child: ChildProcess };
  /** The express hello-world's URL. */
  express?: { url: string; child: ChildProcess };
}

async function startPeers(store: Store, pin: Pinning): Promise<Peers> {
  const peers: Peers = {};
  if (PEERS.includes('express')) {
    const { info, child } = await startChild<{ url: string }>(resolve(__dirname, 'express-hello.ts'), [String(ROWS)], { cpu: pin.server });
    peers.express = { url: info.url, child };
  }
  if (PEERS.includes('cap')) {
    const started = Date.now();
    try {
      const script = resolve(__dirname, 'cap/server.ts');
      const { info, child } = await startChild<{ cds: string; odata: string }>(script, [store, String(ROWS)], { cpu: pin.server });
      console.error(`${store}: CAP ${info.cds} deployed, seeded and started in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      peers.cap = { ...info, child };
    } catch (err) {
      console.error(`${store}: CAP not measured: ${(err as Error).message}`);
    }
  }
  return peers;
}

/**
 * `graphql`: the response is a GraphQL one, which reports a failed request as 200 with an `errors`
 * member; those count as errors too.
 */
async function load(url: string, request: HttpRequest, duration = SECONDS, connections = CONNECTIONS, graphql = false): Promise<Measure> {
  let firstError: string | undefined;
  let bodyErrors = 0;
  const result = await autocannon({
    url,
    duration,
    connections,
    requests: [
      {
        ...sent(request),
        path: request.path,
        onResponse: (status: number, body: string) => {
          if (status >= 300 && !firstError) firstError = `HTTP ${status} ${body.slice(0, 300)}`;
          if (graphql && status < 300 && /"errors"\s*:/.test(body)) {
            bodyErrors++;
            firstError ??= `HTTP ${status} ${body.slice(0, 300)}`;
          }
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    mean: result.latency.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts + bodyErrors,
    firstError,
  };
}

/** Warm (a short unmeasured run), then measure. */
async function measure(url: string, request: HttpRequest, graphql = false): Promise<Measure> {
  await load(url, request, 1, CONNECTIONS, graphql);
  return load(url, request, SECONDS, CONNECTIONS, graphql);
}

/** Who answers a form: one of ObjectQL's protocols, the baseline or a peer. */
type Who = Protocol | 'baseline' | 'cap' | 'express';
const WHO: Record<Who, string> = {
  rpc: 'JSON-RPC',
  rest: 'REST',
  odata: 'OData',
  graphql: 'GraphQL',
  baseline: 'baseline',
  cap: 'CAP',
  express: 'express',
};
/** A server's origin and the prefix its requests' paths go under. */
interface Root {
  base: string;
  prefix: string;
}
interface Form {
  who: Who;
  url: string;
  request: HttpRequest;
}

function origin(url: string): Root {
  const u = new URL(url);
  return { base: u.origin, prefix: u.pathname.replace(/\/$/, '') };
}

async function benchStore(store: Store, pin: Pinning): Promise<void> {
  const data = makeData(ROWS);
  if (store !== 'memory') {
    await resetStore(store);
    const started = Date.now();
    await seed(store, data);
    console.error(`${store}: seeded ${ROWS} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const children: ChildProcess[] = [];
  try {
    const objectql = await startServer('objectql', store, pin);
    children.push(objectql.child);
    const baseline = await startServer('baseline', store, pin);
    children.push(baseline.child);
    const peers = await startPeers(store, pin);
    for (const p of [peers.cap, peers.express]) if (p) children.push(p.child);
    const capDb = { memory: 'SQLite in memory', sqlite: 'a SQLite file', postgres: 'a PostgreSQL database' }[store];
    console.log(`\n### ${store}: ${ROWS} rows, ${SECONDS} s per run, ${CONNECTIONS} connections; ${pin.note}\n`);
    console.log(
      `ObjectQL (JSON-RPC, REST, OData, GraphQL) beside a bare node:http baseline` +
        (peers.cap ? `, SAP CAP ${peers.cap.cds} (OData V4, production mode, anonymous, on ${capDb} of its own)` : '') +
        (peers.express ? ', and an express hello-world (get only)' : '') +
        '.\n',
    );
    const rpc = origin(objectql.rpc);
    if (!objectql.odata) throw new Error('the ObjectQL server printed no OData URL');
    if (!objectql.graphql) throw new Error('the ObjectQL server printed no GraphQL URL');
    const roots: Record<Protocol, Root> = {
      rpc,
      rest: origin(objectql.rest),
      odata: origin(objectql.odata),
      graphql: origin(objectql.graphql),
    };
    /** Every server's form of a scenario, in the order they are measured; a server without one is left out. */
    const formsOf = (s: Scenario): Form[] => {
      const forms: Form[] = [];
      const add = (who: Who, at: Root | undefined, request: HttpRequest | undefined) => {
        if (at && request) forms.push({ who, url: at.base, request: { ...request, path: at.prefix + request.path } });
      };
      for (const p of PROTOCOLS) add(p, roots[p], formOf(s, data, p));
      add('baseline', origin(baseline.rpc), { method: 'POST', path: `/${s.name}`, body: s.rpc(data) });
      add('cap', peers.cap && origin(peers.cap.odata), s.cap?.(data));
      add('express', peers.express && origin(peers.express.url), s.express?.(data));
      return forms;
    };
    // Every server compiles its whole pipeline in its first seconds under load (the first measured
    // run came out at half its later throughput): each form is loaded once before anything counts.
    for (const s of SCENARIOS.filter((x) => !x.writes)) {
      for (const f of formsOf(s)) await load(f.url, f.request, WARM_SECONDS, CONNECTIONS);
    }
    const rows: Row[] = [];
    for (const s of SCENARIOS) {
      const row: Partial<Record<Who, Measure>> = {};
      for (const f of formsOf(s)) {
        if (f.who === 'cap') {
          const differs = await capDiffers(s, data, objectql.odata, peers.cap!.odata);
          if (differs) {
            console.error(`${store} ${s.name}: CAP not measured: ${differs}`);
            continue;
          }
        }
        const m = await measure(f.url, f.request, f.who === 'graphql');
        if (m.errors)
          console.error(`${store} ${s.name}: ${m.errors} ${WHO[f.who]} errors; first: ${m.firstError ?? 'a timeout or connection error'}`);
        row[f.who] = m;
      }
      rows.push({ ...row, name: s.name, rpc: row.rpc!, baseline: row.baseline! });
    }
    printTables(rows, { cap: Boolean(peers.cap), express: Boolean(peers.express) });
    // Latency without queueing: one client alone, on the list (the page plus its total).
    const list = SCENARIOS[0];
    const alone = async (url: string, request: HttpRequest) => load(url, request, Math.min(SECONDS, 3), 1);
    const o1 = await alone(rpc.base, { method: 'POST', path: rpc.prefix, body: list.rpc(data) });
    const b1 = await alone(baseline.rpc, { method: 'POST', path: `/${list.name}`, body: list.rpc(data) });
    console.log(
      `\nOne client alone, ${list.name}: JSON-RPC mean ${o1.mean.toFixed(1)} ms, p99 ${o1.p99} ms; baseline mean ${b1.mean.toFixed(1)} ms, p99 ${b1.p99} ms.`,
    );
    if (process.platform === 'linux') {
      const p = await pageThroughAll(objectql.rpc, objectql.pid);
      console.log(
        `Paging through all ${p.rows} rows (${p.pages} pages of 1,000, keyset on id) took ${p.seconds.toFixed(1)} s; ` +
          `ObjectQL's resident memory at 0/25/50/75/100% of the pages: ${p.rssAt.map((m) => m.toFixed(0)).join(' / ')} MiB (peak ${p.rssPeak.toFixed(0)} MiB).`,
      );
    }
  } finally {
    await Promise.all(children.map((c) => stopChild(c)));
  }
}

async function main() {
  const pin = pinLoadGenerator();
  for (const store of STORES) {
    try {
      await benchStore(store, pin);
    } catch (err) {
      console.error(`${store}: not measured: ${(err as Error).message}`);
    }
  }
  if (process.env.BENCH_EVENTS !== 'none') {
    try {
      await benchEvents(pin);
    } catch (err) {
      console.error(`events: not measured: ${(err as Error).message}`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
