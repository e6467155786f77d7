/**
 * The `objectql` command line as a real child process: serve, answer, stop on SIGTERM with exit
 * code 0; a bad config exits 1 naming the key; an unknown command exits 2. bin/objectql.js runs the
 * built dist/, so these tests need `npm run build` first (npm test in CI runs after the build).
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { slowGet, splitResponse } from '../server/http/raw-socket';
import { freePort } from '../helpers/free-port';
import { SERVER_WAIT_MS } from './cli-process';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'bin/objectql.js');
const BUILT_CLI = join(ROOT, 'dist/bin/cli.js');

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal's name), rejects after `ms`, killing the process. */
  exited: (ms?: number) => Promise<number | string>;
}

function run(args: string[]): Run {
  const { PORT: _ignored, ...env } = process.env; // only --port chooses the port here
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const done = new Promise<number | string>((res) => child.once('close', (code, signal) => res(code ?? signal ?? -1)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited: (ms = SERVER_WAIT_MS) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_res, rej) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          rej(new Error(`objectql ${args.join(' ')} did not exit within ${ms} ms\nstdout: ${out}\nstderr: ${err}`));
        }, ms);
      });
      return Promise.race([done, timeout]).finally(() => clearTimeout(timer));
    },
  };
}

/** Polls GET /health until it answers 200, the process exits, or `ms` passes. */
async function waitForHealth(url: string, proc: Run, ms = SERVER_WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`objectql exited early (${proc.child.exitCode}): ${proc.stderr()}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url}/health did not answer 200 within ${ms} ms\nstderr: ${proc.stderr()}`);
}

describe('objectql command line', function () {
  this.timeout(2 * SERVER_WAIT_MS);
  let tmp: string;
  const running: Run[] = [];

  before(function () {
    if (!existsSync(BUILT_CLI)) {
      console.warn(`    skipping the CLI tests: ${BUILT_CLI} is missing; run \`npm run build\` first`);
      this.skip();
    }
    tmp = mkdtempSync(join(tmpdir(), 'objectql-cli-'));
    mkdirSync(join(tmp, 'meta'));
    writeFileSync(join(tmp, 'meta', 'greeting.object.yml'), 'fields:\n  text: {type: text, required: true}\n');
    writeFileSync(join(tmp, 'meta', 'greeting.data.yml'), '- {id: g-1, text: hello}\n- {id: g-2, text: bonjour}\n');
    writeFileSync(join(tmp, 'objectql.config.yml'), 'host: 127.0.0.1\nlogLevel: warn\nmetadata: [./meta]\nplugins: {rpc: true}\n');
    // 1000 records of 8 KB: an 8 MB answer, more than the OS buffers between a server and a slow reader.
    mkdirSync(join(tmp, 'big'));
    const fields = ['a', 'b', 'c', 'd'];
    writeFileSync(join(tmp, 'big', 'bulk.object.yml'), `fields:\n${fields.map((f) => `  ${f}: {type: textarea}\n`).join('')}`);
    const text = 'x'.repeat(2000);
    const records = Array.from({ length: 1000 }, (_, i) => `- {id: b-${i}, ${fields.map((f) => `${f}: ${text}`).join(', ')}}`);
    writeFileSync(join(tmp, 'big', 'bulk.data.yml'), `${records.join('\n')}\n`);
    writeFileSync(
      join(tmp, 'big.config.yml'),
      'host: 127.0.0.1\nlogLevel: warn\nmetadata: [./big]\nplugins: {rest: true}\ndatasources: {default: {driver: memory}}\n',
    );
    writeFileSync(join(tmp, 'bad.config.json'), JSON.stringify({ metadata: ['./meta'], routes: { rpc: 'no-slash' } }));
  });
  after(() => {
    for (const r of running) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('serves the config on --port, answers JSON-RPC and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const proc = run(['serve', '--config', join(tmp, 'objectql.config.yml'), '--port', String(port)]);
    running.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc);

    const res = await fetch(`${url}/api/objectql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ op: 'find', object: 'greeting', args: { fields: ['text'], sort: [['text', 'asc']] } }),
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as any;
    expect(body.items).to.deep.equal([
      { id: 'g-2', text: 'bonjour' },
      { id: 'g-1', text: 'hello' },
    ]);
    expect(body.meta.total).to.equal(2);

    proc.child.kill('SIGTERM');
    expect(await proc.exited(), proc.stderr()).to.equal(0);
    const after = await fetch(`${url}/health`).then(
      (r) => r.status,
      (err: Error) => err.name,
    );
    expect(after).to.not.equal(200);
  });

  it('on SIGTERM lets a large response in flight finish, then exits 0', async () => {
    const port = await freePort();
    const proc = run(['serve', '--config', join(tmp, 'big.config.yml'), '--port', String(port)]);
    running.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, proc);
    const reader = slowGet(url, '/api/data/bulk?top=1000');
    await reader.started;
    proc.child.kill('SIGTERM');
    const { status, headers, body } = splitResponse(await reader.done);
    expect(status).to.equal(200);
    expect(body.length, 'the whole body arrived').to.equal(Number(headers['content-length']));
    expect(JSON.parse(body.toString('utf8')).items).to.have.length(1000);
    expect(await proc.exited(), proc.stderr()).to.equal(0);
  });

  it('exits 1 on a bad config, naming the key on stderr', async () => {
    const proc = run(['serve', '--config', join(tmp, 'bad.config.json'), '--port', '0']);
    running.push(proc);
    expect(await proc.exited()).to.equal(1);
    expect(proc.stderr()).to.include('routes.rpc').and.include('bad.config.json');
    expect(proc.stderr()).to.not.include('    at '); // a message, not a stack trace
  });

  it('exits 1 when the config file does not exist', async () => {
    const proc = run(['serve', '--config', join(tmp, 'nowhere.yml')]);
    running.push(proc);
    expect(await proc.exited()).to.equal(1);
    expect(proc.stderr()).to.include('Config file not found').and.include('nowhere.yml');
  });

  it('exits 2 on an unknown command or option, with the usage', async () => {
    const unknown = run(['frobnicate']);
    running.push(unknown);
    expect(await unknown.exited()).to.equal(2);
    expect(unknown.stderr()).to.include("Unknown command 'frobnicate'").and.include('Usage: objectql serve');

    const badOption = run(['serve', '--no-such-option']);
    running.push(badOption);
    expect(await badOption.exited()).to.equal(2);
    expect(badOption.stderr()).to.include('Usage: objectql serve');
  });
});
