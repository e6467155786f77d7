/**
 * What every attack of `npm run bench:attacks` is made of: its shape, the attacker's address, HTTP
 * requests from that address whose answers are counted but never kept, and the deadline every
 * loop checks.
 */
import { request } from 'node:http';
import type { Target } from './target';

/** Attackers connect from here, so per-address limits never fall on the /health probes (127.0.0.1). */
export const ATTACKER = '127.0.0.2';

export interface AttackContext {
  target: Target;
  /** Epoch ms after which the attack stops and reports what it has. */
  deadline: number;
}

export interface Attack {
  name: string;
  /** The attack's size, for the table: '10,000 aliases × a 500 KB value'. */
  size: string;
  /** Seconds the attack may run (setup included). */
  seconds: number;
  /** Runs the attack; resolves with what the server did, in a few words ('refused: 400 INVALID_REQUEST'). */
  run(ctx: AttackContext): Promise<string>;
  /** What the issue asks of the server beyond /health, checked on the outcome: undefined when met, else what is wrong. */
  expect?(outcome: string): string | undefined;
}

export const timeLeft = (ctx: AttackContext) => ctx.deadline - Date.now();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

export interface Answer {
  status: number;
  /** Bytes of the body (read and dropped). */
  bytes: number;
  /** The first 300 characters, for the error code. */
  head: string;
  ms: number;
}

/** One HTTP request from the attacker's address; the body is counted, not kept. Rejects with the network error or 'timeout'. */
export function send(
  url: string,
  method: string,
  body: string | undefined,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        localAddress: ATTACKER,
        headers: {
          ...headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
        },
        timeout: timeoutMs,
        agent: false,
      },
      (res) => {
        let bytes = 0;
        let head = '';
        res.on('data', (chunk: Buffer) => {
          if (head.length < 300) head += chunk.toString('utf8', 0, Math.min(chunk.length, 300));
          bytes += chunk.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, head: head.slice(0, 300), ms: performance.now() - started }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => reject(new Error(err.code ?? err.message)));
    req.end(body);
  });
}

/** `400 INVALID_REQUEST` from an answer. */
export function describe(a: Answer): string {
  const code = /"code"\s*:\s*"([A-Z_]+)"/.exec(a.head)?.[1];
  return `${a.status}${code ? ` ${code}` : ''}`;
}
