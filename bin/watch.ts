/**
 * Watches what `objectql dev` reloads from: the config file and every metadata folder with its
 * subfolders (YAML, code and JSON files; node_modules and dot folders and files are skipped, as
 * the metadata loader skips them). A burst of changes (an editor's save, a checkout) comes out as
 * one call, once nothing has changed for `quietMs`.
 *
 * Every folder gets a watcher of its own, rather than one `fs.watch(root, {recursive: true})`: on
 * Linux, Node 20 builds that one from a watcher per file, which loses a file that an editor saves
 * by writing a copy and renaming it over the original (the watcher stays on the replaced file). A
 * folder's watcher sees every name that changes in it.
 */
import { watch, readdirSync, realpathSync, statSync, type FSWatcher } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';

export interface WatchTargets {
  configFile: string;
  /** Absolute metadata folders. */
  folders: readonly string[];
}

export interface WatchEvents {
  /** The files (or new and removed folders) that changed, once a burst is over. */
  changed: (paths: string[]) => void;
  /** A folder could not be watched (it went away, or the system's watch limit is reached). */
  failed: (folder: string, err: Error) => void;
}

export interface Watcher {
  close(): void;
}

const WATCHED_FILE = /\.(ya?ml|json|[cm]?[jt]s)$/i;

export function watchSources(targets: WatchTargets, events: WatchEvents, quietMs = 200): Watcher {
  const burst = new Burst(events.changed, quietMs);
  const folders = new FolderWatchers(burst, events.failed);
  // The config's folder, not the file: a watcher of the file would lose it at the first save by rename.
  const configName = basename(targets.configFile);
  const configWatcher = watch(dirname(targets.configFile), (_event, name) => {
    if (name === configName) burst.add(targets.configFile);
  });
  configWatcher.on('error', (err) => events.failed(dirname(targets.configFile), err));
  for (const folder of targets.folders) folders.add(folder);
  return {
    close() {
      burst.cancel();
      configWatcher.close();
      folders.closeAll();
    },
  };
}

/** Collects changed paths until `quietMs` pass without another. */
class Burst {
  private readonly paths = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly flush: (paths: string[]) => void,
    private readonly quietMs: number,
  ) {}

  add(path: string): void {
    this.paths.add(path);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const paths = [...this.paths];
      this.paths.clear();
      this.flush(paths);
    }, this.quietMs);
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.paths.clear();
  }
}

/** One watcher per folder of a tree, following folders as they are created and removed. */
class FolderWatchers {
  private readonly watchers = new Map<string, FSWatcher>();
  /** Real paths of the watched folders: a symbolic link back up the tree is not followed twice. */
  private readonly real = new Map<string, string>();

  constructor(
    private readonly burst: Burst,
    private readonly failed: (folder: string, err: Error) => void,
  ) {}

  add(folder: string): void {
    if (this.watchers.has(folder)) return;
    let real: string;
    let watcher: FSWatcher;
    try {
      real = realpathSync(folder);
      if ([...this.real.values()].includes(real)) return;
      watcher = watch(folder, (_event, name) => {
        if (name) this.changed(folder, name);
      });
    } catch (err) {
      this.failed(folder, err as Error);
      return;
    }
    watcher.on('error', (err) => {
      this.remove(folder);
      this.failed(folder, err);
    });
    this.watchers.set(folder, watcher);
    this.real.set(folder, real);
    let entries: string[];
    try {
      entries = readdirSync(folder, { withFileTypes: true })
        .filter((e) => !skipped(e.name) && (e.isDirectory() || e.isSymbolicLink()))
        .map((e) => e.name);
    } catch {
      return; // removed meanwhile: its watcher reports it
    }
    for (const name of entries) if (isFolder(join(folder, name))) this.add(join(folder, name));
  }

  closeAll(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.real.clear();
  }

  private changed(folder: string, name: string): void {
    if (skipped(name)) return;
    const path = join(folder, name);
    if (this.watchers.has(path)) {
      if (!isFolder(path)) {
        this.remove(path);
        this.burst.add(path);
      }
    } else if (isFolder(path)) {
      // Files moved or copied in with a new folder raise no event of their own.
      this.add(path);
      this.burst.add(path);
    } else if (WATCHED_FILE.test(name)) {
      this.burst.add(path);
    }
  }

  /** Stops watching `folder` and every folder below it. */
  private remove(folder: string): void {
    for (const [path, watcher] of this.watchers) {
      if (path === folder || path.startsWith(folder + sep)) {
        watcher.close();
        this.watchers.delete(path);
        this.real.delete(path);
      }
    }
  }
}

function skipped(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
