/**
 * Shared by the events end-to-end tests (e2e-*.test.ts): a real HTTP receiver on 127.0.0.1 that
 * records every call and answers as the test says (and can go down and come back on its port),
 * `objectql serve` child processes on the fixtures' config, and the checks of what was received.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { freePort } from '../../helpers/free-port';
import { identityHeader, type TestServer } from '../../helpers/server';
import { ADMIN } from './outbox-helpers';

export const FIXTURES = resolve(__dirname, 'fixtures/e2e');
export const ROOT = resolve(__dirname, '../../..');
export const SECRET = 'an-e2e-webhook-secret';

/** One request the receiver got, with the status it answered. */
export interface Received {
  path: string;
  deliveryId: string;
  idempotencyKey: string;
  timestamp: string;
  signature: string | undefined;
  raw: string;
  body: { id: string; object: string; operation: string; position: number; record: { id: string } & Record<string, unknown> };
  status: number;
}

/** Decides the status of a call: `n` is the 1-based count of calls to that path so far. */
export type Answer = (call: Omit<Received, 'status'>, n: number) => number;

export class Receiver {
  readonly received: Received[] = [];
  /** Per path; absent: 200. */
  readonly answers = new Map<string, Answer>();
  /** Added before answering (a slow receiver keeps deliveries in flight). */
  delayMs = 0;
  private server: http.Server | undefined;
  private readonly counts = new Map<string, number>();

  private constructor(public port: number) {}

  /** Listens on `port` (0: any free one). */
  static async start(port = 0): Promise<Receiver> {
    const r = new Receiver(port);
    await r.up();
    return r;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Listens again on the same port (after down()). */
  async up(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const path = (req.url ?? '').split('?')[0];
        const n = (this.counts.get(path) ?? 0) + 1;
        this.counts.set(path, n);
        const header = (name: string) => {
          const v = req.headers[name];
          return Array.isArray(v) ? v.join(',') : v;
        };
        const call = {
          path,
          deliveryId: header('x-objectql-delivery') ?? '',
          idempotencyKey: header('idempotency-key') ?? '',
          timestamp: header('x-objectql-timestamp') ?? '',
          signature: header('x-objectql-signature'),
          raw,
          body: JSON.parse(raw || 'null') as Received['body'],
        };
        const status = (this.answers.get(path) ?? (() => 200))(call, n);
        const answer = () => {
          this.received.push({ ...call, status });
          res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'receiver failing on purpose');
        };
        if (this.delayMs > 0) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and drops every connection: calls are refused until up(). */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise((r) => server.close(r));
    server.closeAllConnections();
    await closed;
  }

  /** The calls to `path` (every status) in the order they were answered. */
  calls(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Delivery ids answered with a 2xx at `path`. */
  delivered(path: string): Set<string> {
    return new Set(
      this.calls(path)
        .filter((r) => r.status < 300)
        .map((r) => r.deliveryId),
    );
  }
}

/** Waits for `fn` to return something truthy, at most `timeoutMs`; the error names what and the last value. */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 15_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An admin's retry of a delivery through the admin API, on a server started with `identityFromHeader`. */
export function retryDelivery(s: TestServer, id: string): ReturnType<TestServer['request']> {
  return s.request('POST', `/api/events/deliveries/${encodeURIComponent(id)}/retry`, undefined, identityHeader(ADMIN));
}

/**
 * The ordering checks per record over the calls of one path:
 * - every id in `expected` was answered 2xx at least once;
 * - per record, in the order received, positions never go back (a later event of a record is not
 *   sent before an earlier one succeeded), repeats of an already delivered position aside when
 *   `allowRedelivery` (a killed instance's in-flight delivery, run again after its lease);
 * - without `allowRedelivery`: each delivery succeeded exactly once, and a repeat of a delivery
 *   only ever follows a failure of it.
 */
export function checkDeliveries(calls: Received[], expected: Set<string>, options: { allowRedelivery?: boolean } = {}): void {
  const ok = new Set(calls.filter((c) => c.status < 300).map((c) => c.deliveryId));
  const missing = [...expected].filter((id) => !ok.has(id));
  expect(missing, 'deliveries never answered 2xx').to.deep.equal([]);
  const byRecord = new Map<string, Received[]>();
  for (const c of calls) {
    if (!expected.has(c.deliveryId)) continue;
    const list = byRecord.get(c.body.record.id) ?? [];
    list.push(c);
    byRecord.set(c.body.record.id, list);
  }
  for (const [record, list] of byRecord) {
    const done = new Set<string>();
    let last = 0;
    for (const c of list) {
      if (done.has(c.deliveryId)) {
        if (!options.allowRedelivery) {
          expect.fail(`record ${record}: delivery ${c.deliveryId} was sent again after it succeeded (${describe(list)})`);
        }
        continue;
      }
      expect(c.body.position, `record ${record}: positions out of order (${describe(list)})`).to.be.at.least(last);
      last = c.body.position;
      if (c.status < 300) done.add(c.deliveryId);
    }
  }
}

function describe(list: Received[]): string {
  return list.map((c) => `${c.body.position}:${c.status}`).join(' ');
}

/** The delivery id of the webhook workflow's action for an event at `position` of the default datasource. */
export const hookId = (position: number, workflow = 'item_hook') => `default:${position}:${workflow}:0`;

// --- `objectql serve` as a child process -------------------------------------------------------

export interface Instance {
  url: string;
  child: ChildProcess;
  /** What it wrote to stderr and stdout so far. */
  output(): string;
  /** SIGKILL: no stop hook runs, its claims stay until their lease expires. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after 10 s. */
  stop(): Promise<void>;
  request(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: any }>;
}

export const MANAGER_KEY = 'e2e-manager-key-0001';
export const ADMIN_KEY = 'e2e-admin-key-00001';

/**
 * `node bin/objectql.js serve --config fixtures/e2e/serve.config.ts` on a free port with `env`
 * (E2E_DATASOURCE, E2E_RECEIVER_URL, E2E_WEBHOOK_SECRET): resolves once /health/ready answers 200,
 * within 30 s. bin/objectql.js runs dist/: build first.
 */
export async function serveInstance(env: Record<string, string>): Promise<Instance> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    ['bin/objectql.js', 'serve', '--config', join(FIXTURES, 'serve.config.ts'), '--port', String(port)],
    {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'test', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let said = '';
  child.stdout.on('data', (d: Buffer) => (said += d.toString()));
  child.stderr.on('data', (d: Buffer) => (said += d.toString()));
  const exited = once(child, 'exit');
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  };
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 10_000)))]);
    clearTimeout(timer);
    await kill();
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (
      await fetch(`${url}/health/ready`).then(
        (r) => r.status === 200,
        () => false,
      )
    )
      break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await kill();
      throw new Error(`objectql serve did not become ready: ${said}`);
    }
    await sleep(50);
  }
  const base = url;
  return {
    url: base,
    child,
    output: () => said,
    kill,
    stop,
    async request(method, path, body, key = MANAGER_KEY) {
      const res = await fetch(base + path, {
        method,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON */
      }
      return { status: res.status, body: parsed };
    },
  };
}
