import { ObjectQLError } from '../errors';
import type { KernelHooks } from '../hooks';
import type { Logger } from '../logger';
import { inSpan } from '../tracing';

/**
 * Runs one engine operation, in a span of its own when `tracing` is on (kernel/tracing.ts), and
 * reports how it settled to the `operation` hook (kernel/outcomes.ts). Neither on, it only runs it.
 */
export function observed<T>(
  hooks: KernelHooks,
  logger: Logger,
  tracing: boolean,
  object: string,
  operation: string,
  run: () => Promise<T>,
): Promise<T> {
  const traced = tracing
    ? () => inSpan(`objectql.${operation} ${object}`, { 'objectql.object': object, 'objectql.operation': operation }, run)
    : run;
  return reported(hooks, logger, object, operation, traced);
}

function reported<T>(hooks: KernelHooks, logger: Logger, object: string, operation: string, run: () => Promise<T>): Promise<T> {
  if (!hooks.operation.isUsed()) return run();
  const start = process.hrtime.bigint();
  const settle = (outcome: string) => {
    try {
      hooks.operation.call({ object, operation, outcome, seconds: Number(process.hrtime.bigint() - start) / 1e9 });
    } catch (err) {
      logger.error({ err }, 'an observer of engine operations failed');
    }
  };
  // A function that throws before its first await settles as a rejection too.
  const running = (async () => run())();
  return running.then(
    (result) => {
      settle('ok');
      return result;
    },
    (err: unknown) => {
      settle(err instanceof ObjectQLError ? err.code : 'INTERNAL_ERROR');
      throw err;
    },
  );
}
