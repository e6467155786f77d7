/**
 * `npm run bench:files`: real HTTP load (autocannon, 10 connections) on the File API of the files
 * plugin, beside a bare node:http baseline doing the same essential work by hand
 * (bench/files-baseline.ts), in the same run. Each server runs in a process of its own
 * (bench/files-server.ts) and every scenario is warmed up (1 s, unmeasured) before it is measured.
 *
 * ObjectQL: files plugin with local storage and a SQLite file, both in a temp dir; the bench
 * metadata (bench/metadata-files/: `bench_doc.attachment`, a file field accepting .pdf .png .jpg
 * .jpeg up to 5 MB, and the image field `bench_doc.picture`, for the PNG; readable by managers); an
 * API key (auth plugin) standing for a manager — not an admin, so downloads of attached files are
 * access-checked through the engine. The files are set up through the real API: uploaded for their
 * field, then attached each to a record of its own (REST POST, then PUT). The baseline serves the
 * same bytes under the same ids.
 *
 * Scenarios: download of a 4 KiB PDF and of a 1 MiB PDF (each attached to a record), the small
 * thumbnail of a PNG (attached; cached after the first request; the baseline serves ObjectQL's
 * thumbnail bytes from a Map), and the upload of a 64 KiB PDF (one multipart body, built once,
 * with parts object and field, so ObjectQL checks the field's rules). Then, ObjectQL only, where
 * the time of a download goes: the same 4 KiB download of a file not attached to any record (the
 * uploader-only check, no engine call), the REST read of the record holding the attached file (the
 * engine read alone, over HTTP), and in-process timings of each step of the access check.
 *
 * Non-2xx answers, timeouts and connection errors count as errors; the first error body is
 * printed, and the run exits non-zero when any scenario had one. BENCH_SECONDS (default 5) tunes
 * the length of each measured run. Everything listens on 127.0.0.1; the children are stopped and
 * the temp dir removed at the end, on failure too.
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import sharp from 'sharp';
import { cpuTime } from './proc-cpu';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;
/** Each scenario's own warm-up; before any measurement every request of a server also runs SERVER_WARMUP_SECONDS. */
const WARMUP_SECONDS = 1;
const SERVER_WARMUP_SECONDS = 2;
const START_TIMEOUT_MS = 60_000;
const REQUEST_TIMEOUT_MS = 30_000;
const PROBE_ITERATIONS = 2000;
/** The bench object and its file field (bench/metadata-files/bench_doc.object.yml). */
const OBJECT = 'bench_doc';
const FIELD = 'attachment';
/** Its image field, for the PNG. */
const IMAGE_FIELD = 'picture';

interface Server {
  pid: number;
  url: string;
  /** ObjectQL only: the files and data (REST) route bases. */
  files?: string;
  data?: string;
  child: ChildProcess;
  nextLine(timeoutMs: number): Promise<string>;
}

interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

interface Measure {
  rps: number;
  p99: number;
  /** Response bytes per second. */
  throughput: number;
  /** The server process's CPU time (every thread) per completed request, µs; undefined off Linux. */
  cpuUs?: number;
  /** This process's (the load generator's) CPU time over the run's wall time, % of one core. */
  clientCpu: number;
  errors: number;
  firstError?: string;
}

interface Attachment {
  id: string;
  url: string;
  size: number;
  type: string;
  thumbnail_url?: string;
  [key: string]: unknown;
}

/** The children and temp dir to clean up, whatever happens. */
const children = new Set<ChildProcess>();
let workDir: string | undefined;

async function startServer(mode: 'objectql' | 'baseline', dir: string, apiKey: string): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, 'files-server.ts'), mode, dir], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_FILES_API_KEY: apiKey },
  });
  children.add(child);
  const exited = once(child, 'exit').then(([code, signal]) => {
    throw new Error(`${mode} server exited (${signal ?? `code ${code}`}); see its stderr above`);
  });
  exited.catch(() => undefined);
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  const nextLine = (timeoutMs: number) => {
    if (lines.length) return Promise.resolve(lines.shift()!);
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      new Promise<string>((r) => waiters.push(r)),
      exited,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${mode} server: no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
  };
  const info = JSON.parse(await nextLine(START_TIMEOUT_MS)) as Omit<Server, 'child' | 'nextLine'>;
  return { ...info, child, nextLine };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  children.delete(child);
}

async function cleanup(): Promise<void> {
  await Promise.all([...children].map(stopChild));
  if (workDir) await rm(workDir, { recursive: true, force: true });
  workDir = undefined;
}

