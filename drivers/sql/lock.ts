import { Mutex } from 'async-mutex';

export { Mutex };

/**
 * The write lock of one SQLite file, shared by every datasource of this process that opens it.
 * SQLite has one writer per file and better-sqlite3 waits for a busy file synchronously (the
 * event loop stops for busy_timeout): two datasources (two kernels) on one file must therefore
 * queue their writes here rather than in SQLite. This is the only process-wide state of the driver,
 * and it mirrors a process-wide resource (the file); entries go away with their last user.
 */
const fileLocks = new Map<string, { mutex: Mutex; users: number }>();

export interface FileLock {
  readonly mutex: Mutex;
  release(): void;
}

export function acquireFileLock(path: string): FileLock {
  let entry = fileLocks.get(path);
  if (!entry) {
    entry = { mutex: new Mutex(), users: 0 };
    fileLocks.set(path, entry);
  }
  entry.users += 1;
  const held = entry;
  let released = false;
  return {
    mutex: held.mutex,
    release() {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users === 0 && fileLocks.get(path) === held) fileLocks.delete(path);
    },
  };
}
