/**
 * The `objectql` package: the kernel's face (kernel/index.ts) plus the built-in plugins and
 * drivers by name. This is the composition root: the kernel knows no plugin, and this module is
 * the one place that puts the two together, for the command line and for applications.
 */
import { Kernel, type KernelOptions, type ObjectQLConfig, type ResolvedConfig } from '../kernel';
import { BUILTINS } from './builtins';

export * from '../kernel';
export { BUILTINS } from './builtins';

/**
 * A kernel from a config object, with the plugins the config names registered (built-in ones by
 * name, others by package name or path) and not yet started: `use` more, then `await kernel.start()`.
 */
export async function createKernel(config: ObjectQLConfig | ResolvedConfig = {}, options: KernelOptions = {}): Promise<Kernel> {
  const kernel = new Kernel(config, { factory: __filename, ...options, catalog: options.catalog ?? BUILTINS });
  return kernel.useConfiguredPlugins();
}
