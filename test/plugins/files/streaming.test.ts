/**
 * Streamed uploads and downloads, seen from outside: a real `objectql serve` in a child process
 * (its V8 heap capped with --max-old-space-size) receives a multipart upload several times larger
 * than a resident-memory ceiling, serves it back whole and by range, and refuses the same stream on
 * a field with a small max_size (413 with the exact size, nothing left in storage). The child's
 * peak resident memory (VmHWM in /proc/<pid>/status) must stay below the ceiling in every phase.
 *
 * The upload body is written by hand (boundary, parts, content generated chunk by chunk from a
 * deterministic generator) and hashed while it is sent; downloads are hashed while they are read.
 * Nothing here ever holds a whole file in memory, on either side.
 *
 * The child runs the CLI from the sources (bin/cli.ts through tsx), not bin/objectql.js: that one
 * runs dist/, which is only as recent as the last `npm run build`, and this test must measure the
 * code as it is. Linux only (it reads /proc): elsewhere it skips, saying why.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hashApiKey } from '../../../plugins/auth/api-keys';
import {
  contentGenerator,
  freePort,
  getStreamed,
  listTree,
  mib,
  MiB,
  postMultipart,
  procMemory,
  procUnavailable,
  sha256OfFile,
} from './big-upload';

const ROOT = resolve(__dirname, '../../..');

/**
 * The memory limit under test: the server's peak resident set, whatever it is doing. At rest the
 * child holds about 115 MiB (sources compiled by tsx included); streaming adds a plateau of some
 * 30-40 MiB (V8's young generation, network and disk buffers awaiting collection) that does not
 * grow with the file's size. A server that kept the body would pass the ceiling within the first
 * fifth of the upload.
 */
const RSS_CEILING = 192 * MiB;
/** The upload: four times the ceiling, plus an odd tail so the last chunk is a partial one. */
const FILE_SIZE = 4 * RSS_CEILING + 12_345;
/** The V8 heap of the child: a body held as JS strings or arrays would crash it long before the end. */
const CHILD_HEAP_MB = 64;
const BIG_MAX = 1024 * MiB;
const CAPPED_MAX = 64 * MiB;
const API_KEY = 'streaming-test-key-0123456789';
const FILE_NAME = 'big.bin';
const START_MS = 30_000;

