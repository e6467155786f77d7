/**
 * The bare baseline: node:http, JSON in and out, and each scenario's work written by hand on
 * plain arrays — what the memory driver must do at the least, without metadata, validation,
 * permissions or hooks.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchData } from './scenarios';

type Item = BenchData['items'][number];

export async function startBaseline(data: BenchData): Promise<{ url: string; close(): Promise<void> }> {
  const byId = new Map(data.items.map((i) => [i.id, i]));
  const categories = new Map(data.categories.map((c) => [c.id, c]));
  const handlers: Record<string, (body: { args: unknown }) => unknown> = {
    create: (body) => {
      const a = body.args as Omit<Item, 'id'>;
      const item = { id: randomUUID(), name: a.name, status: a.status, amount: a.amount, category: a.category };
      data.items.push(item);
      byId.set(item.id, item);
      return { ...item, '@type': 'bench_item' };
    },
    list: () => {
      const rows = data.items.filter((i) => i.status === 'open' && i.amount > 500);
      const items = [...rows].sort((a, b) => b.amount - a.amount).slice(0, 20);
      return { items, meta: { total: rows.length } };
    },
    get: (body) => ({ ...byId.get(body.args as string), '@type': 'bench_item' }),
    count: () => ({ count: data.items.filter((i) => i.status === 'closed').length, '@type': 'bench_item' }),
    expand: () => {
      const items = [...data.items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).slice(0, 50);
      return {
        items: items.map((i: Item) => ({ ...i, category: { id: i.category, name: categories.get(i.category)?.name } })),
        meta: { total: data.items.length },
      };
    },
    'one-to-many': () => {
      const cats = [...data.categories].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).slice(0, 20);
      const wanted = new Set(cats.map((c) => c.id));
      const children = new Map<string, Item[]>();
      for (const i of [...data.items].sort((a, b) => b.amount - a.amount || (a.id < b.id ? -1 : 1))) {
        if (!wanted.has(i.category)) continue;
        const list = children.get(i.category) ?? [];
        if (list.length < 5) list.push(i);
        children.set(i.category, list);
      }
      return {
        items: cats.map((c) => ({ ...c, items: (children.get(c.id) ?? []).map((i) => ({ id: i.id, name: i.name, amount: i.amount })) })),
        meta: { total: data.categories.length },
      };
    },
    'group-by': () => {
      const groups = new Map<string, { status: string; n: number; total: number }>();
      for (const i of data.items) {
        const g = groups.get(i.status) ?? { status: i.status, n: 0, total: 0 };
        g.n += 1;
        g.total += i.amount;
        groups.set(i.status, g);
      }
      return { items: [...groups.values()] };
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const handler = handlers[(req.url ?? '').slice(1)];
      const result = handler(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { args: unknown });
      const body = JSON.stringify(result);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}
