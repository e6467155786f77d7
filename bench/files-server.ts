/**
 * One server of the files bench (bench/files.ts), in its own process:
 * `node --import tsx bench/files-server.ts objectql|baseline <dir>`, the API key in the
 * BENCH_FILES_API_KEY environment variable. Prints one JSON line once listening: {pid, url, ...}.
 *
 * - objectql: the kernel with the auth (that one API key, a manager), rest and files plugins on
 *   the bench metadata (bench/metadata-files/), a SQLite file `<dir>/objectql.sqlite`, local file
 *   storage in `<dir>/uploads` (upload records in its `.objectql-meta`). Also answers probes on
 *   stdin: one JSON line `{fileId, unattachedId, recordId, iterations}` → one JSON line of
 *   in-process timings of the steps of a download's access check, made with the plugin's own
 *   code on the same files and records (see `probe` below).
 * - baseline: bench/files-baseline.ts on `<dir>/files`, `<dir>/thumbs` and `<dir>/uploads`.
 *
 * Either stops on SIGTERM, SIGINT, or when its stdin closes (the bench process went away).
 */
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { createKernel, type Kernel, type RequestContext } from '../server';
import { mayRead } from '../plugins/files/access';
import { FileRecordStore } from '../plugins/files/file-records';
import { parseOptions } from '../plugins/files/options';
import type { FilesRuntime } from '../plugins/files/runtime';
import { LocalStorage } from '../plugins/files/storage/local';
import { startFilesBaseline } from './files-baseline';

/** Who the API key stands for: a manager (admins skip the access check the bench measures). */
const BENCH_USER = { id: 'bench-manager', roles: ['manager'] };
const BENCH_OBJECT = 'bench_doc';
const BENCH_FIELD = 'attachment';

interface ProbeRequest {
  fileId: string;
  unattachedId: string;
  recordId: string;
  iterations: number;
  /** Calls in flight at a time in the second pass (the bench's connections). */
  concurrency: number;
}

interface ProbeResult {
  step: string;
  /** One call at a time. */
  wallUs: number;
  cpuUs: number;
  /** `concurrency` calls in flight. */
  concurrentWallUs: number;
  concurrentCpuUs: number;
}

async function main(mode: string, dir: string) {
  const key = process.env.BENCH_FILES_API_KEY;
  if (!key) throw new Error('BENCH_FILES_API_KEY is not set');
  const keyHash = createHash('sha256').update(key).digest();
  let stop: () => Promise<void>;
  let info: Record<string, unknown>;
  let kernel: Kernel | undefined;

  if (mode === 'baseline') {
    const server = await startFilesBaseline({
      filesDir: join(dir, 'files'),
      thumbsDir: join(dir, 'thumbs'),
      uploadDir: join(dir, 'uploads'),
      keyHash,
    });
    stop = () => server.close();
    info = { url: server.url };
  } else if (mode === 'objectql') {
    const k = await createKernel({
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      metadata: [resolve(__dirname, 'metadata-files')],
      datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: join(dir, 'objectql.sqlite') } } },
      plugins: {
        auth: { apiKeys: [{ keyHash: `sha256:${keyHash.toString('hex')}`, user: BENCH_USER }] },
        rest: true,
        files: { storage: { type: 'local', baseDir: join(dir, 'uploads') }, orphanTtl: 0 },
      },
    });
    await k.start();
    kernel = k;
    stop = () => k.stop();
    const { files, data } = k.config.routes;
    info = { url: k.http.url, files: k.http.url + files, data: k.http.url + data };
  } else {
    throw new Error(`unknown mode '${mode}' (objectql or baseline)`);
  }

  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  const input = createInterface({ input: process.stdin });
  input.on('close', shutdown);
  input.on('line', (line) => {
    if (!kernel) return;
    probe(kernel, join(dir, 'uploads'), JSON.parse(line) as ProbeRequest).then(
      (result) => process.stdout.write(`${JSON.stringify({ probe: result })}\n`),
      (err) => process.stdout.write(`${JSON.stringify({ probeError: String((err as Error).stack ?? err) })}\n`),
    );
  });
  process.stdout.write(`${JSON.stringify({ pid: process.pid, ...info })}\n`);
}

/**
 * The steps of a download's access check (plugins/files/stored-file.ts `locate`), one at a time
 * in this process, with the plugin's own classes on the same files: wall time and CPU time
 * (process.cpuUsage: every thread, libuv's pool included) per call, after a warm-up.
 */
async function probe(kernel: Kernel, baseDir: string, req: ProbeRequest): Promise<ProbeResult[]> {
  const storage = new LocalStorage({ baseDir, baseUrl: kernel.config.routes.files });
  const records = new FileRecordStore(join(baseDir, '.objectql-meta'));
  const rt: FilesRuntime = {
    kernel,
    storage,
    records,
    settings: parseOptions({ storage: { type: 'local', baseDir } }),
    apiBase: kernel.config.routes.files,
  };
  const ctx: RequestContext = { user: BENCH_USER };
  const attached = await records.get(req.fileId);
  const unattached = await records.get(req.unattachedId);
  if (!attached?.refs.length || !unattached || unattached.refs.length)
    throw new Error('probe: the attached file has no refs, or the unattached one is missing or attached');
  const repo = kernel.engine.repo(BENCH_OBJECT, ctx);
  const steps: Array<[string, () => Promise<unknown>]> = [
    ['storage.stat (fs stat)', () => storage.stat(req.fileId)],
    ['records.get (upload record: a stat, parsed again only when changed)', () => records.get(req.fileId)],
    [
      'engine findOne of the holder record (as the manager)',
      () => repo.findOne({ filters: [['id', '=', req.recordId]], fields: ['id', BENCH_FIELD] }),
    ],
    [
      'mayRead, attached file (findOne + holder check)',
      async () => {
        if (!(await mayRead(rt, ctx, attached))) throw new Error('probe: mayRead refused the attached file');
      },
    ],
    ['mayRead, unattached file (uploader check)', () => mayRead(rt, ctx, unattached)],
  ];
  /** `iterations` calls, `inFlight` at a time: wall and CPU µs per call. */
  const time = async (fn: () => Promise<unknown>, inFlight: number) => {
    let left = req.iterations;
    const worker = async () => {
      while (left-- > 0) await fn();
    };
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: inFlight }, worker));
    const wall = ((performance.now() - t0) * 1000) / req.iterations;
    const cpu = process.cpuUsage(cpu0);
    return { wall, cpu: (cpu.user + cpu.system) / req.iterations };
  };
  const out: ProbeResult[] = [];
  for (const [step, fn] of steps) {
    for (let i = 0; i < Math.min(200, req.iterations); i++) await fn();
    const one = await time(fn, 1);
    const many = await time(fn, req.concurrency);
    out.push({ step, wallUs: one.wall, cpuUs: one.cpu, concurrentWallUs: many.wall, concurrentCpuUs: many.cpu });
  }
  return out;
}

main(process.argv[2], process.argv[3]).catch((err) => {
  console.error(err);
  process.exit(1);
});
