import { asValue, createContainer, type AwilixContainer } from 'awilix';
import { isAbsolute, resolve } from 'node:path';
import { resolveConfig } from './config/load';
import type { ObjectQLConfig, ResolvedConfig } from './config/schema';
import { DatasourceManager } from './datasources';
import { InProcessPubSub, RECORD_CHANGED_CHANNEL, type PubSub } from './pubsub';
import type { DriverFactory } from './drivers';
import { Engine } from './engine/engine';
import type { DataEngine } from './engine/types';
import type { ChangeFeed } from './change-feed';
import { createHooks, type KernelHooks } from './hooks';
import { HttpHost } from './http/host';
import { createLogger, type DestinationStream, type Logger } from './logger';
import { MetadataRegistry } from './metadata/registry';
import type { Plugin, PluginLike } from './plugin';
import { orderPlugins, PluginError } from './plugin-order';
import { tapMetadataHooks } from './engine/metadata-hooks';
import { importModule, ModuleNotFoundError } from './util/import-module';
import { seedInitialData } from './engine/seed';

/**
 * What the kernel's container holds. Plugins that register services of their own add them here by
 * module augmentation: `declare module 'objectql' { interface KernelServices { x: X } }`.
 */
export interface KernelServices {
  config: ResolvedConfig;
  logger: Logger;
  hooks: KernelHooks;
  registry: MetadataRegistry;
  engine: DataEngine;
  datasources: DatasourceManager;
  http: HttpHost;
  /** In-process unless a plugin (pubsub-redis) provides another in register. */
  pubsub: PubSub;
  /**
   * The durable change feed (kernel/change-feed.ts), provided in register by the plugin keeping
   * one (events); absent otherwise: ask `kernel.has('changeFeed')` first.
   */
  changeFeed?: ChangeFeed;
}

/**
 * Loads a plugin on demand (knex-style: an unused protocol costs nothing at start-up). Its options
 * are unknown here (`never`: a plugin of any options fits); the plugin checks what the config gives it.
 */
export type PluginLoader = () => PluginLike<never>;

/**
 * The plugins a config may name by a short name, and the driver plugins a datasource's `driver`
 * names. The kernel knows none of its own: the composition root (server/, what `objectql` and the
 * CLI use) hands in the built-in ones.
 */
export interface PluginCatalog {
  /** Config name (`plugins: {rest: true}`) → the plugin. */
  plugins?: Readonly<Record<string, PluginLoader>>;
  /** Driver name (a datasource's `driver`) → the plugin that registers it (named `driver-<name>`). */
  drivers?: Readonly<Record<string, PluginLoader>>;
}

/** What a kernel is built with besides its config. */
export interface KernelOptions {
  /** Where log lines go (default stdout): a test or an application can capture them here. */
  logDestination?: DestinationStream;
  /** Fields on every log line of this kernel, telling its lines from another's in one process (`{thread: 'events-dispatch'}`). */
  logBindings?: Record<string, unknown>;
  /** Plugins and drivers known by name; anything else a config names is loaded as a module. */
  catalog?: PluginCatalog;
  /**
   * Metadata already loaded (MetadataRegistry.load of the config's folders), used instead of loading
   * them at start: `objectql dev` checks the files before it stops the running kernel, and starts
   * the next one with what it checked. Its `onChange` is the loader's to route.
   */
  registry?: MetadataRegistry;
  /**
   * False: start without serving HTTP (no port is bound, not even plugins' own): a kernel that
   * only works in the background, such as the events plugin's dispatch thread. Default true.
   */
  serve?: boolean;
  /**
   * The module whose `createKernel(config, options)` made this kernel (the composition root,
   * server/index.ts, sets it): a plugin that starts a worker thread loads it there to make a
   * sibling kernel from the same config.
   */
  factory?: string;
}

type State = 'created' | 'starting' | 'started' | 'stopping' | 'stopped';

interface Registered {
  /** Of any options (see PluginLoader); `options` are the ones it was registered with. */
  plugin: Plugin<never>;
  options: unknown;
}

export class Kernel {
  readonly config: ResolvedConfig;
  readonly hooks: KernelHooks;
  readonly logger: Logger;
  readonly container: AwilixContainer<KernelServices>;
  private readonly plugins: Registered[] = [];
  private readonly drivers = new Map<string, DriverFactory>();
  private readonly catalog: PluginCatalog;
  private readonly preloadedRegistry: MetadataRegistry | undefined;
  /** Whether start binds the HTTP server (KernelOptions.serve). */
  readonly serves: boolean;
  /** KernelOptions.factory: undefined for a kernel made with `new Kernel` directly. */
  readonly factory: string | undefined;
  private started: Registered[] = [];
  private state: State = 'created';

