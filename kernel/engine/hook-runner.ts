import type { Logger } from 'pino';
import { ObjectQLError, toObjectQLError } from '../errors';
import { HookError, type KernelHooks } from '../hooks';
import type { HookContext } from './types';

/**
 * Runs one data event: the taps on every object ('*') first, then the object's own, in sequence.
 * An error carrying one of the spec's codes (docs/spec.md, "Errors") aborts with that code; anything else is reported as
 * INTERNAL_ERROR naming the hook, with its details in the log only.
 */
export async function runDataHooks(hooks: KernelHooks, ctx: HookContext, logger: Logger): Promise<void> {
  const map = hooks[ctx.event];
  for (const key of ['*', ctx.object]) {
    const hook = map.get(key);
    if (!hook?.isUsed()) continue;
    try {
      await hook.promise(ctx);
    } catch (err) {
      const tap = err instanceof HookError ? err.tap : 'unknown';
      const cause = err instanceof HookError ? err.cause : err;
      throw toObjectQLError(cause, () => {
        (ctx.request.logger ?? logger).error({ err: cause, hook: ctx.event, object: ctx.object, tap }, 'hook failed');
        return new ObjectQLError('INTERNAL_ERROR', `Hook ${ctx.event} of '${ctx.object}' failed (${tap})`);
      });
    }
  }
}
