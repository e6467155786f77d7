/**
 * The WebSocket attacks of issue 14, each bounded: realtime subscription fan-out, a graphql-ws
 * subscription flood on one socket, a ping flood, slow readers, and a storm of upgrades with wrong
 * API keys. Each reports what the server did; a refusal (an upgrade answered 401/429, a socket
 * closed with a code, a subscription answered with an error) is the good outcome, not a failure.
 */
import WebSocket from 'ws';
import { apiKey, bearer, ROUTES, rssOf, mib } from './target';
import { ATTACKER, send, sleep, timeLeft, type Attack, type AttackContext } from './attack-kit';
import { closeSocket, drained, openSocket, Refused, text } from './ws-clients';

const realtimeUrl = (ctx: AttackContext) => ctx.target.ws + ROUTES.realtime;
const attacker = { headers: apiKey('mallory'), localAddress: ATTACKER };

/** Counts of why things were refused: 'HTTP 429 ×12, close 1008 ×3'. */
class Tally {
  private readonly counts = new Map<string, number>();
  add(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
  get total(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }
  toString(): string {
    return [...this.counts].map(([k, n]) => `${k} ×${n}`).join(', ') || 'none';
  }
}

/** A task of mallory's, created by carol (from 127.0.0.1, as an ordinary writer): every subscription of mallory's hears it. */
async function write(ctx: AttackContext, n: number): Promise<string> {
  const body = JSON.stringify({
    op: 'create',
    object: 'task',
    args: { title: `attack write ${n}`, project: 'prj-apollo', assignee: 'mallory' },
  });
  const started = performance.now();
  try {
    const res = await fetch(ctx.target.url + ROUTES.rpc, {
      method: 'POST',
      headers: { ...apiKey('carol'), 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(Math.max(1000, timeLeft(ctx))),
    });
    await res.arrayBuffer();
    return `${res.status} in ${((performance.now() - started) / 1000).toFixed(2)} s`;
  } catch (err) {
    return (err as Error).name === 'TimeoutError' ? 'timeout' : (err as Error).message;
  }
}

export const realtimeFanout = (sockets: number, perSocket: number, writes: number): Attack => ({
  name: 'Realtime subscription fan-out',
  size: `${sockets} sockets × ${perSocket} subscriptions of one user, then ${writes} writes`,
  seconds: 60,
  async run(ctx) {
    const refused = new Tally();
    const open: WebSocket[] = [];
    let events = 0;
    let subscribed = 0;
    try {
      for (let i = 0; i < sockets && timeLeft(ctx) > 30_000; i += 50) {
        const batch = await Promise.allSettled(
          Array.from({ length: Math.min(50, sockets - i) }, () => openSocket(realtimeUrl(ctx), attacker)),
        );
        for (const r of batch) {
          if (r.status === 'fulfilled') open.push(r.value);
          else refused.add(`upgrade ${(r.reason as Error).message}`);
        }
      }
      // Every subscribe sent at once; acks and errors counted as they come, for a bounded time.
      for (const ws of open) {
        ws.on('message', (data: WebSocket.RawData) => {
          const message = text(data);
          if (message.startsWith('{"type":"change"')) events++;
          else if (message.startsWith('{"type":"ack"')) subscribed++;
          else if (message.startsWith('{"type":"error"')) refused.add(`subscribe ${/"code":"(\w+)"/.exec(message)?.[1]}`);
        });
        ws.on('close', (code) => refused.add(`close ${code}`));
        for (let s = 0; s < perSocket; s++) ws.send(JSON.stringify({ type: 'subscribe', id: `s${s}`, object: 'task' }));
      }
      const expected = open.length * perSocket;
      while (subscribed + refused.total < expected && timeLeft(ctx) > 25_000) await sleep(100);
      const times: string[] = [];
      for (let n = 0; n < writes && timeLeft(ctx) > 2000; n++) times.push(await write(ctx, n));
      await sleep(Math.min(2000, timeLeft(ctx)));
      return `${open.length} sockets, ${subscribed} subscriptions accepted; refused: ${refused.toString()}; writes ${times.join(', ')}; ${events} events`;
    } finally {
      for (const ws of open) closeSocket(ws);
    }
  },
});

export const graphqlWsFlood = (subscriptions: number): Attack => ({
  name: 'graphql-ws subscription flood (one socket)',
  size: `${subscriptions.toLocaleString('en')} subscriptions on one socket, then 1 write`,
  seconds: 40,
  async run(ctx) {
    let ws: WebSocket;
    try {
      ws = await openSocket(ctx.target.ws + ROUTES.graphql, { localAddress: ATTACKER, protocol: 'graphql-transport-ws' });
    } catch (err) {
      return `refused at upgrade: ${(err as Error).message}`;
    }
    const refused = new Tally();
    let closed = '';
    let acked = false;
    let events = 0;
    ws.on('message', (data: WebSocket.RawData) => {
      const message = text(data);
      if (message.includes('"connection_ack"')) acked = true;
      else if (message.includes('"type":"next"')) events++;
      else if (message.includes('"type":"error"')) refused.add('error');
      else if (message.includes('"type":"complete"')) refused.add('complete');
    });
    ws.on('close', (code, reason) => (closed = `closed ${code} ${reason.toString()}`));
    try {
      ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: await bearer('mallory') } }));
      while (!acked && !closed && timeLeft(ctx) > 30_000) await sleep(20);
      if (!acked) return `not acknowledged: ${closed || 'timeout'}`;
      const query = 'subscription { taskCreated { id title } }';
      for (let i = 0; i < subscriptions && !closed && timeLeft(ctx) > 15_000; i++) {
        ws.send(JSON.stringify({ id: `s${i}`, type: 'subscribe', payload: { query } }));
        if (i % 500 === 499) await drained(ws);
      }
      await sleep(Math.min(3000, timeLeft(ctx) - 12_000));
      const answer = await write(ctx, 0);
      const until = Date.now() + Math.min(10_000, timeLeft(ctx) - 1000);
      while (!closed && events + refused.total < subscriptions && Date.now() < until) await sleep(100);
      return `${closed || 'socket kept open'}; subscriptions refused: ${refused.toString()}; write ${answer}; ${events} events`;
    } finally {
      closeSocket(ws);
    }
  },
});

