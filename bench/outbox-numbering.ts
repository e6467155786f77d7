/**
 * `npm run bench:numbering`: what numbering a change feed costs PostgreSQL itself, without ObjectQL
 * around it — the measurement behind the events plugin's next step (issue 19). Raw transactions
 * with `pg`, NUMBERING_CONNECTIONS at once (default 10) for NUMBERING_SECONDS each (default 4), on
 * a database of their own (made and dropped; PG_URL's server), one shape after another, twice:
 *
 * - no feed: BEGIN; INSERT the record; COMMIT;
 * - numbered in the write (what the outbox does): BEGIN; INSERT the record; UPDATE the counter
 *   row ... RETURNING (locked until the commit); INSERT the event with that position; COMMIT;
 * - the same, the commit not waiting for the disk (synchronous_commit off): what of the above is
 *   the disk's flush, and what the round trips made while the counter is held;
 * - numbered after commit: BEGIN; INSERT the record; INSERT the event, numbered by an identity
 *   column only (no lock); COMMIT; and one loop beside the writers numbers the committed events
 *   in identity order, up to 500 per transaction, under the counter's lock.
 *
 * Prints transactions/s and the ratio over no feed. Loopback only; bounded in time.
 */
import { randomUUID } from 'node:crypto';
import { Pool, type PoolClient } from 'pg';
import { PG_URL } from './stores';

const SECONDS = Number(process.env.NUMBERING_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.NUMBERING_CONNECTIONS ?? 10);
const DATABASE = 'objectql_bench_numbering';

type Shape = 'none' | 'in-write' | 'in-write-lazy' | 'after-commit';
const LABEL: Record<Shape, string> = {
  none: 'no feed',
  'in-write': 'numbered in the write (the outbox today)',
  'in-write-lazy': 'numbered in the write, commit not waiting for the disk',
  'after-commit': 'numbered after commit (one numbering loop)',
};

async function admin<T>(fn: (pool: Pool) => Promise<T>): Promise<T> {
  const pool = new Pool({ connectionString: PG_URL, max: 1 });
  try {
    return await fn(pool);
  } finally {
    await pool.end();
  }
}

async function write(pool: Pool, shape: Shape, id: string): Promise<void> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    if (shape === 'in-write-lazy') await c.query('SET LOCAL synchronous_commit TO OFF');
    await c.query('INSERT INTO record (id, name, amount, created_at) VALUES ($1, $2, $3, $4)', [
      id,
      'New order',
      42,
      new Date().toISOString(),
    ]);
    const event = [id, JSON.stringify({ id, name: 'New order', amount: 42 }), new Date().toISOString()];
    if (shape === 'in-write' || shape === 'in-write-lazy') {
      const counter = await c.query<{ value: string }>("UPDATE counter SET value = value + 1 WHERE id = 'feed' RETURNING value");
      await c.query('INSERT INTO event (position, record_id, record, at) VALUES ($1, $2, $3, $4)', [counter.rows[0].value, ...event]);
    } else if (shape === 'after-commit') {
      await c.query('INSERT INTO event (record_id, record, at) VALUES ($1, $2, $3)', event);
    }
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
}

/** Numbers the committed, unnumbered events in identity order; returns how many. */
async function numberBatch(c: PoolClient): Promise<number> {
  await c.query('BEGIN');
  const r = await c.query<{ n: string }>(
    `WITH held AS (SELECT value FROM counter WHERE id = 'feed' FOR UPDATE),
          todo AS (SELECT seq, row_number() OVER (ORDER BY seq) AS n FROM event WHERE position IS NULL ORDER BY seq LIMIT 500),
          numbered AS (UPDATE event e SET position = (SELECT value FROM held) + todo.n FROM todo WHERE e.seq = todo.seq RETURNING 1)
     UPDATE counter SET value = value + (SELECT count(*) FROM numbered) WHERE id = 'feed' RETURNING (SELECT count(*) FROM numbered) AS n`,
  );
  await c.query('COMMIT');
  return Number(r.rows[0].n);
}

async function run(pool: Pool, shape: Shape): Promise<{ perSecond: number; unnumbered: number }> {
  const end = Date.now() + SECONDS * 1000;
  let done = 0;
  let writing = true;
  const numbering =
    shape === 'after-commit'
      ? (async () => {
          const c = await pool.connect();
          try {
            while (writing) if ((await numberBatch(c)) === 0) await new Promise((r) => setTimeout(r, 1));
          } finally {
            c.release();
          }
        })()
      : undefined;
  try {
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < end) {
          await write(pool, shape, randomUUID());
          done++;
        }
      }),
    );
  } finally {
    writing = false;
    await numbering;
  }
  const left = await pool.query<{ n: string }>('SELECT count(*) AS n FROM event WHERE position IS NULL');
  return { perSecond: done / SECONDS, unnumbered: Number(left.rows[0].n) };
}

async function main(): Promise<void> {
  await admin(async (pool) => {
    await pool.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await pool.query(`CREATE DATABASE ${DATABASE}`);
  });
  const pool = new Pool({ connectionString: PG_URL.replace(/\/[^/?]+(\?|$)/, `/${DATABASE}$1`), max: CONNECTIONS + 1 });
  try {
    await pool.query('CREATE TABLE record (id text PRIMARY KEY, name text, amount numeric, created_at text)');
    await pool.query(
      'CREATE TABLE event (seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, position bigint UNIQUE, record_id text, record jsonb, at text)',
    );
    await pool.query('CREATE TABLE counter (id text PRIMARY KEY, value bigint NOT NULL)');
    await pool.query("INSERT INTO counter VALUES ('feed', 0)");
    const shapes = Object.keys(LABEL) as Shape[];
    const results = new Map<Shape, number[]>(shapes.map((s) => [s, []]));
    for (let round = 0; round < 2; round++) {
      for (const shape of round % 2 === 0 ? shapes : [...shapes].reverse()) {
        const { perSecond, unnumbered } = await run(pool, shape);
        results.get(shape)!.push(perSecond);
        if (unnumbered > 0 && shape === 'after-commit')
          console.error(`after-commit: ${unnumbered} events left unnumbered when the writes stopped`);
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const base = mean(results.get('none')!);
    console.log(`\n### PostgreSQL, numbering a change feed: ${CONNECTIONS} connections, ${SECONDS} s per run, 2 rounds\n`);
    console.log('| transaction | round 1 | round 2 | mean tx/s | ÷ no feed |');
    console.log('|---|---:|---:|---:|---:|');
    for (const shape of shapes) {
      const xs = results.get(shape)!;
      console.log(
        `| ${LABEL[shape]} | ${xs.map((x) => x.toFixed(0)).join(' | ')} | ${mean(xs).toFixed(0)} | ${(mean(xs) / base).toFixed(2)} |`,
      );
    }
  } finally {
    await pool.end();
    await admin((p) => p.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