describe('files plugin: uploads and downloads far larger than memory, streamed', function () {
  this.timeout(180_000);

  let tmp: string;
  let uploadDir: string;
  let child: ChildProcess | undefined;
  let base: string;
  let output = '';
  let attachment: Record<string, any> | undefined;
  let uploadedSha: string | undefined;
  /** Whether the peak can be reset between phases (writing 5 to /proc/<pid>/clear_refs). */
  let canResetPeak = false;
  const peaks: Record<string, number> = {};
  const content = contentGenerator(FILE_SIZE);
  const auth = { 'x-api-key': API_KEY };

  const pid = () => child!.pid!;
  const childState = () =>
    `child ${child?.exitCode === null && child?.signalCode === null ? 'running' : `exited (${child?.exitCode ?? child?.signalCode})`}; its output:\n${output.slice(-4000)}`;
  /** Records the child's peak resident memory for `phase` and checks it against the ceiling. */
  const checkPeak = (phase: string) => {
    const peak = procMemory(pid(), 'VmHWM');
    peaks[phase] = peak;
    console.log(`      peak RSS of the server, ${phase}: ${mib(peak)} (ceiling ${mib(RSS_CEILING)}, file ${mib(FILE_SIZE)})`);
    expect(peak, `peak resident memory of the server during ${phase}: ${mib(peak)}, ceiling ${mib(RSS_CEILING)}`).to.be.below(RSS_CEILING);
  };
  /** Checks the peak since the last reset (so no moment goes unchecked), then starts the next phase's from the current resident set. */
  const resetPeak = () => {
    if (!canResetPeak) return;
    const peak = procMemory(pid(), 'VmHWM');
    expect(peak, `peak resident memory of the server between phases: ${mib(peak)}, ceiling ${mib(RSS_CEILING)}`).to.be.below(RSS_CEILING);
    writeFileSync(`/proc/${pid()}/clear_refs`, '5');
  };

  before(async function () {
    const reason = procUnavailable();
    if (reason) {
      console.log(`      skipping the streaming tests: ${reason}`);
      this.skip();
    }
    tmp = await mkdtemp(join(tmpdir(), 'oql-streaming-'));
    const disk = await statfs(tmp);
    if (disk.bavail * disk.bsize < FILE_SIZE + 256 * MiB) {
      console.log(
        `      skipping the streaming tests: ${mib(disk.bavail * disk.bsize)} free on ${tmpdir()}, the file needs ${mib(FILE_SIZE)}`,
      );
      this.skip();
    }
    uploadDir = join(tmp, 'uploads');
    await mkdir(uploadDir);
    await mkdir(join(tmp, 'meta'));
    await writeFile(
      join(tmp, 'meta', 'blob.object.yml'),
      `fields:\n  name: {type: text}\n  content: {type: file, max_size: ${BIG_MAX}}\n  capped: {type: file, max_size: ${CAPPED_MAX}}\n`,
    );
    await writeFile(
      join(tmp, 'meta', 'blob.permission.yml'),
      'permissions:\n  - profile: uploader\n    allow_read: true\n    allow_create: true\n    allow_edit: true\n',
    );
    const config = {
      host: '127.0.0.1',
      logLevel: 'warn',
      metadata: ['./meta'],
      datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: './data.sqlite' } } },
      plugins: {
        files: { storage: { type: 'local', baseDir: './uploads' } },
        auth: { apiKeys: [{ keyHash: hashApiKey(API_KEY), user: { id: 'streamer', roles: ['uploader'] } }] },
      },
    };
    const configFile = join(tmp, 'objectql.config.json');
    await writeFile(configFile, JSON.stringify(config, null, 2));

    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const { PORT: _port, ...env } = process.env;
    // `objectql serve` from the sources: what bin/objectql.js does with dist/bin/cli.js.
    const runner = `require(${JSON.stringify(join(ROOT, 'bin/cli.ts'))}).main(process.argv.slice(1)).then((code) => { if (code !== 0) process.exit(code); });`;
    child = spawn(
      process.execPath,
      [
        `--max-old-space-size=${CHILD_HEAP_MB}`,
        '--require',
        require.resolve('tsx/cjs'),
        '-e',
        runner,
        'serve',
        '--config',
        configFile,
        '--port',
        String(port),
      ],
      {
        cwd: tmp,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const keep = (d: Buffer) => {
      output = (output + d.toString('utf8')).slice(-20_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);

    const deadline = Date.now() + START_MS;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`objectql serve exited early: ${childState()}`);
      const status = await getStreamed(`${base}/health`, {}).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      if (Date.now() > deadline) throw new Error(`${base}/health did not answer 200 within ${START_MS} ms; ${childState()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const started = procMemory(pid(), 'VmHWM');
    console.log(
      `      server started: peak RSS ${mib(started)}; ceiling ${mib(RSS_CEILING)}; upload ${mib(FILE_SIZE)} (${(FILE_SIZE / RSS_CEILING).toFixed(2)}x the ceiling)`,
    );
    expect(started, `the server needs ${mib(started)} to start, already above the ceiling of ${mib(RSS_CEILING)}`).to.be.below(RSS_CEILING);
    try {
      writeFileSync(`/proc/${pid()}/clear_refs`, '5');
      canResetPeak = true;
    } catch {
      canResetPeak = false; // kernels without peak reset: every peak below is then the peak since start
    }
  });

  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((done) => child!.once('exit', () => done()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child!.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('the file is several times larger than the memory ceiling', () => {
    expect(FILE_SIZE).to.be.at.least(4 * RSS_CEILING);
    expect(BIG_MAX).to.be.above(FILE_SIZE);
  });

  it('uploads it: 200 with the attachment, its size the bytes sent, the server under the ceiling', async () => {
    resetPeak();
    const r = await postMultipart(
      `${base}/api/files/upload`,
      auth,
      { object: 'blob', field: 'content' },
      FILE_NAME,
      FILE_SIZE,
      content.chunks(),
    );
    expect(r.status, `${JSON.stringify(r.body)}; ${childState()}`).to.equal(200);
    expect(r.sent).to.equal(FILE_SIZE);
    attachment = r.body.data;
    uploadedSha = r.sha256;
    expect(attachment).to.include({
      name: FILE_NAME,
      original_name: FILE_NAME,
      size: FILE_SIZE,
      type: 'application/octet-stream',
      uploaded_by: 'streamer',
    });
    expect(attachment!.id).to.be.a('string');
    expect(attachment!.url).to.equal(`/api/files/${attachment!.id}`);
    checkPeak('the upload');
  });

  it('stores it on disk whole: same size, same sha256', async () => {
    expect(attachment, 'the upload failed').to.not.equal(undefined);
    const file = join(uploadDir, attachment!.id);
    expect((await stat(file)).size).to.equal(FILE_SIZE);
    expect(await sha256OfFile(file)).to.equal(uploadedSha);
    // Nothing else than the file and its metadata sidecar: no temp file left behind.
    expect(await listTree(uploadDir)).to.deep.equal(['.objectql-meta', `.objectql-meta/${attachment!.id}.json`, attachment!.id].sort());
  });

  it('downloads it back, streamed: Content-Length and sha256 of what was sent, the server under the ceiling', async () => {
    expect(attachment, 'the upload failed').to.not.equal(undefined);
    resetPeak();
    const r = await getStreamed(`${base}/api/files/${attachment!.id}`, auth);
    expect(r.status).to.equal(200);
    expect(r.headers['content-length']).to.equal(String(FILE_SIZE));
    expect(r.headers['content-type']).to.contain('application/octet-stream');
    expect(r.bytes).to.equal(FILE_SIZE);
    expect(r.sha256).to.equal(uploadedSha);
    checkPeak('the download');
  });

  it('answers a Range request for the last bytes with exactly those bytes', async () => {
    expect(attachment, 'the upload failed').to.not.equal(undefined);
    resetPeak();
    const n = 100_000; // spans the boundary between the last two chunks
    const r = await getStreamed(`${base}/api/files/${attachment!.id}`, { ...auth, range: `bytes=-${n}` }, true);
    expect(r.status).to.equal(206);
    expect(r.headers['content-range']).to.equal(`bytes ${FILE_SIZE - n}-${FILE_SIZE - 1}/${FILE_SIZE}`);
    expect(r.headers['content-length']).to.equal(String(n));
    expect(r.bytes).to.equal(n);
    expect(r.body!.equals(content.tail(FILE_SIZE - n))).to.equal(true);
    checkPeak('the range request');
  });

  it('refuses the same stream on a field with a smaller max_size: 413 with the exact size, nothing stored, the server under the ceiling', async () => {
    const before = await listTree(uploadDir);
    resetPeak();
    const r = await postMultipart(
      `${base}/api/files/upload`,
      auth,
      { object: 'blob', field: 'capped' },
      FILE_NAME,
      FILE_SIZE,
      content.chunks(),
    );
    expect(r.status, `${JSON.stringify(r.body)}; ${childState()}`).to.equal(413);
    expect(r.body.error.code).to.equal('FILE_TOO_LARGE');
    expect(r.body.error.details).to.deep.equal({ file: FILE_NAME, size: FILE_SIZE, max_size: CAPPED_MAX });
    expect(r.sent, 'the server answered before the whole body was sent').to.equal(FILE_SIZE);
    const after = await listTree(uploadDir);
    expect(
      after.filter((e) => /(^|\/)\.upload-|\.tmp$/.test(e)),
      'temp files left in storage',
    ).to.deep.equal([]);
    expect(after).to.deep.equal(before);
    checkPeak('the refused upload');
  });

  it('is still healthy afterwards', async () => {
    expect(child!.exitCode, childState()).to.equal(null);
    const r = await getStreamed(`${base}/health`, {}, true);
    expect(r.status).to.equal(200);
    expect(JSON.parse(r.body!.toString('utf8'))).to.deep.equal({ status: 'ok' });
    checkPeak('the end');
    console.log(
      `      peaks: ${Object.entries(peaks)
        .map(([k, v]) => `${k} ${mib(v)}`)
        .join(', ')}${canResetPeak ? '' : ' (peaks since start: clear_refs unavailable)'}`,
    );
  });
});