export const pingFlood = (pings: number): Attack => ({
  name: 'Ping flood (one realtime socket)',
  size: `${pings.toLocaleString('en')} {type:'ping'} messages on one socket`,
  seconds: 30,
  async run(ctx) {
    let ws: WebSocket;
    try {
      ws = await openSocket(realtimeUrl(ctx), attacker);
    } catch (err) {
      return `refused at upgrade: ${(err as Error).message}`;
    }
    let pongs = 0;
    let closed = '';
    ws.on('message', () => pongs++);
    ws.on('close', (code, reason) => (closed = `closed ${code} ${reason.toString()}`));
    try {
      const ping = JSON.stringify({ type: 'ping' });
      let sent = 0;
      for (; sent < pings && !closed && timeLeft(ctx) > 8000; sent++) {
        ws.send(ping);
        if (sent % 1000 === 999) await drained(ws);
      }
      const until = Date.now() + Math.min(5000, timeLeft(ctx) - 1000);
      while (!closed && pongs < sent && Date.now() < until) await sleep(50);
      return `${sent} sent, ${pongs} answered; ${closed || 'socket kept open'}`;
    } finally {
      closeSocket(ws);
    }
  },
});

export const slowReaders = (readers: number, idBytes: number, holdMs: number): Attack => ({
  name: 'Slow readers (memory)',
  size: `${readers} realtime sockets that never read, each sending pings with a ${idBytes / 1000} KB id for ${holdMs / 1000} s`,
  seconds: 30,
  async run(ctx) {
    const before = rssOf(ctx.target.pid);
    let peak = before;
    const opened = await Promise.allSettled(Array.from({ length: readers }, () => openSocket(realtimeUrl(ctx), attacker)));
    const sockets = opened.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const refused = new Tally();
    for (const r of opened) if (r.status === 'rejected') refused.add(`upgrade ${(r.reason as Error).message}`);
    const closed = new Tally();
    let sent = 0;
    try {
      for (const ws of sockets) {
        ws.on('close', (code) => closed.add(String(code)));
        // Stop reading: the server's answers pile up wherever the server lets them.
        (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      }
      const ping = JSON.stringify({ type: 'ping', id: 'p'.repeat(idBytes) });
      const started = Date.now();
      while (Date.now() - started < holdMs && timeLeft(ctx) > 2000 && !ctx.target.exited) {
        const live = sockets.filter((ws) => ws.readyState === WebSocket.OPEN);
        if (!live.length) break;
        for (const ws of live) {
          if (ws.bufferedAmount < 1 << 20) {
            ws.send(ping);
            sent++;
          }
        }
        peak = Math.max(peak, rssOf(ctx.target.pid) || 0);
        await new Promise((r) => setImmediate(r));
      }
      return `${sockets.length} sockets (refused: ${refused.toString()}), ${((sent * idBytes) / 1e6).toFixed(0)} MB sent; server RSS ${mib(before)} → peak ${mib(peak)} MiB; closes seen: ${closed.toString()}`;
    } finally {
      for (const ws of sockets) ws.terminate();
    }
  },
});

export const wrongKeyStorm = (attempts: number): Attack => ({
  name: 'Wrong-key upgrade storm',
  size: `${attempts} realtime upgrades with wrong API keys from ${ATTACKER}`,
  seconds: 30,
  // HTTP answers 429 after 20 wrong keys a minute from one address (the anonymous tier); upgrades must too.
  expect: (outcome) => (outcome.includes('never a 429') ? 'upgrades not rate limited' : undefined),
  async run(ctx) {
    const answers = new Tally();
    let first429 = 0;
    let n = 0;
    const one = async () => {
      while (n < attempts && timeLeft(ctx) > 1000) {
        const i = ++n;
        try {
          const ws = await openSocket(realtimeUrl(ctx), {
            headers: { 'x-api-key': `wrong-key-${i}` },
            localAddress: ATTACKER,
            timeoutMs: 5000,
          });
          answers.add('accepted');
          closeSocket(ws);
        } catch (err) {
          const why = err instanceof Refused ? err.message : String(err);
          answers.add(why);
          if (why === 'HTTP 429' && !first429) first429 = i;
        }
      }
    };
    await Promise.all(Array.from({ length: 10 }, one));
    // For comparison, what HTTP answers the same caller now.
    let http: string;
    try {
      http = String((await send(ctx.target.url + ROUTES.rest + '/task', 'GET', undefined, { 'x-api-key': 'wrong-key-http' }, 5000)).status);
    } catch (err) {
      http = (err as Error).message;
    }
    return `${answers.toString()}; ${first429 ? `first 429 at attempt ${first429}` : 'never a 429'}; HTTP with a wrong key after: ${http}`;
  },
});