  constructor(config: ObjectQLConfig | ResolvedConfig = {}, options: KernelOptions = {}) {
    // Resolving is idempotent, so an already resolved config (from loadConfigFile) passes through.
    this.config = resolveConfig(config);
    this.catalog = options.catalog ?? {};
    this.preloadedRegistry = options.registry;
    this.serves = options.serve ?? true;
    this.factory = options.factory;
    this.hooks = createHooks();
    this.logger = createLogger(this.config.logLevel, options.logDestination, options.logBindings);
    this.container = createContainer<KernelServices>({ strict: true });
    this.container.register({
      config: asValue(this.config),
      logger: asValue(this.logger),
      hooks: asValue(this.hooks),
      datasources: asValue(new DatasourceManager(this.drivers, this.logger, this.config.baseDir, this.config.tracing)),
      http: asValue(new HttpHost(this)),
      pubsub: asValue(new InProcessPubSub()),
    });
  }

  get registry(): MetadataRegistry {
    return this.resolve('registry');
  }
  get engine(): DataEngine {
    return this.resolve('engine');
  }
  get http(): HttpHost {
    return this.resolve('http');
  }
  get isStarted(): boolean {
    return this.state === 'started';
  }

  resolve<K extends keyof KernelServices>(name: K): KernelServices[K] {
    if (!this.container.hasRegistration(name)) {
      throw new PluginError(
        `Service '${String(name)}' is not available${this.state === 'created' ? ' before the kernel has started' : ''}`,
      );
    }
    return this.container.resolve(name);
  }

  /** Whether a service is registered (an optional one, such as `changeFeed`, may not be). */
  has(name: keyof KernelServices): boolean {
    return this.container.hasRegistration(name);
  }

  /** Registers a service in this kernel's container, for other plugins to resolve. */
  provide<K extends keyof KernelServices>(name: K, value: KernelServices[K]): void {
    this.container.register(name, asValue(value));
  }

  /** Adds a plugin. Refused once the kernel has started, and for a second plugin of the same name. */
  use<O>(pluginLike: PluginLike<O>, options?: O): this {
    return this.add(pluginLike, options);
  }

  /** `source`: where a configured plugin came from, for the message when it is none. */
  private add<O>(pluginLike: PluginLike<O>, options: O | undefined, source?: string): this {
    if (this.state !== 'created') {
      throw new PluginError(`Cannot register a plugin after the kernel has started (${describe(pluginLike)})`);
    }
    const opts = (options ?? {}) as O;
    const plugin = typeof pluginLike === 'function' ? pluginLike(opts) : pluginLike;
    if (!plugin || typeof plugin !== 'object' || typeof plugin.name !== 'string' || !plugin.name || typeof plugin.register !== 'function') {
      throw new PluginError(notAPlugin(pluginLike, plugin, source));
    }
    if (this.plugins.some((p) => p.plugin.name === plugin.name)) {
      throw new PluginError(`A plugin named '${plugin.name}' is already registered`);
    }
    this.plugins.push({ plugin, options: opts });
    return this;
  }

  /** Makes a storage driver available to datasources; called by driver plugins in register. */
  registerDriver(name: string, factory: DriverFactory): void {
    if (this.drivers.has(name)) throw new PluginError(`A driver named '${name}' is already registered`);
    this.drivers.set(name, factory);
  }

  /** Registers the plugins the config names: by catalog name, package name or path. */
  async useConfiguredPlugins(): Promise<this> {
    for (const [name, options] of Object.entries(this.config.plugins)) {
      if (options === false) continue;
      const pluginLike = await this.loadPlugin(name);
      // The config's options for it, as they are: the plugin checks them (see PluginLoader).
      this.add(pluginLike, (options === true ? {} : options) as never, this.pluginSource(name));
    }
    return this;
  }

