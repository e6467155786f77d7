/**
 * `objectql dev`: serves like `objectql serve`, with a log for people, and reloads in the same
 * process when the config file or a metadata file changes (docs/dev-mode.md). A reload first loads
 * the new config and metadata beside the running server, which it does not touch; only when they
 * load is the running kernel stopped and a new one started on the same port with them. A broken
 * file leaves the last good server running; a new kernel that does not start gives way to the last
 * good config and metadata.
 */
import { relative, resolve } from 'node:path';
import { ConfigError, createKernel, loadConfigFile, type Kernel, type KernelOptions, type ResolvedConfig } from '../server';
import { createLogger } from '../kernel/logger';
import { MetadataRegistry } from '../kernel/metadata/registry';
import { startupBanner, wantsBanner } from './banner';
import { prettyLogDestination } from './pretty-log';
import { forgetModulesIn } from './reloadable-code';
import { explainStartupFailure } from './startup-failure';
import { watchSources, type Watcher } from './watch';

export interface DevOptions {
  configFile: string;
  /** --port or PORT, else the config's; every reload keeps the port the first start listened on. */
  port?: number;
}

/** Serves `configFile` until SIGINT or SIGTERM; resolves with 1 when the first start fails. */
export async function dev(options: DevOptions): Promise<number> {
  process.env.NODE_ENV ??= 'development';
  const configFile = resolve(options.configFile);
  const server = new DevServer(configFile, options.port, { logDestination: await prettyLogDestination() });
  // Handlers go in before the first start, so a signal during it still ends in a clean stop.
  const stop = (signal: string) => void server.shutdown(signal).then((code) => process.exit(code));
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  const kernel = await server.start();
  if (!kernel) return 1;
  if (wantsBanner({ env: process.env.NODE_ENV, stdoutIsTTY: process.stdout.isTTY === true })) {
    process.stdout.write(startupBanner(kernel, { development: process.env.NODE_ENV === 'development', configFile }));
  }
  return 0;
}

/** A config and its metadata, loaded and checked. */
interface Loaded {
  config: ResolvedConfig;
  registry: MetadataRegistry;
}

class DevServer {
  private kernel: Kernel | undefined;
  private lastGood: Loaded | undefined;
  private watcher: Watcher | undefined;
  /** The metadata folders the watcher watches, to know when a new config needs a new watcher. */
  private watchedFolders = '';
  /** The first start or the reload under way: one at a time, and shutdown waits for it. */
  private work: Promise<unknown> = Promise.resolve();
  /** Paths changed since the reload under way began: the next reload, already scheduled. */
  private queued: Set<string> | undefined;
  private stopping = false;

  constructor(
    private readonly configFile: string,
    private port: number | undefined,
    private readonly kernelOptions: KernelOptions,
  ) {}

  /** The first start; undefined (the reason printed as `objectql serve` prints it) when it fails. */
  start(): Promise<Kernel | undefined> {
    const started = this.firstStart();
    this.work = started;
    return started;
  }

  async shutdown(signal: string): Promise<number> {
    this.stopping = true;
    this.watcher?.close();
    await this.work;
    const kernel = this.kernel;
    if (!kernel) return 0;
    kernel.logger.info({ signal }, 'stopping');
    try {
      await kernel.stop();
      return 0;
    } catch (err) {
      kernel.logger.error({ err }, 'error while stopping');
      return 1;
    }
  }

  private async firstStart(): Promise<Kernel | undefined> {
    let loaded: Loaded | undefined;
    try {
      loaded = await this.load();
      const kernel = await this.startKernel(loaded);
      // Later kernels listen where this one does, also when it was given port 0.
      this.port = Number(new URL(kernel.http.url).port);
      this.lastGood = loaded;
      const { metadata } = loaded.config;
      this.watch(metadata);
      this.say(`watching ${shortPath(this.configFile)} and ${metadata.map(shortPath).join(', ')}; a change reloads the server`);
      return kernel;
    } catch (err) {
      const explained = explainStartupFailure(err, { config: loaded?.config, configFile: this.configFile });
      process.stderr.write(`objectql: ${explained ?? (err as Error).stack ?? String(err)}\n`);
      return undefined;
    }
  }

