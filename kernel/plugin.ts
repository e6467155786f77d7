import type { Kernel } from './kernel';

/**
 * The plugin contract, the same for built-in and third-party plugins. `register` runs for every
 * plugin in dependency order before anything starts: tap hooks, register services and drivers,
 * no I/O. `start` runs in the same order (connect, listen), `stop` in reverse.
 */
export interface Plugin<Options = Record<string, unknown>> {
  name: string;
  dependsOn?: string[];
  register(kernel: Kernel, options: Options): void | Promise<void>;
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
}

/** What a plugin module exports by default: a plugin, or a factory that makes one from its options. */
export type PluginFactory<Options = Record<string, unknown>> = (options: Options) => Plugin<Options>;
export type PluginLike<Options = Record<string, unknown>> = Plugin<Options> | PluginFactory<Options>;

export function definePlugin<Options = Record<string, unknown>>(factory: PluginFactory<Options>): PluginFactory<Options> {
  return factory;
}