/** A PDF of exactly `size` bytes: the header the sniffer looks for, printable filler, the trailer. */
function pdf(size: number): Buffer {
  const head = Buffer.from('%PDF-1.4\n%bench\n');
  const tail = Buffer.from('\n%%EOF\n');
  const filler = Buffer.alloc(size - head.length - tail.length);
  for (let i = 0; i < filler.length; i++) filler[i] = (i + 1) % 64 === 0 ? 0x0a : 0x61 + (i % 26);
  return Buffer.concat([head, filler, tail]);
}

/** A 640×480 PNG photo-like enough for a thumbnail (a gradient with noise). */
async function png(): Promise<Buffer> {
  const width = 640;
  const height = 480;
  const raw = Buffer.alloc(width * height * 3);
  const noise = randomBytes(raw.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = (x * 255) / width + (noise[i] & 15);
      raw[i + 1] = (y * 255) / height + (noise[i + 1] & 15);
      raw[i + 2] = 128 + (noise[i + 2] & 31);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** A multipart body: text parts in order, then the file part. */
function multipart(
  fields: Record<string, string>,
  file: { name: string; type: string; content: Buffer },
): { body: Buffer; contentType: string } {
  const boundary = `----objectql-bench-${randomUUID()}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
    ),
  );
  parts.push(file.content, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function call(url: string, init: RequestInit & { headers: Record<string, string> }): Promise<{ status: number; body: Buffer }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

/** `call`, throwing unless the answer is 2xx; the answer's JSON `data` (or the whole JSON). */
async function json<T>(what: string, url: string, init: RequestInit & { headers: Record<string, string> }): Promise<T> {
  const { status, body } = await call(url, init);
  if (status < 200 || status >= 300) throw new Error(`setup: ${what}: HTTP ${status} ${body.toString('utf8').slice(0, 300)}`);
  const parsed = JSON.parse(body.toString('utf8')) as { data?: T } & T;
  return parsed.data ?? parsed;
}

/** GET that must answer 2xx with exactly `expected` (when given); returns the bytes. */
async function fetchBytes(what: string, url: string, apiKey: string, expected?: Buffer): Promise<Buffer> {
  const { status, body } = await call(url, { headers: { 'x-api-key': apiKey } });
  if (status !== 200) throw new Error(`setup: ${what}: HTTP ${status} ${body.toString('utf8').slice(0, 300)}`);
  if (expected && !body.equals(expected)) throw new Error(`setup: ${what}: ${body.length} bytes, not the ${expected.length} expected`);
  return body;
}

async function load(base: string, request: Request, duration: number, pid?: number): Promise<Measure> {
  let firstError: string | undefined;
  const cpu0 = pid === undefined ? undefined : cpuTime(pid);
  const client0 = process.cpuUsage();
  const started = performance.now();
  const result = await autocannon({
    url: base,
    duration,
    connections: CONNECTIONS,
    requests: [
      {
        method: request.method,
        path: request.path,
        headers: request.headers,
        body: request.body,
        onResponse: (status: number, body: string) => {
          if ((status < 200 || status >= 300) && !firstError) firstError = `HTTP ${status} ${body.slice(0, 300)}`;
        },
      },
    ],
  });
  const client = process.cpuUsage(client0);
  const clientCpu = ((client.user + client.system) / 1000 / (performance.now() - started)) * 100;
  const cpu1 = pid === undefined ? undefined : cpuTime(pid);
  const cpuUs = cpu0 !== undefined && cpu1 !== undefined && result.requests.total > 0 ? (cpu1 - cpu0) / result.requests.total : undefined;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    throughput: result.throughput.average,
    cpuUs,
    clientCpu,
    errors: result.errors + result.non2xx + result.timeouts,
    firstError,
  };
}

/** Warm (unmeasured, but its errors count), then measure. */
async function measure(server: Server, request: Request): Promise<Measure> {
  const warm = await load(server.url, request, WARMUP_SECONDS);
  const m = await load(server.url, request, SECONDS, server.pid);
  return { ...m, errors: m.errors + warm.errors, firstError: warm.firstError ?? m.firstError };
}

async function main() {
  workDir = await mkdtemp(join(tmpdir(), 'objectql-bench-files-'));
  const oqlDir = join(workDir, 'objectql');
  const baseDir = join(workDir, 'baseline');
  for (const d of [oqlDir, join(baseDir, 'files'), join(baseDir, 'thumbs'), join(baseDir, 'uploads')]) await mkdir(d, { recursive: true });
  const apiKey = randomBytes(24).toString('base64url');
  const auth = { 'x-api-key': apiKey };

  const content = { small: pdf(4 * 1024), large: pdf(1024 * 1024), image: await png(), upload: pdf(64 * 1024) };

  // ObjectQL, set up through its API.
  const objectql = await startServer('objectql', oqlDir, apiKey);
  if (!objectql.files || !objectql.data) throw new Error('the ObjectQL server printed no files or data URL');
  const filesPath = new URL(objectql.files).pathname;
  const dataPath = new URL(objectql.data).pathname;
  const upload = async (name: string, type: string, bytes: Buffer, field = FIELD) => {
    const form = multipart({ object: OBJECT, field }, { name, type, content: bytes });
    return json<Attachment>(`upload ${name}`, `${objectql.files}/upload`, {
      method: 'POST',
      headers: { ...auth, 'content-type': form.contentType },
      body: form.body,
    });
  };
  const attach = async (name: string, attachment: Attachment, field = FIELD) => {
    const created = await json<{ id: string }>(`create ${OBJECT} ${name}`, `${objectql.data}/${OBJECT}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    await json(`attach ${name}`, `${objectql.data}/${OBJECT}/${encodeURIComponent(created.id)}`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ [field]: attachment }),
    });
    return created.id;
  };
  const small = await upload('receipt-4k.pdf', 'application/pdf', content.small);
  const large = await upload('report-1m.pdf', 'application/pdf', content.large);
  const image = await upload('photo.png', 'image/png', content.image, IMAGE_FIELD);
  const loose = await upload('unattached-4k.pdf', 'application/pdf', content.small);
  const smallRecord = await attach('4 KiB', small);
  await attach('1 MiB', large);
  await attach('PNG', image, IMAGE_FIELD);
  const fileUrl = (a: Attachment) => `${filesPath}/${encodeURIComponent(a.id)}`;
  const thumbPath = `${fileUrl(image)}/thumbnail?size=small`;
  await fetchBytes('download 4 KiB', objectql.url + fileUrl(small), apiKey, content.small);
  await fetchBytes('download 1 MiB', objectql.url + fileUrl(large), apiKey, content.large);
  const thumbnail = await fetchBytes('thumbnail', objectql.url + thumbPath, apiKey);

  // The baseline: the same bytes under the same ids.
  await writeFile(join(baseDir, 'files', small.id), content.small);
  await writeFile(join(baseDir, 'files', large.id), content.large);
  await writeFile(join(baseDir, 'thumbs', image.id), thumbnail);
  const baseline = await startServer('baseline', baseDir, apiKey);
  await fetchBytes('baseline download 4 KiB', `${baseline.url}/files/${small.id}`, apiKey, content.small);
  await fetchBytes('baseline download 1 MiB', `${baseline.url}/files/${large.id}`, apiKey, content.large);
  await fetchBytes('baseline thumbnail', `${baseline.url}/files/${image.id}/thumbnail?size=small`, apiKey, thumbnail);

  const form = multipart({ object: OBJECT, field: FIELD }, { name: 'upload-64k.pdf', type: 'application/pdf', content: content.upload });
  const get = (path: string): Request => ({ method: 'GET', path, headers: auth });
  const post = (path: string): Request => ({
    method: 'POST',
    path,
    headers: { ...auth, 'content-type': form.contentType },
    body: form.body,
  });
  const scenarios: Array<{ name: string; objectql: Request; baseline: Request; mbps?: boolean }> = [
    { name: 'download 4 KiB (attached)', objectql: get(fileUrl(small)), baseline: get(`/files/${small.id}`) },
    { name: 'download 1 MiB (attached)', objectql: get(fileUrl(large)), baseline: get(`/files/${large.id}`), mbps: true },
    {
      name: `thumbnail small (cached, ${thumbnail.length} B PNG)`,
      objectql: get(thumbPath),
      baseline: get(`/files/${image.id}/thumbnail?size=small`),
    },
    { name: 'upload 64 KiB PDF', objectql: post(`${filesPath}/upload`), baseline: post('/upload') },
  ];

  const looseRequest = get(fileUrl(loose));
  const recordRequest = get(`${dataPath}/${OBJECT}/${encodeURIComponent(smallRecord)}?fields=${FIELD}`);

  const failures: string[] = [];
  const check = (what: string, m: Measure) => {
    if (m.errors) failures.push(`${what}: ${m.errors} errors; first: ${m.firstError ?? 'a timeout or connection error'}`);
  };
  // Both servers warmed up on everything they will be asked, so the first scenario is not the one paying for the JIT.
  for (const r of [...scenarios.map((s) => s.objectql), looseRequest, recordRequest])
    check(`warm-up ObjectQL ${r.method} ${r.path}`, await load(objectql.url, r, SERVER_WARMUP_SECONDS));
  for (const r of scenarios.map((s) => s.baseline))
    check(`warm-up baseline ${r.method} ${r.path}`, await load(baseline.url, r, SERVER_WARMUP_SECONDS));

  console.log(
    `\n### Files: ObjectQL (files plugin, local storage, SQLite, API key of a manager) vs bare node:http, ${SECONDS} s per run, ${CONNECTIONS} connections\n`,
  );
  console.log(
    '| scenario | ObjectQL req/s | p99 ms | baseline req/s | p99 ms | ratio | server CPU µs/request ObjectQL / baseline | MB/s ObjectQL / baseline |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  const us = (m: Measure) => (m.cpuUs === undefined ? '—' : m.cpuUs.toFixed(0));
  const notes: string[] = [];
  for (const s of scenarios) {
    const o = await measure(objectql, s.objectql);
    const b = await measure(baseline, s.baseline);
    check(`${s.name}, ObjectQL`, o);
    check(`${s.name}, baseline`, b);
    const mbps = s.mbps ? `${(o.throughput / 1e6).toFixed(0)} / ${(b.throughput / 1e6).toFixed(0)}` : '—';
    if (s.mbps)
      notes.push(
        `${s.name}: the load generator (autocannon, in this process) used ${o.clientCpu.toFixed(0)}% of a core during ObjectQL's run, ${b.clientCpu.toFixed(0)}% during the baseline's.`,
      );
    console.log(
      `| ${s.name} | ${o.rps.toFixed(0)} | ${o.p99} | ${b.rps.toFixed(0)} | ${b.p99} | ${(o.rps / b.rps).toFixed(2)} | ${us(o)} / ${us(b)} | ${mbps} |`,
    );
  }

  if (notes.length) console.log(`\n${notes.join('\n')}`);

  // Where a download's time goes (ObjectQL only), measured one after the other.
  const attachedSmall = await measure(objectql, scenarios[0].objectql);
  const loose4k = await measure(objectql, looseRequest);
  const record = await measure(objectql, recordRequest);
  check('download 4 KiB (attached, again), ObjectQL', attachedSmall);
  check('download 4 KiB (unattached), ObjectQL', loose4k);
  check('REST GET of the holding record, ObjectQL', record);
  console.log('\nObjectQL alone, same load: a download with and without the engine read of the access check.\n');
  console.log('| request | req/s | p99 ms | vs attached download | server CPU µs/request |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, m] of [
    ['download 4 KiB, attached (access: engine findOne of the holder record)', attachedSmall],
    ['download 4 KiB, not attached (access: uploader only, no engine call)', loose4k],
    ['REST GET of the holder record, `fields=attachment` (the engine read alone)', record],
  ] as const) {
    console.log(`| ${name} | ${m.rps.toFixed(0)} | ${m.p99} | ${(m.rps / attachedSmall.rps).toFixed(2)} | ${us(m)} |`);
  }

  objectql.child.stdin!.write(
    `${JSON.stringify({ fileId: small.id, unattachedId: loose.id, recordId: smallRecord, iterations: PROBE_ITERATIONS, concurrency: CONNECTIONS })}\n`,
  );
  const answer = JSON.parse(await objectql.nextLine(120_000)) as {
    probe?: Array<{ step: string; wallUs: number; cpuUs: number; concurrentWallUs: number; concurrentCpuUs: number }>;
    probeError?: string;
  };
  if (!answer.probe) throw new Error(`probe failed: ${answer.probeError}`);
  console.log(
    `\nIn the ObjectQL process, no HTTP: ${PROBE_ITERATIONS} calls of each step, after a warm-up, one at a time and ${CONNECTIONS} in flight (CPU of every thread):\n`,
  );
  console.log(
    `| step of a download | wall µs/call, 1 in flight | CPU µs/call, 1 in flight | wall µs/call, ${CONNECTIONS} in flight | CPU µs/call, ${CONNECTIONS} in flight |`,
  );
  console.log('|---|---:|---:|---:|---:|');
  for (const p of answer.probe)
    console.log(
      `| ${p.step} | ${p.wallUs.toFixed(0)} | ${p.cpuUs.toFixed(0)} | ${p.concurrentWallUs.toFixed(0)} | ${p.concurrentCpuUs.toFixed(0)} |`,
    );

  if (failures.length) {
    for (const f of failures) console.error(f);
    throw new Error(`${failures.length} run(s) had errors`);
  }
}

let exiting = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (exiting) return;
    exiting = true;
    console.error(`${signal}: stopping the servers, removing the temp dir`);
    void cleanup().finally(() => process.exit(130));
  });
}

main()
  .catch((err) => {
    console.error(`files bench failed: ${(err as Error).stack ?? err}`);
    process.exitCode = 1;
  })
  .finally(() => cleanup())
  .catch((err) => {
    console.error(`clean-up failed: ${(err as Error).message}`);
    process.exitCode = 1;
  });
