/**
 * SQLite's write lock across threads (drivers/sql/lock.ts): the main thread and a worker thread
 * holding the lock of one file take turns (never both inside), neither starves the other, and a
 * worker that ends holding its turn stops nobody for long.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { acquireFileLock, type FileLock } from '../../../drivers/sql/lock';
import { tempDir } from './helpers';

/** A worker running `body` (a function's source) with the lock of `file`, under tsx like the tests. */
function lockWorker(file: string, shared: SharedArrayBuffer, body: string): Worker {
  const lockModule = require.resolve('../../../drivers/sql/lock');
  const code = `
    require(${JSON.stringify(require.resolve('tsx/cjs'))});
    const { parentPort, workerData } = require('node:worker_threads');
    const { acquireFileLock } = require(${JSON.stringify(lockModule)});
    const held = acquireFileLock(workerData.file);
    const flags = new Int32Array(workerData.shared);
    (${body})(held.lock, flags, parentPort).then(() => { held.release(); parentPort.postMessage('done'); });
  `;
  return new Worker(code, { eval: true, workerData: { file, shared } });
}

describe('drivers/sql: the SQLite write lock across threads', function () {
  this.timeout(20_000);
  let dir: ReturnType<typeof tempDir>;
  let held: FileLock | undefined;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => {
    held?.release();
    held = undefined;
    dir.remove();
  });

  it('two threads take turns, each getting in while the other keeps asking', async () => {
    const file = join(dir.dir, 'turns.sqlite');
    // Opened here first: the worker, started after, shares this thread's buffer.
    const lock = (held = acquireFileLock(file)).lock;
    // [0] inside (1 while a section runs), [1] sections that found someone inside, [2] sections so
    // far, [3...] who ran each section, in order (1 the main thread, 2 the worker).
    const shared = new SharedArrayBuffer(4 * 203);
    const flags = new Int32Array(shared);
    const section = async () => {
      if (Atomics.exchange(flags, 0, 1) !== 0) Atomics.add(flags, 1, 1);
      await new Promise((r) => setTimeout(r, 1));
      Atomics.store(flags, 3 + Atomics.add(flags, 2, 1), 1);
      Atomics.store(flags, 0, 0);
    };
    const worker = lockWorker(
      file,
      shared,
      `async (lock, flags, port) => {
        port.postMessage('ready');
        await new Promise((go) => port.once('message', go));
        for (let i = 0; i < 100; i++) await lock.runExclusive(async () => {
          if (Atomics.exchange(flags, 0, 1) !== 0) Atomics.add(flags, 1, 1);
          await new Promise((r) => setTimeout(r, 1));
          Atomics.store(flags, 3 + Atomics.add(flags, 2, 1), 2);
          Atomics.store(flags, 0, 0);
        });
      }`,
    );
    const said = (what: string) =>
      new Promise<void>((resolve, reject) => {
        worker.on('message', (m) => m === what && resolve());
        worker.once('error', reject);
      });
    const workerDone = said('done');
    await said('ready');
    worker.postMessage('go');
    // The main thread asks without pause: the worker must still get its turns meanwhile.
    const mainDone = (async () => {
      for (let i = 0; i < 100; i++) await lock.runExclusive(section);
    })();
    await Promise.all([mainDone, workerDone]);
    await worker.terminate();
    expect(Atomics.load(flags, 1), 'sections that overlapped').to.equal(0);
    const order = Array.from(flags.subarray(3, 203)).join('');
    expect(order.replace(/1/g, '')).to.have.length(100);
    // First come, first served: once both ask, they alternate. Between the worker's first section
    // and its last, the main thread never ran more than a few in a row (a thread between two of its
    // sections is not waiting yet, so two in a row happen).
    const both = order.slice(order.indexOf('2'), order.lastIndexOf('2'));
    const longest = Math.max(...both.split('2').map((run) => run.length));
    expect(longest, `the main thread's longest run while the worker asked: ${order}`).to.be.at.most(3);
  });

  it('a worker that ends holding its turn holds up the other thread for a bounded time only', async () => {
    const file = join(dir.dir, 'dead.sqlite');
    held = acquireFileLock(file);
    const worker = lockWorker(
      file,
      new SharedArrayBuffer(4),
      `(lock, flags, port) => lock.runExclusive(() => { port.postMessage('holding'); return new Promise(() => {}); })`,
    );
    await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    // The turn's owner beats no more: after STALE_MS its turn is passed.
    expect(await held.lock.runExclusive(() => Promise.resolve('ran'))).to.equal('ran');
  });

  it('within one thread, two datasources on one file share one queue', async () => {
    const file = join(dir.dir, 'one.sqlite');
    held = acquireFileLock(file);
    const other = acquireFileLock(file);
    try {
      expect(other.lock).to.equal(held.lock);
      const order: string[] = [];
      await Promise.all([
        held.lock.runExclusive(async () => {
          order.push('a in');
          await new Promise((r) => setTimeout(r, 5));
          order.push('a out');
        }),
        other.lock.runExclusive(async () => {
          order.push('b in');
          await Promise.resolve();
          order.push('b out');
        }),
      ]);
      expect(order).to.deep.equal(['a in', 'a out', 'b in', 'b out']);
    } finally {
      other.release();
    }
  });
});
