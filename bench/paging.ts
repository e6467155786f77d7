/**
 * Pages through every row of bench_item over JSON-RPC (keyset paging on the primary key, 1,000
 * rows a page) while sampling the server's resident memory from /proc (Linux), to show whether it
 * stays flat: a server that buffered results, leaked per request or cached pages would grow.
 */
import { readFileSync } from 'node:fs';

export interface PagingResult {
  rows: number;
  pages: number;
  seconds: number;
  /** Resident set size in MiB when 0%, 25%, 50%, 75% and 100% of the pages were fetched. */
  rssAt: number[];
  rssPeak: number;
}

const PAGE = 1000;

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kib / 1024;
}

async function rpc(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${JSON.stringify(body)}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

export async function pageThroughAll(rpcUrl: string, pid: number): Promise<PagingResult> {
  const { count: expectedRows } = (await rpc(rpcUrl, { op: 'count', object: 'bench_item' })) as { count: number };
  const started = Date.now();
  const expectedPages = Math.ceil(expectedRows / PAGE);
  const marks = [0.25, 0.5, 0.75].map((f) => Math.round(expectedPages * f));
  const rssAt = [rssMiB(pid)];
  let rssPeak = rssAt[0];
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(pid))), 50);
  let rows = 0;
  let pages = 0;
  let last = '';
  try {
    for (;;) {
      const filters = last ? [['id', '>', last]] : [];
      const { items } = (await rpc(rpcUrl, { op: 'find', object: 'bench_item', args: { filters, sort: [['id', 'asc']], top: PAGE } })) as {
        items: Array<{ id: string }>;
      };
      if (!items.length) break;
      rows += items.length;
      pages += 1;
      last = items[items.length - 1].id;
      if (marks.includes(pages)) rssAt.push(rssMiB(pid));
      if (items.length < PAGE) break;
    }
  } finally {
    clearInterval(sampler);
  }
  rssAt.push(rssMiB(pid));
  return { rows, pages, seconds: (Date.now() - started) / 1000, rssAt, rssPeak: Math.max(rssPeak, ...rssAt) };
}
