/**
 * The bare baseline for SQL stores: node:http, JSON in and out, and each scenario as the prepared
 * SQL a hand-written service would run (the same queries ObjectQL needs: a page and its total
 * count, one batched query for an expand) — without metadata, validation, permissions or hooks.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { PG_BENCH_URL, SQLITE_FILE, type Store } from './stores';

type Query = (text: string, params: unknown[]) => Promise<Array<Record<string, unknown>>>;

async function connect(store: Store): Promise<{ query: Query; close(): Promise<void> }> {
  if (store === 'sqlite') {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(SQLITE_FILE);
    db.pragma('journal_mode = WAL');
    const statements = new Map<string, ReturnType<typeof db.prepare<unknown[]>>>();
    // better-sqlite3 is synchronous: its answers (and failures) become settled promises.
    const query: Query = (text, params) =>
      new Promise((resolve) => {
        let st = statements.get(text);
        if (!st) statements.set(text, (st = db.prepare<unknown[]>(text)));
        if (!st.reader) {
          st.run(...params);
          resolve([]);
          return;
        }
        resolve(st.all(...params) as Array<Record<string, unknown>>);
      });
    return {
      query,
      close: () => {
        db.close();
        return Promise.resolve();
      },
    };
  }
  const { Pool } = await import('pg');
  const pool = new Pool({ connectionString: PG_BENCH_URL, max: 10 });
  const names = new Map<string, string>();
  const query: Query = async (text, params) => {
    let name = names.get(text);
    if (!name) names.set(text, (name = `q${names.size}`));
    let n = 0;
    const pgText = text.replace(/\?/g, () => `$${++n}`);
    return (await pool.query<Record<string, unknown>>({ name, text: pgText, values: params })).rows;
  };
  return { query, close: () => pool.end() };
}

function body(req: IncomingMessage): Promise<{ args: unknown }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { args: unknown }));
  });
}

export async function startSqlBaseline(store: Store): Promise<{ url: string; close(): Promise<void> }> {
  const db = await connect(store);
  // The same order as ObjectQL's: nulls lowest (PostgreSQL's own default puts them highest).
  const [asc, desc] = store === 'postgres' ? ['ASC NULLS FIRST', 'DESC NULLS LAST'] : ['ASC', 'DESC'];
  const countOf = async (table: string) => Number((await db.query(`SELECT COUNT(*) AS n FROM ${table}`, []))[0].n);
  const count = async (where: string, params: unknown[]) =>
    Number((await db.query(`SELECT COUNT(*) AS n FROM bench_item ${where}`, params))[0].n);
  const handlers: Record<string, (b: { args: unknown }) => Promise<unknown>> = {
    list: async () => ({
      items: await db.query(`SELECT * FROM bench_item WHERE status = ? AND amount > ? ORDER BY amount ${desc} LIMIT 20`, ['open', 500]),
      meta: { total: await count('WHERE status = ? AND amount > ?', ['open', 500]) },
    }),
    get: async (b) => ({ ...(await db.query('SELECT * FROM bench_item WHERE id = ?', [b.args]))[0], '@type': 'bench_item' }),
    count: async () => ({ count: await count('WHERE status = ?', ['closed']), '@type': 'bench_item' }),
    expand: async () => {
      const items = await db.query(`SELECT * FROM bench_item ORDER BY name ${asc} LIMIT 50`, []);
      const ids = [...new Set(items.map((i) => i.category as string))];
      const cats = await db.query(`SELECT id, name FROM bench_category WHERE id IN (${ids.map(() => '?').join(',')})`, ids);
      const byId = new Map(cats.map((c) => [c.id, c]));
      return { items: items.map((i) => ({ ...i, category: byId.get(i.category) ?? null })), meta: { total: await count('', []) } };
    },
    // One window-function query for the children of every category on the page, as the SQL driver pages per group.
    'one-to-many': async () => {
      const cats = await db.query(`SELECT * FROM bench_category ORDER BY name ${asc} LIMIT 20`, []);
      const ids = cats.map((c) => c.id as string);
      const rows = await db.query(
        `SELECT id, name, amount, category FROM (SELECT id, name, amount, category, ROW_NUMBER() OVER (PARTITION BY category ORDER BY amount ${desc}, id) AS rn FROM bench_item WHERE category IN (${ids.map(() => '?').join(',')})) t WHERE rn <= 5`,
        ids,
      );
      const byCat = new Map<unknown, unknown[]>();
      for (const r of rows) byCat.set(r.category, [...(byCat.get(r.category) ?? []), { id: r.id, name: r.name, amount: r.amount }]);
      return { items: cats.map((c) => ({ ...c, items: byCat.get(c.id) ?? [] })), meta: { total: await countOf('bench_category') } };
    },
    'group-by': async () => ({
      items: await db.query('SELECT status, COUNT(*) AS n, SUM(amount) AS total FROM bench_item GROUP BY status', []),
    }),
    create: async (b) => {
      const a = b.args as Record<string, unknown>;
      const record = { id: randomUUID(), name: a.name, status: a.status, amount: a.amount, category: a.category };
      await db.query('INSERT INTO bench_item (id, name, status, amount, category) VALUES (?, ?, ?, ?, ?)', Object.values(record));
      return { ...record, '@type': 'bench_item' };
    },
  };
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const result = await handlers[(req.url ?? '').slice(1)](await body(req));
      const text = JSON.stringify(result);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  };
  // answer() catches every failure itself: nothing is left to handle on its promise.
  const server = createServer((req, res) => void answer(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.close();
      await db.close();
    },
  };
}
