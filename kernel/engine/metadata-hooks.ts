import type { KernelHooks } from '../hooks';
import type { MetadataRegistry } from '../metadata/registry';
import type { HookEvent } from '../metadata/types';
import type { HookContext } from './types';

/** Taps the handlers of every `<object>.hook.(ts|js)` file onto the kernel's data hooks. */
export function tapMetadataHooks(hooks: KernelHooks, registry: MetadataRegistry): void {
  for (const mod of registry.hookModules()) {
    for (const [event, handler] of Object.entries(mod.handlers) as Array<[HookEvent, ((ctx: HookContext) => unknown) | undefined]>) {
      if (!handler) continue;
      hooks[event].for(mod.object).tapPromise(mod.source, async (ctx: HookContext) => {
        await handler(ctx);
      });
    }
  }
}
