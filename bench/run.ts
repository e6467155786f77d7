/**
 * `npm run bench`: real HTTP load (autocannon) on list / get / count / expand / one-to-many / group-by / create,
 * through ObjectQL's JSON-RPC, REST, OData V4 and GraphQL, against each store (BENCH_STORES: memory, sqlite,
 * postgres), each beside a bare node:http baseline doing the same work by hand (plain arrays, or
 * the equivalent prepared SQL) on the same data, in the same run. Each server runs in a process of
 * its own and is warmed up first. Reports requests/s and p99 latency, and ObjectQL's throughput as a
 * ratio of the baseline's, per protocol ('—' where a protocol has no such request: REST has no
 * count route), and what each protocol's form costs beside JSON-RPC's (nested GraphQL and OData
 * $expand/$apply against JSON-RPC's expand and groupBy); then pages through every row while
 * sampling the server's memory.
 * ROWS (default 10000) and BENCH_SECONDS (default 5) tune it.
 */
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { startChild } from './child';
import { pageThroughAll } from './paging';
import { SCENARIOS, makeData, type HttpRequest } from './scenarios';
import { seed } from './seed';
import { resetStore, STORES, type Store } from './stores';

const ROWS = Number(process.env.ROWS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;

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

async function startServer(mode: 'objectql' | 'baseline', store: Store): Promise<Server> {
  // The server's first line: its pid and URLs, as JSON.
  const { info, child } = await startChild<Omit<Server, 'child'>>(resolve(__dirname, 'server.ts'), [mode, store, String(ROWS)]);
  return { ...info, child };
}

interface Measure {
  rps: number;
  /** Mean latency, ms. */
  mean: number;
  p99: number;
  /** Failed requests, and the first failure's status and body. */
  errors: number;
  firstError?: string;
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
        method: request.method,
        path: request.path,
        headers: request.body === undefined ? {} : { 'content-type': 'application/json' },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
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

function origin(url: string): { base: string; prefix: string } {
  const u = new URL(url);
  return { base: u.origin, prefix: u.pathname.replace(/\/$/, '') };
}

async function benchStore(store: Store): Promise<void> {
  const data = makeData(ROWS);
  if (store !== 'memory') {
    await resetStore(store);
    const started = Date.now();
    await seed(store, data);
    console.error(`${store}: seeded ${ROWS} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const objectql = await startServer('objectql', store);
  const baseline = await startServer('baseline', store);
  try {
    console.log(
      `\n### ${store}: ObjectQL (JSON-RPC, REST, OData, GraphQL) vs bare node:http, ${ROWS} rows, ${SECONDS} s per run, ${CONNECTIONS} connections\n`,
    );
    console.log(
      '| scenario | JSON-RPC req/s | REST req/s | OData req/s | GraphQL req/s | baseline req/s | JSON-RPC ratio | REST ratio | OData ratio | GraphQL ratio | p99 ms JSON-RPC / REST / OData / GraphQL / baseline |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    const rpc = origin(objectql.rpc);
    const rest = origin(objectql.rest);
    if (!objectql.odata) throw new Error('the ObjectQL server printed no OData URL');
    const odata = origin(objectql.odata);
    if (!objectql.graphql) throw new Error('the ObjectQL server printed no GraphQL URL');
    const gql = origin(objectql.graphql);
    /** A scenario's request under a protocol's prefix, measured; undefined when the protocol has no such request. */
    const under = (at: { base: string; prefix: string }, request: HttpRequest | undefined) =>
      request ? measure(at.base, { ...request, path: at.prefix + request.path }) : undefined;
    const costs: string[] = [];
    for (const s of SCENARIOS) {
      const body = s.rpc(data);
      const o = await measure(rpc.base, { method: 'POST', path: rpc.prefix, body });
      const r = await under(rest, s.rest?.(data));
      const od = await under(odata, s.odata?.(data));
      const gq = s.graphql?.(data);
      const g = gq ? await measure(gql.base, { method: 'POST', path: gql.prefix, body: gq }, true) : undefined;
      const b = await measure(baseline.rpc, { method: 'POST', path: `/${s.name}`, body });
      for (const [who, m] of [
        ['JSON-RPC', o],
        ['REST', r],
        ['OData', od],
        ['GraphQL', g],
        ['baseline', b],
      ] as const) {
        if (m?.errors)
          console.error(`${store} ${s.name}: ${m.errors} ${who} errors; first: ${m.firstError ?? 'a timeout or connection error'}`);
      }
      const rps = (m: Measure | undefined) => (m ? m.rps.toFixed(0) : '—');
      const ratio = (m: Measure | undefined) => (m ? (m.rps / b.rps).toFixed(2) : '—');
      const p99 = [o, r, od, g, b].map((m) => (m ? m.p99 : '—')).join(' / ');
      console.log(
        `| ${s.name} | ${rps(o)} | ${rps(r)} | ${rps(od)} | ${rps(g)} | ${rps(b)} | ${ratio(o)} | ${ratio(r)} | ${ratio(od)} | ${ratio(g)} | ${p99} |`,
      );
      const cost = (m: Measure | undefined) => (m && m.rps > 0 ? (o.rps / m.rps).toFixed(2) : '—');
      costs.push(`| ${s.name} | ${cost(r)} | ${cost(od)} | ${cost(g)} |`);
    }
    console.log("\nCost of each form beside JSON-RPC's for the same query (JSON-RPC req/s ÷ its req/s; 1.00 = the same):\n");
    console.log('| scenario | REST | OData | GraphQL |\n|---|---:|---:|---:|');
    for (const line of costs) console.log(line);
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
    objectql.child.kill('SIGTERM');
    baseline.child.kill('SIGTERM');
  }
}

async function main() {
  for (const store of STORES) {
    try {
      await benchStore(store);
    } catch (err) {
      console.error(`${store}: not measured: ${(err as Error).message}`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
