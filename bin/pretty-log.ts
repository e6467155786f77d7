/**
 * The log of `objectql dev`, for a person at a terminal: one line per entry with the local time
 * and the level in words (pino-pretty), instead of `serve`'s JSON lines. pino-pretty is loaded
 * here, on first use, so that `serve` never loads it.
 */
import type { KernelOptions } from '../server';

export async function prettyLogDestination(): Promise<NonNullable<KernelOptions['logDestination']>> {
  const { default: pretty } = await import('pino-pretty');
  return pretty({
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
    // Written at once, so the log and what `objectql dev` prints itself stay in order.
    sync: true,
  });
}
