/**
 * Settings that would weaken security stop `objectql serve` before it listens, as an operator
 * meets it: a metadata file one letter off its type (the object would run without its
 * permissions), an undeclared custom type, and the sample config's public JWT secret outside
 * development (in development it starts, warning loudly). Needs `npm run build` (bin/ runs dist/).
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SERVER_WAIT_MS } from './cli-process';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'bin/objectql.js');

interface Outcome {
  code: number | string;
  output: string;
  stderr: string;
}

/**
 * Runs `objectql serve`, waits until it exits or says it started (then stops it with SIGTERM);
 * answers the exit code and what it printed.
 */
function serve(args: string[], env: Record<string, string | undefined>): Promise<Outcome> {
  const { PORT: _port, OBJECTQL_JWT_SECRET: _secret, NODE_ENV: _env, ...base } = process.env;
  const defined: NodeJS.ProcessEnv = Object.fromEntries(Object.entries({ ...base, ...env }).filter(([, v]) => v !== undefined));
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    cwd: ROOT,
    env: defined,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let stopping = false; // one SIGTERM: the CLI handles the first, a second would kill it
  const timer = setTimeout(() => child.kill('SIGKILL'), SERVER_WAIT_MS);
  child.stdout.on('data', (d) => {
    stdout += d;
    if (!stopping && stdout.includes('ObjectQL started')) stopping = child.kill('SIGTERM');
  });
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((res) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      res({ code: code ?? signal ?? -1, output: stdout + stderr, stderr });
    }),
  );
}

describe('objectql serve: start-up refusals', function () {
  this.timeout(SERVER_WAIT_MS + 15_000);
  let tmp: string;

  before(function () {
    if (!existsSync(join(ROOT, 'dist/bin/cli.js'))) {
      console.warn('    skipping: dist/bin/cli.js is missing; run `npm run build` first');
      this.skip();
    }
    tmp = mkdtempSync(join(tmpdir(), 'objectql-refusals-'));
    const app = (name: string, files: Record<string, string>, extra = '') => {
      mkdirSync(join(tmp, name, 'meta'), { recursive: true });
      for (const [file, text] of Object.entries(files)) writeFileSync(join(tmp, name, 'meta', file), text);
      writeFileSync(
        join(tmp, name, 'objectql.config.yml'),
        `host: 127.0.0.1\nlogLevel: info\nmetadata: [./meta]\ndatasources: {default: {driver: memory}}\nplugins: {rpc: true}\n${extra}`,
      );
    };
    const invoice = 'fields:\n  amount: number\n';
    app('near-miss', {
      'invoice.object.yml': invoice,
      'invoice.permissions.yml': 'permissions:\n  - {profile: accountant, allow_read: true}\n',
    });
    app('undeclared', { 'invoice.object.yml': invoice, 'ops.dashboard.yml': 'label: Operations\n' });
    app('declared', { 'invoice.object.yml': invoice, 'ops.dashboard.yml': 'label: Operations\n' }, 'metadataTypes: [dashboard]\n');
    // The sample config itself, on an in-memory store: its JWT secret falls back to the public one.
    writeFileSync(
      join(tmp, 'sample.config.ts'),
      [
        `import sample from ${JSON.stringify(join(ROOT, 'objectql.config.ts'))};`,
        'export default {',
        '  ...sample,',
        "  host: '127.0.0.1',",
        `  metadata: [${JSON.stringify(join(ROOT, 'metadata'))}],`,
        "  datasources: { default: { driver: 'memory' } },",
        '  plugins: { ...sample.plugins, files: false },',
        '};',
      ].join('\n'),
    );
  });
  after(() => tmp && rmSync(tmp, { recursive: true, force: true }));

  it('exits 1 on a metadata file one letter off its type, naming the file and the name meant', async () => {
    const { code, stderr } = await serve(['--config', join(tmp, 'near-miss', 'objectql.config.yml')], { NODE_ENV: 'production' });
    expect(code, stderr).to.equal(1);
    expect(stderr)
      .to.include(`${join(tmp, 'near-miss', 'meta', 'invoice.permissions.yml')}: 'permissions' is not a metadata type`)
      .and.include("did you mean 'permission' (invoice.permission.yml)?");
    expect(stderr).not.to.include('    at '); // a message, not a stack trace
  });

  it('exits 1 on an undeclared custom type, telling how to declare it; starts once it is declared', async () => {
    const refused = await serve(['--config', join(tmp, 'undeclared', 'objectql.config.yml')], { NODE_ENV: 'production' });
    expect(refused.code, refused.stderr).to.equal(1);
    expect(refused.stderr).to.include("ops.dashboard.yml: unknown metadata type 'dashboard'").and.include("metadataTypes: ['dashboard']");
    const declared = await serve(['--config', join(tmp, 'declared', 'objectql.config.yml')], { NODE_ENV: 'production' });
    expect(declared.code, declared.output).to.equal(0);
  });

  for (const env of ['production', undefined]) {
    it(`exits 1 on the sample config's public JWT secret when NODE_ENV is ${env ?? 'not set'}`, async () => {
      const { code, stderr } = await serve(['--config', join(tmp, 'sample.config.ts')], { NODE_ENV: env });
      expect(code, stderr).to.equal(1);
      expect(stderr)
        .to.include("objectql: Plugin 'auth': jwt.secret is the public development secret")
        .and.include('set OBJECTQL_JWT_SECRET (or jwt.secret) to a secret of your own');
      expect(stderr).not.to.include('    at ');
    });
  }

  it('starts the sample config in development, warning loudly; with OBJECTQL_JWT_SECRET set it starts anywhere, quietly', async () => {
    const dev = await serve(['--config', join(tmp, 'sample.config.ts')], { NODE_ENV: 'development' });
    expect(dev.code, dev.output).to.equal(0);
    const warning = dev.output.split('\n').find((l) => l.includes('public development secret'));
    expect(warning, dev.output).to.be.a('string');
    expect(JSON.parse(warning!)).to.include({ level: 40 }); // pino's warn
    expect(warning).to.include('admin included');
    const own = await serve(['--config', join(tmp, 'sample.config.ts')], {
      NODE_ENV: 'production',
      OBJECTQL_JWT_SECRET: 'an-operator-secret-of-at-least-32-characters',
    });
    expect(own.code, own.output).to.equal(0);
    expect(own.output).not.to.include('public development secret');
  });
});
