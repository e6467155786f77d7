/**
 * CPU time of processes from /proc (Linux): user + system, every thread, so far, in µs. The benches
 * read it before and after a load to give CPU per request, steadier than requests/s on a noisy
 * machine. Elsewhere (no /proc) undefined.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times. */
const CLK_TCK = process.platform === 'linux' ? Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100 : 100;

function statCpu(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLK_TCK;
}

/** One process's CPU time so far, in µs. */
export function cpuTime(pid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  return statCpu(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * The CPU time so far of a process's main thread alone (the one running its JavaScript event loop;
 * not worker threads, nor V8's and libuv's helpers), in µs.
 */
export function mainThreadCpuTime(pid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  return statCpu(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
}

/** The CPU time so far of every process whose command is `name` (e.g. the local PostgreSQL's `postgres` processes), in µs. */
export function cpuTimeOf(name: string): number | undefined {
  if (process.platform !== 'linux') return undefined;
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === name) total += statCpu(stat);
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}