  /** Schedules a reload for `paths`; changes during a reload join the one scheduled after it. */
  private request(paths: string[]): void {
    if (this.stopping) return;
    if (this.queued) {
      for (const path of paths) this.queued.add(path);
      return;
    }
    const queued = new Set(paths);
    this.queued = queued;
    this.work = this.work
      .then(() => {
        this.queued = undefined;
        return this.reload([...queued]);
      })
      .catch((err: unknown) => this.problem(`reload failed: ${(err as Error).stack ?? String(err)}`));
  }

  private async reload(paths: string[]): Promise<void> {
    if (this.stopping) return;
    const began = performance.now();
    let loaded: Loaded;
    try {
      loaded = await this.load();
    } catch (err) {
      const what = err instanceof ConfigError ? 'config' : 'metadata';
      this.problem(`kept the last good ${what}: ${explainStartupFailure(err, { configFile: this.configFile }) ?? String(err)}`);
      return;
    }
    this.watch(loaded.config.metadata);
    if (this.stopping) return;
    await this.stopKernel();
    try {
      await this.startKernel(loaded);
      this.lastGood = loaded;
      const ms = Math.round(performance.now() - began);
      const objects = loaded.registry.objects().length;
      this.say(`reloaded: ${objects} ${objects === 1 ? 'object' : 'objects'}, in ${ms} ms (${describeChanges(paths)})`);
    } catch (err) {
      this.problem(`the new server did not start, so the last good one starts again. Why: ${this.explain(err, loaded.config)}`);
      await this.restartLastGood();
    }
  }

  /**
   * Loads the config file and its metadata, beside the running kernel and without touching it, so
   * that a mistake is found before anything is stopped. Throws ConfigError or MetadataError.
   */
  private async load(): Promise<Loaded> {
    const config = await loadConfigFile(this.configFile);
    forgetModulesIn(config.metadata);
    const registry = await MetadataRegistry.load(config.metadata, {
      logger: createLogger(config.logLevel, this.kernelOptions.logDestination),
      customTypes: config.metadataTypes,
      // The metadata API's changes at run time, told to whichever kernel serves this metadata now.
      onChange: (change) => this.kernel?.hooks.metadataChanged.call(change),
    });
    return { config, registry };
  }

  private async restartLastGood(): Promise<void> {
    if (!this.lastGood) return;
    try {
      await this.startKernel(this.lastGood);
      this.say('serving the last good config and metadata again');
    } catch (err) {
      const why = this.explain(err, this.lastGood.config);
      this.problem(`the last good config and metadata did not start either; no server until the next change. Why: ${why}`);
    }
  }

  private async startKernel({ config, registry }: Loaded): Promise<Kernel> {
    const port = this.port !== undefined ? { port: this.port } : {};
    const kernel = await createKernel({ ...config, ...port }, { ...this.kernelOptions, registry });
    await kernel.start();
    this.kernel = kernel;
    return kernel;
  }

  private async stopKernel(): Promise<void> {
    const kernel = this.kernel;
    this.kernel = undefined;
    // The kernel logs what went wrong while stopping; the new one starts all the same.
    await kernel?.stop().catch(() => undefined);
  }

  private watch(metadata: string[]): void {
    const folders = JSON.stringify(metadata);
    if (this.watcher && folders === this.watchedFolders) return;
    this.watcher?.close();
    this.watchedFolders = folders;
    this.watcher = watchSources(
      { configFile: this.configFile, folders: metadata },
      {
        changed: (paths) => this.request(paths),
        failed: (folder, err) => this.problem(`cannot watch ${shortPath(folder)}: ${err.message}`),
      },
    );
  }

  private explain(err: unknown, config: ResolvedConfig): string {
    return explainStartupFailure(err, { config, configFile: this.configFile }) ?? (err as Error).stack ?? String(err);
  }

  private say(line: string): void {
    process.stdout.write(`objectql dev: ${line}\n`);
  }

  private problem(text: string): void {
    process.stderr.write(`objectql dev: ${text}\n`);
  }
}

function shortPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
}

function describeChanges(paths: string[]): string {
  const shown = paths.slice(0, 3).map(shortPath).join(', ');
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}
