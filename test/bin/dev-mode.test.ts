/**
 * `objectql dev` as a real child process (docs/dev-mode.md): it reloads on a changed object file,
 * hook file or helper module, keeps the last good server on a broken file or config and says where
 * the mistake is, falls back to the last good config when a new one does not start, logs for people,
 * and exits 0 on SIGTERM. The steps run in order against one process. bin/objectql.js runs the
 * built dist/, so these tests need `npm run build` first.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../helpers/free-port';
import { SERVER_WAIT_MS } from './cli-process';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'bin/objectql.js');
const BUILT_DEV = join(ROOT, 'dist/bin/dev.js');

const CONFIG = `export default {
  host: '127.0.0.1',
  metadata: ['./meta'],
  datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: './data.sqlite' } } },
  plugins: { rest: true, 'metadata-api': true },
};
`;
const hookFile = (tag: string) => `import { PREFIX } from './prefix';

export default {
  beforeCreate(ctx: { data?: Record<string, unknown> }): void {
    if (ctx.data) ctx.data.text = \`\${PREFIX}:${tag}:\${String(ctx.data.text)}\`;
  },
};
`;
const prefixFile = (prefix: string) => `export const PREFIX = '${prefix}';\n`;

describe('objectql dev', function () {
  this.timeout(2 * SERVER_WAIT_MS);
  let tmp: string;
  let meta: string;
  let url: string;
  let child: ChildProcess | undefined;
  let out = '';
  let err = '';
  let exited: Promise<number | string>;

  /** Polls `check` until it returns a value other than undefined, failing after `ms` with the child's output. */
  async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = SERVER_WAIT_MS): Promise<T> {
    const deadline = Date.now() + ms;
    let last: unknown;
    while (Date.now() < deadline) {
      if (child?.exitCode !== null) throw new Error(`objectql dev exited early (${child?.exitCode})\nstdout: ${out}\nstderr: ${err}`);
      try {
        const value = await check();
        if (value !== undefined) return value;
      } catch (e) {
        last = e; // not listening (a reload in progress), or not there yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${what}: not within ${ms} ms (last error: ${String(last)})\nstdout: ${out}\nstderr: ${err}`);
  }

  async function fieldNames(): Promise<string[]> {
    const res = await fetch(`${url}/api/metadata/objects/greeting`);
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { fields: { name: string }[] };
    return body.fields.map((f) => f.name);
  }

  async function createdText(text: string): Promise<string> {
    const res = await fetch(`${url}/api/data/greeting`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });
    expect(res.status).to.equal(201);
    return ((await res.json()) as { text: string }).text;
  }

  /** Saves as many editors do: a new file renamed over the old one. */
  function saveByRename(file: string, content: string): void {
    writeFileSync(`${file}.tmp~`, content);
    renameSync(`${file}.tmp~`, file);
  }

  const objectFile = () => join(meta, 'greeting.object.yml');
  const reloads = () => out.split('\n').filter((line) => line.startsWith('objectql dev: reloaded:')).length;

  before(async function () {
    if (!existsSync(BUILT_DEV)) {
      console.warn(`    skipping the dev-mode tests: ${BUILT_DEV} is missing; run \`npm run build\` first`);
      this.skip();
    }
    tmp = mkdtempSync(join(tmpdir(), 'objectql-dev-'));
    meta = join(tmp, 'meta');
    mkdirSync(meta);
    writeFileSync(join(tmp, 'objectql.config.ts'), CONFIG);
    writeFileSync(objectFile(), 'fields:\n  text: {type: text}\n');
    writeFileSync(join(meta, 'greeting.hook.ts'), hookFile('hook1'));
    writeFileSync(join(meta, 'prefix.ts'), prefixFile('v1'));
    writeFileSync(
      join(tmp, 'broken-plugin.ts'),
      "export default { name: 'broken', register() { throw new Error('broken on purpose'); } };\n",
    );

    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const { PORT: _port, NODE_ENV: _env, ...env } = process.env;
    child = spawn(process.execPath, [BIN, 'dev', '--config', join(tmp, 'objectql.config.ts'), '--port', String(port)], {
      cwd: tmp,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    const started = child;
    exited = new Promise((res) => started.once('close', (code, signal) => res(code ?? signal ?? -1)));
    await until('GET /health answers 200', async () => ((await fetch(`${url}/health`)).status === 200 ? true : undefined));
    await until('the watcher is set up', () => (out.includes('objectql dev: watching') ? true : undefined));
  });

  after(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('reloads when a field is added to an object file', async () => {
    expect(await fieldNames())
      .to.include('text')
      .and.not.include('note');
    writeFileSync(objectFile(), 'fields:\n  text: {type: text}\n  note: {type: text}\n');
    await until('the new field is served', async () => ((await fieldNames()).includes('note') ? true : undefined));
    await until('the reload is reported', () => (out.includes('objectql dev: reloaded: 1 object, in ') ? true : undefined));
  });

  it('watches subfolders, new ones too', async () => {
    mkdirSync(join(meta, 'more'));
    writeFileSync(join(meta, 'more', 'memo.object.yml'), 'fields:\n  body: {type: textarea}\n');
    await until('the new object is served', async () =>
      (await fetch(`${url}/api/metadata/objects/memo`)).status === 200 ? true : undefined,
    );
    const reloaded = reloads();
    writeFileSync(join(meta, 'more', 'memo.object.yml'), 'fields:\n  body: {type: textarea}\n  title: {type: text}\n');
    await until('the change in the subfolder is reloaded', () => (reloads() > reloaded ? true : undefined));
    rmSync(join(meta, 'more'), { recursive: true });
    await until('the removed object is gone', async () =>
      (await fetch(`${url}/api/metadata/objects/memo`)).status === 404 ? true : undefined,
    );
  });

  it('keeps serving the last good metadata on a broken file, naming the file and line', async () => {
    const before = reloads();
    // `rank` is indented less than its siblings: a YAML syntax error on line 4.
    saveByRename(objectFile(), 'fields:\n  text: {type: text}\n  note: {type: text}\n rank: {type: number}\n');
    const message = await until('the problem is reported', () => {
      const at = err.indexOf('objectql dev: kept the last good metadata:');
      return at < 0 ? undefined : err.slice(at);
    });
    expect(message.split('\n')[0]).to.include(`${objectFile()}: YAML syntax error at line 4`);
    expect(message).to.not.include('    at '); // a message, not a stack trace
    expect(await fieldNames())
      .to.include('note')
      .and.not.include('rank');
    expect(reloads()).to.equal(before);
  });

  it('reloads once the file is fixed', async () => {
    saveByRename(objectFile(), 'fields:\n  text: {type: text}\n  note: {type: text}\n  rank: {type: number}\n');
    await until('the fixed file is served', async () => ((await fieldNames()).includes('rank') ? true : undefined));
  });

  it('runs the new code of a changed hook file and of a module it imports', async () => {
    expect(await createdText('a')).to.equal('v1:hook1:a');
    writeFileSync(join(meta, 'greeting.hook.ts'), hookFile('hook2'));
    await until('the changed hook runs', async () => ((await createdText('b')) === 'v1:hook2:b' ? true : undefined));
    writeFileSync(join(meta, 'prefix.ts'), prefixFile('v2'));
    await until('the changed helper runs', async () => ((await createdText('c')) === 'v2:hook2:c' ? true : undefined));
  });

  it('keeps the last good config when the config file is invalid', async () => {
    const config = join(tmp, 'objectql.config.ts');
    writeFileSync(config, CONFIG.replace("host: '127.0.0.1',", "host: '127.0.0.1',\n  routes: { data: 'no-slash' },"));
    await until('the problem is reported', () => (err.includes('objectql dev: kept the last good config:') ? true : undefined));
    const reported = err.slice(err.indexOf('objectql dev: kept the last good config:'));
    expect(reported).to.include(config).and.include('routes.data');
    expect(await createdText('d')).to.equal('v2:hook2:d');
    writeFileSync(config, CONFIG);
  });

  it('starts the last good config again when a new one does not start', async () => {
    const config = join(tmp, 'objectql.config.ts');
    const before = reloads();
    writeFileSync(config, CONFIG.replace("'metadata-api': true", "'metadata-api': true, './broken-plugin.ts': true"));
    await until('the fallback is reported', () =>
      out.includes('objectql dev: serving the last good config and metadata again') ? true : undefined,
    );
    expect(err).to.include('the new server did not start').and.include('broken on purpose');
    expect(await fieldNames()).to.include('rank');
    expect(reloads()).to.equal(before);
    writeFileSync(config, CONFIG);
    await until('the restored config is reloaded', () => (reloads() > before ? true : undefined));
  });

  it('starts the last good metadata again when the new metadata does not start', async () => {
    const before = reloads();
    const text = await createdText('e');
    // The SQL driver refuses to start on a field whose column cannot hold its new type.
    writeFileSync(objectFile(), 'fields:\n  text: {type: number}\n  note: {type: text}\n  rank: {type: number}\n');
    await until('the fallback is reported', () =>
      out.split('objectql dev: serving the last good config and metadata again').length > 2 ? true : undefined,
    );
    expect(err).to.include("field 'text' changed type");
    const res = await fetch(`${url}/api/metadata/objects/greeting/fields/text`);
    expect(((await res.json()) as { type: string }).type).to.equal('text');
    expect(await createdText('f')).to.equal('v2:hook2:f');
    expect(text).to.equal('v2:hook2:e');
    expect(reloads()).to.equal(before);
  });

  it('logs for people: one readable line per entry, no JSON lines', () => {
    const lines = out.split('\n').filter(Boolean);
    expect(
      lines.some((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: ObjectQL started/.test(l)),
      out,
    ).to.equal(true);
    expect(
      lines.some((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request completed/.test(l)),
      out,
    ).to.equal(true);
    expect(
      lines.filter((l) => l.startsWith('{')),
      'JSON lines',
    ).to.deep.equal([]);
  });

  it('exits 0 on SIGTERM', async () => {
    child!.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      exited,
      new Promise<string>((res) => (timer = setTimeout(() => res('still running'), SERVER_WAIT_MS))),
    ]).finally(() => clearTimeout(timer));
    expect(code, err).to.equal(0);
    expect(out).to.match(/INFO: stopping .*SIGTERM/);
  });
});
