/**
 * A bench server in a process of its own, so that the load generator does not share its event loop
 * and the server's memory is its own. The script prints one JSON line once listening (its pid and
 * URLs); anything else it says goes to stderr. The script runs in node itself (tsx as an --import
 * loader, not the tsx CLI, which would put a process between): the pid is the server's, signals
 * reach it, and `ipc: true` gives it a message channel to this process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface ChildOptions {
  /** A message channel (child.send / process.send). */
  ipc?: boolean;
  /** The child's file-descriptor soft limit (`ulimit -n`), to reach it with a bounded number of connections. */
  maxFiles?: number;
  /** Extra node flags, e.g. --expose-gc. */
  nodeFlags?: string[];
  /** The CPU to pin the child to (`taskset -c`, which execs node: the pid stays the server's). */
  cpu?: number;
}

export interface Child<Info> {
  info: Info;
  child: ChildProcess;
}

export async function startChild<Info>(script: string, args: string[], options: ChildOptions = {}): Promise<Child<Info>> {
  const pin = options.cpu === undefined ? [] : ['taskset', '-c', String(options.cpu)];
  const command = [...pin, process.execPath, ...(options.nodeFlags ?? []), '--import', 'tsx', script, ...args];
  const stdio = ['ignore', 'pipe', 'inherit', ...(options.ipc ? ['ipc' as const] : [])] as const;
  // Measured as deployed: libraries such as graphql-js check more in development mode.
  const env = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production' };
  // `exec` keeps the pid: the shell only lowers the limit, then becomes node.
  const child =
    options.maxFiles === undefined
      ? spawn(command[0], command.slice(1), { stdio: [...stdio], env })
      : spawn('/bin/sh', ['-c', `ulimit -n ${options.maxFiles} && exec "$@"`, 'sh', ...command], { stdio: [...stdio], env });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`${script} exited (code ${code}) before listening; see its stderr above`);
    }),
  ])) as [string];
  lines.close();
  child.stdout!.resume(); // whatever else it prints is not read
  return { info: JSON.parse(line) as Info, child };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child is gone. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
