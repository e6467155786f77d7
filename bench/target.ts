/**
 * The measured server (bench/target-server.ts) as the soak and attack benches see it: started in
 * its own process on a fresh store, its memory followed over IPC and /proc, its routes and
 * credentials. Shared by bench/soak.ts and bench/attacks.ts.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { SignJWT } from 'jose';
import { startChild, stopChild } from './child';
import { resetStore, type Store } from './stores';

/** HS256 secret shared by the server child and the tokens minted here. */
export const JWT_SECRET = 'bench-target-secret-0123456789-abcdefghij';

/** The sample application's users, one API key each (the attacker is a member like alice). */
export const API_KEYS = [
  { key: 'bench-key-alice-0001', user: { id: 'alice', roles: ['member'] } },
  { key: 'bench-key-bob-0001', user: { id: 'bob', roles: ['member'] } },
  { key: 'bench-key-carol-0001', user: { id: 'carol', roles: ['manager'] } },
  { key: 'bench-key-mallory-0001', user: { id: 'mallory', roles: ['member'] } },
] as const;

export type UserName = 'alice' | 'bob' | 'carol' | 'mallory';

export function apiKey(user: UserName): Record<string, string> {
  const entry = API_KEYS.find((k) => k.user.id === user);
  if (!entry) throw new Error(`no API key for ${user}`);
  return { 'x-api-key': entry.key };
}

/** A bearer token (for graphql-ws's connection parameter, which takes no API key), valid for an hour. */
export async function bearer(user: UserName): Promise<string> {
  const entry = API_KEYS.find((k) => k.user.id === user);
  if (!entry) throw new Error(`no user ${user}`);
  const token = await new SignJWT({ roles: [...entry.user.roles] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(entry.user.id)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
  return `Bearer ${token}`;
}

/** The plugins' default routes. */
export const ROUTES = { rpc: '/api/objectql', rest: '/api/data', odata: '/odata', graphql: '/api/graphql', realtime: '/api/realtime' };

export interface MemorySample {
  type: 'memory' | 'gc';
  /** Epoch ms. */
  at: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

export interface Target {
  url: string;
  ws: string;
  pid: number;
  child: ChildProcess;
  /** Every sample the child reported, in order (one a second). */
  samples: MemorySample[];
  /** Asks the child to collect garbage and report the live heap. */
  gc(): Promise<MemorySample>;
  /** Set when the child went away by itself (crash, OOM, killed by the RSS cap): why. */
  exited?: string;
  stop(): Promise<void>;
}

export async function startTarget(store: Store, profile: 'soak' | 'attack', options: { maxFiles?: number } = {}): Promise<Target> {
  await resetStore(store);
  const { info, child } = await startChild<{ pid: number; url: string }>(resolve(__dirname, 'target-server.ts'), [store, profile], {
    ipc: true,
    // BENCH_CPU_PROF=<dir>: the server writes a CPU profile there when it stops (profile before optimising).
    nodeFlags: ['--expose-gc', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
    maxFiles: options.maxFiles,
  });
  const samples: MemorySample[] = [];
  const waiting: Array<(s: MemorySample) => void> = [];
  child.on('message', (m: MemorySample) => {
    if (m.type === 'memory' && Number.isFinite(m.rss)) samples.push(m);
    if (m.type === 'gc') waiting.shift()?.(m);
  });
  const target: Target = {
    url: info.url,
    ws: info.url.replace(/^http/, 'ws'),
    pid: info.pid,
    child,
    samples,
    gc: () =>
      new Promise((resolveSample, reject) => {
        if (!child.connected) return reject(new Error('the server is gone'));
        waiting.push(resolveSample);
        child.send({ type: 'gc' });
      }),
    stop: () => stopChild(child),
  };
  child.once('exit', (code, signal) => {
    target.exited ??= signal ? `killed by ${signal}` : `exited with code ${code}`;
    // A gc() the child will never answer.
    for (const w of waiting.splice(0)) w({ type: 'gc', at: Date.now(), rss: NaN, heapUsed: NaN, heapTotal: NaN, external: NaN });
  });
  return target;
}

/** Resident memory of a process from /proc (Linux), bytes; NaN when it is gone or elsewhere. */
export function rssOf(pid: number): number {
  try {
    const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return kib * 1024;
  } catch {
    return NaN;
  }
}

/**
 * Kills the target (SIGKILL) as soon as its resident memory passes `capBytes`, sampled every 100 ms
 * from /proc — which answers even when the server's event loop is blocked. Returns a stop function
 * and the peak seen.
 */
export function capMemory(target: Target, capBytes: number): { peak: () => number; stop: () => void } {
  let peak = rssOf(target.pid) || 0;
  const timer = setInterval(() => {
    const rss = rssOf(target.pid);
    if (!(rss > 0)) return;
    peak = Math.max(peak, rss);
    if (rss > capBytes && target.child.exitCode === null && target.child.signalCode === null) {
      target.exited = `killed: resident memory ${mib(rss)} MiB passed the ${mib(capBytes)} MiB cap`;
      target.child.kill('SIGKILL');
    }
  }, 100);
  return { peak: () => peak, stop: () => clearInterval(timer) };
}

export const mib = (bytes: number) => (bytes / 1048576).toFixed(0);

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}
