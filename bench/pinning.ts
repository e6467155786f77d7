/**
 * Issue 16 measures each server pinned to one core and the load generator to another. With taskset
 * (util-linux) and two CPUs or more, this process (autocannon's) moves to CPU 1, every thread of it,
 * and the servers are started on CPU 0 (bench/child.ts's `cpu`); otherwise everything runs unpinned.
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

export interface Pinning {
  /** The CPU servers are started on; undefined when unpinned. */
  server?: number;
  /** What was done, for the report. */
  note: string;
}

export function pinLoadGenerator(): Pinning {
  // The CPUs online, not this process's affinity: pinning sets that anew (a parent's does not bound it).
  if (cpus().length < 2) return { note: 'unpinned (fewer than two CPUs)' };
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  } catch {
    return { note: 'unpinned (no taskset: util-linux is not installed)' };
  }
  return { server: 0, note: 'each server pinned to CPU 0, the load generator to CPU 1 (PostgreSQL itself unpinned)' };
}
