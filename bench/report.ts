/** The markdown tables `npm run bench` prints per store: throughput and p99, ratios, and each form's cost beside JSON-RPC's. */

export interface Measure {
  rps: number;
  /** Mean latency, ms. */
  mean: number;
  p99: number;
  /** Failed requests, and the first failure's status and body. */
  errors: number;
  firstError?: string;
}

/** One scenario's measures; undefined where the server has no such request (or was not started). */
export interface Row {
  name: string;
  rpc: Measure;
  rest?: Measure;
  odata?: Measure;
  graphql?: Measure;
  baseline: Measure;
  cap?: Measure;
  express?: Measure;
}

const OURS = ['rpc', 'rest', 'odata', 'graphql'] as const;
const LABEL = {
  rpc: 'JSON-RPC',
  rest: 'REST',
  odata: 'OData',
  graphql: 'GraphQL',
  baseline: 'baseline',
  cap: 'CAP (OData)',
  express: 'express',
};

const ratio = (a: Measure | undefined, b: Measure | undefined) => (a && b && b.rps > 0 ? (a.rps / b.rps).toFixed(2) : '—');
/** Each of ObjectQL's protocols over `of`, "JSON-RPC / REST / OData / GraphQL". */
const ours = (r: Row, of: Measure | undefined) => (of ? OURS.map((k) => ratio(r[k], of)).join(' / ') : '—');

export function printTables(rows: Row[], peers: { cap: boolean; express: boolean }): void {
  const columns = [...OURS, 'baseline', ...(peers.cap ? ['cap'] : []), ...(peers.express ? ['express'] : [])] as Array<keyof typeof LABEL>;
  const cell = (m: Measure | undefined) => (m ? `${m.rps.toFixed(0)} (${m.p99})` : '—');
  console.log('Requests/s (p99 ms):\n');
  console.log(`| scenario | ${columns.map((c) => LABEL[c]).join(' | ')} |`);
  console.log(`|---|${columns.map(() => '---:').join('|')}|`);
  for (const r of rows) console.log(`| ${r.name} | ${columns.map((c) => cell(r[c])).join(' | ')} |`);

  const of = ['baseline', ...(peers.cap ? ['CAP'] : []), ...(peers.express ? ['express'] : [])];
  const only = peers.express ? ' (÷ express: the get only)' : '';
  console.log(`\nObjectQL's req/s ÷ the other's, each cell JSON-RPC / REST / OData / GraphQL${only}:\n`);
  console.log(`| scenario | ${of.map((o) => `÷ ${o}`).join(' | ')} | OData ÷ REST | GraphQL ÷ REST |`);
  console.log(`|---|${of.map(() => '---:').join('|')}|---:|---:|`);
  for (const r of rows) {
    const cells = [ours(r, r.baseline), ...(peers.cap ? [ours(r, r.cap)] : []), ...(peers.express ? [ours(r, r.express)] : [])];
    console.log(`| ${r.name} | ${cells.join(' | ')} | ${ratio(r.odata, r.rest)} | ${ratio(r.graphql, r.rest)} |`);
  }

  console.log("\nCost of each form beside JSON-RPC's for the same query (JSON-RPC req/s ÷ its req/s; 1.00 = the same):\n");
  console.log('| scenario | REST | OData | GraphQL |\n|---|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.name} | ${ratio(r.rpc, r.rest)} | ${ratio(r.rpc, r.odata)} | ${ratio(r.rpc, r.graphql)} |`);
}
