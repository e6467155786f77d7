/**
 * The webhook receiver of `npm run bench:events`, in its own process (started with an IPC channel):
 * answers every POST with 204 and notes, per delivery (the `Idempotency-Key`, counted once), its
 * arrival on the machine's clock (`performance.timeOrigin + performance.now()`, ms since the epoch)
 * beside two times from the standard body: `at`, the event's time stamped by the outbox inside the
 * write's transaction just before it commits (ms resolution), and `record.sent_at`, the load
 * generator's clock when it sent the create. Prints one JSON line once listening: its pid and URL.
 * Messages: {type: 'reset', since} forgets everything and ignores records sent before `since`;
 * {type: 'stats'} answers {type: 'stats', delivered, duplicates, ignored, commitToArrival,
 * sentToArrival, firstArrival, lastArrival}.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

const now = () => performance.timeOrigin + performance.now();

let since = 0;
let seen = new Set<string>();
let duplicates = 0;
let ignored = 0;
let commitToArrival: number[] = [];
let sentToArrival: number[] = [];
let firstArrival = 0;
let lastArrival = 0;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const arrival = now();
    res.statusCode = 204;
    res.end();
    let body: { at?: string; record?: { sent_at?: number } };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      ignored++;
      return;
    }
    const sent = Number(body.record?.sent_at);
    if (!(sent >= since)) {
      ignored++;
      return;
    }
    const id = String(req.headers['idempotency-key'] ?? '');
    if (seen.has(id)) {
      duplicates++;
      return;
    }
    seen.add(id);
    commitToArrival.push(arrival - Date.parse(body.at ?? ''));
    sentToArrival.push(arrival - sent);
    if (!firstArrival) firstArrival = arrival;
    lastArrival = arrival;
  });
});
server.keepAliveTimeout = 60_000;

process.on('message', (msg: { type: string; since?: number }) => {
  if (msg.type === 'reset') {
    since = msg.since ?? 0;
    seen = new Set();
    duplicates = ignored = firstArrival = lastArrival = 0;
    commitToArrival = [];
    sentToArrival = [];
    process.send?.({ type: 'reset' });
  }
  if (msg.type === 'stats') {
    process.send?.({
      type: 'stats',
      delivered: seen.size,
      duplicates,
      ignored,
      commitToArrival,
      sentToArrival,
      firstArrival,
      lastArrival,
    });
  }
});
process.once('SIGTERM', () => process.exit(0));

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ pid: process.pid, url: `http://127.0.0.1:${port}/hook` })}\n`);
});