  async start(): Promise<this> {
    if (this.state !== 'created') throw new PluginError(`Kernel cannot start: it is ${this.state}`);
    this.useCatalogDrivers();
    this.state = 'starting';
    try {
      const ordered = orderPlugins(this.plugins.map((r) => ({ ...r, name: r.plugin.name, dependsOn: r.plugin.dependsOn })));
      for (const r of ordered) await r.plugin.register(this, r.options as never);
      await this.hooks.configure.promise(this.config);

      const registry =
        this.preloadedRegistry ??
        (await MetadataRegistry.load(this.config.metadata, {
          logger: this.logger,
          customTypes: this.config.metadataTypes,
          onChange: (change) => this.hooks.metadataChanged.call(change),
        }));
      this.provide('registry', registry);
      const datasources = this.resolve('datasources');
      await datasources.open(this.config.datasources, registry.objects());
      const engine = new Engine({ registry, datasources, hooks: this.hooks, config: this.config, logger: this.logger });
      this.provide('engine', engine);
      tapMetadataHooks(this.hooks, registry);
      const pubsub = this.resolve('pubsub');
      // Every committed change goes out on the pubsub, so subscribers on every instance hear it.
      this.hooks.recordChanged.tapPromise('kernel:pubsub', (change) => pubsub.publish(RECORD_CHANGED_CHANNEL, change));
      await seedInitialData(engine, registry, this.logger);

      for (const r of ordered) {
        await r.plugin.start?.();
        this.started.push(r);
      }
      await this.hooks.start.promise();
      if (this.serves) await this.http.listen();
      this.state = 'started';
      await this.hooks.ready.promise();
      this.logger.info({ url: this.serves ? this.http.url : undefined, plugins: ordered.map((r) => r.plugin.name) }, 'ObjectQL started');
      return this;
    } catch (err) {
      await this.stop().catch((stopErr) => this.logger.error({ err: stopErr }, 'error while stopping after a failed start'));
      throw err;
    }
  }

  /** Drains HTTP, stops plugins in reverse order and closes every datasource. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.state === 'stopping' || this.state === 'stopped') return;
    this.state = 'stopping';
    const errors: unknown[] = [];
    const attempt = async (what: string, fn: () => unknown) => {
      try {
        await fn();
      } catch (err) {
        errors.push(err);
        this.logger.error({ err }, `error while stopping ${what}`);
      }
    };
    await attempt('http', () => this.http.close());
    await attempt('stop hooks', () => this.hooks.stop.promise());
    for (const r of [...this.started].reverse()) await attempt(`plugin '${r.plugin.name}'`, () => r.plugin.stop?.());
    this.started = [];
    await attempt('datasources', () => this.resolve('datasources').close());
    await attempt('pubsub', () => this.resolve('pubsub').close());
    this.state = 'stopped';
    if (errors.length) throw errors[0];
  }

  /** Adds the catalog's driver plugin of every configured driver that no registered plugin provides. */
  private useCatalogDrivers(): void {
    const needed = new Set(Object.values(this.config.datasources).map((d) => d.driver));
    for (const driver of needed) {
      const loader = this.catalog.drivers?.[driver];
      // Unknown here: a third-party driver plugin registers it; DatasourceManager names what is missing.
      if (loader && !this.plugins.some((p) => p.plugin.name === `driver-${driver}`)) this.use(loader());
    }
  }

  /** How the config named a plugin and what that is: `plugins['./audit.ts'] in the config (/srv/app/audit.ts)`. */
  private pluginSource(name: string): string {
    const what = Object.prototype.hasOwnProperty.call(this.catalog.plugins ?? {}, name)
      ? 'a built-in plugin'
      : isModulePath(name)
        ? resolve(this.config.baseDir, name)
        : `package ${name}`;
    return `plugins['${name}'] in the config (${what})`;
  }

  private async loadPlugin(name: string): Promise<PluginLike<never>> {
    const known = this.catalog.plugins ?? {};
    if (Object.prototype.hasOwnProperty.call(known, name)) return known[name]();
    try {
      return await importModule<PluginLike<never>>(name, this.config.baseDir);
    } catch (err) {
      if (err instanceof ModuleNotFoundError) {
        const names = Object.keys(known);
        throw new PluginError(
          `Plugin '${name}' not found: it is neither ${names.length ? `a built-in plugin (${names.join(', ')})` : 'a plugin of this kernel'} nor an installed package`,
        );
      }
      throw new PluginError(`Plugin '${name}' could not be loaded: ${(err as Error).message}`);
    }
  }
}

function describe(p: unknown): string {
  if (p && typeof p === 'object' && 'name' in p) return `plugin '${String(p.name)}'`;
  if (typeof p === 'function') return `factory ${p.name || '(anonymous)'}`;
  let json: string | undefined;
  try {
    json = JSON.stringify(p);
  } catch {
    // circular (or holding a BigInt): String() says what it is
  }
  const text = json ?? String(p);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** What a plugin is, and where it came from when the config named it. */
function notAPlugin(pluginLike: unknown, made: unknown, source: string | undefined): string {
  const what = typeof pluginLike === 'function' ? `${describe(pluginLike)}, which returned ${describe(made)}` : describe(pluginLike);
  if (!source) return `Not a plugin: ${what} must be (or return) an object with a name and a register function`;
  return (
    `Not a plugin: ${source} exports ${what}. A plugin module exports (as its default export or module.exports) ` +
    'an object with a name and a register function, {name, register}, or a factory that returns one (definePlugin((options) => ({name, register})))'
  );
}

function isModulePath(name: string): boolean {
  return name.startsWith('.') || isAbsolute(name);
}
