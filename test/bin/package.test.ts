/**
 * objectql as a dependency, the way a new user meets it: `npm pack`, the tarball installed into an
 * empty folder from the registry's packages (npm's cache), `npx objectql init my-app`, `npm start`
 * there and requests with the keys init printed; and a third-party plugin and driver type-checked
 * against the installed package's types. Nothing of this repository is used but the tarball, and
 * better-sqlite3's native build: it is copied from this checkout (same Node, same platform) rather
 * than compiled again, which would take a minute of CI.
 */
import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { freePort } from '../helpers/free-port';
import { diagnosticText, typeChecker } from '../helpers/type-check';

const ROOT = resolve(__dirname, '../..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function sh(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

describe('objectql as an installed package: npm pack, init, npm start', function () {
  this.timeout(240_000);
  let dir: string;
  let app: string;
  let server: ChildProcess | undefined;
  let output = '';

  before(function () {
    dir = mkdtempSync(join(tmpdir(), 'objectql-pack-'));
    const tarball = sh(NPM, ['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], ROOT).trim().split('\n').pop()!;
    app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
    sh(NPM, ['install', join(dir, tarball), '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock'], app);
    cpSync(join(ROOT, 'node_modules/better-sqlite3/build'), join(app, 'node_modules/better-sqlite3/build'), { recursive: true });
  });
  after(async () => {
    // npm start runs the server as a grandchild: its whole process group is stopped.
    if (server?.pid && server.exitCode === null) {
      const exited = new Promise((res) => server!.once('exit', res));
      process.kill(-server.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((res) => setTimeout(res, 10_000))]);
      if (server.exitCode === null) process.kill(-server.pid, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('ships the built code, its types and docs, and nothing of the repository besides', () => {
    const installed = join(app, 'node_modules/objectql');
    expect(readdirSync(installed).sort()).to.deep.equal(['CHANGELOG.md', 'LICENSE', 'README.md', 'bin', 'dist', 'docs', 'package.json']);
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { private?: boolean; bin: Record<string, string> };
    expect(pkg.private).to.equal(undefined);
    expect(pkg.bin).to.deep.equal({ objectql: 'bin/objectql.js' });
  });

  it('init makes an application that npm start serves, with the keys it printed', async () => {
    const printed = sh('npx', ['--no-install', 'objectql', 'init', 'my-app'], app);
    expect(printed).to.match(/^Created my-app: package\.json, \.gitignore, objectql\.config\.ts, metadata\/task\.object\.yml/);
    const adminKey = /admin\s+X-API-Key: (\S+)/.exec(printed)![1];
    const memberKey = /member\s+X-API-Key: (\S+)/.exec(printed)![1];
    const project = join(app, 'my-app');
    expect(readFileSync(join(project, 'objectql.config.ts'), 'utf8')).not.to.include(adminKey);

    const port = await freePort();
    server = spawn(NPM, ['start'], {
      cwd: project,
      env: { ...process.env, PORT: String(port), NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    server.stdout!.on('data', (d) => (output += d));
    server.stderr!.on('data', (d) => (output += d));
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ok = await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (server.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not serve:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const send = (key: string, method: string, path: string, body?: unknown) =>
      fetch(`${url}${path}`, {
        method,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, any> }));

    expect((await fetch(`${url}/api/data/task`)).status).to.equal(401);
    const byAdmin = await send(adminKey, 'POST', '/api/data/task', { title: "The admin's task" });
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).to.equal(201);
    const byMember = await send(memberKey, 'POST', '/api/data/task', { title: "The member's task", priority: 'high' });
    expect(byMember.status).to.equal(201);
    expect(byMember.body).to.include({ done: false, priority: 'high' });
    const invalid = await send(memberKey, 'POST', '/api/data/task', { priority: 'urgent' });
    expect(invalid.status).to.equal(400);
    expect(invalid.body.error.details.fields).to.have.keys('title', 'priority');
    const seenByMember = await send(memberKey, 'GET', '/api/data/task');
    expect(seenByMember.body.items.map((t: { title: string }) => t.title)).to.deep.equal(["The member's task"]);
    const seenByAdmin = await send(adminKey, 'GET', '/api/data/task');
    expect(seenByAdmin.body.meta.total).to.equal(2);

    // Studio ships built: its page, its script, and the sign-in it trades a key for.
    const page = await fetch(`${url}/studio`);
    expect(page.status).to.equal(200);
    const entry = /<script type="module" src="([^"]+)"/.exec(await page.text())![1];
    expect((await fetch(`${url}${entry}`)).status).to.equal(200);
    const session = await fetch(`${url}/api/auth/session`, { method: 'POST', headers: { 'x-api-key': memberKey } });
    expect(session.status).to.equal(201);
  });

  it('type-checks a third-party plugin and driver against the installed package, and refuses a wrong one', () => {
    const checkTypes = typeChecker({
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.Node16,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      types: [],
      // The plugin's own code is checked whole; a type the package's declarations could not
      // resolve would show there as an implicit any.
      skipLibCheck: true,
    });
    const check = (source: string) => {
      const file = join(app, `plugin-${Math.random().toString(36).slice(2)}.ts`);
      writeFileSync(file, source);
      return checkTypes([file]).map(diagnosticText);
    };
    const plugin = `import { definePlugin, ObjectQLError, type Datasource, type DriverFactory, type Kernel } from 'objectql';
import { routeOptions } from 'objectql/protocol';
import { createClient } from 'objectql/client';

export default definePlugin((options: { greeting?: string }) => ({
  name: 'hello',
  register(kernel: Kernel) {
    kernel.hooks.routes.tap('hello', (router) => {
      router.get(kernel.http.path('/hello'), (_req, res) => {
        res.json({ hello: options.greeting ?? 'world' });
      });
    });
    kernel.hooks.afterCreate.for('task').tapPromise('hello', async (ctx) => {
      if (!ctx.result) throw new ObjectQLError('INTERNAL_ERROR', 'no record');
    });
  },
}));

export const makeDriver: DriverFactory = (name): Datasource => {
  throw new Error(name);
};
export const parsed = routeOptions.parse({ path: '/x' });
export const client = createClient<{ task: { record: { id: string; title: string }; create: { title: string }; update: { title?: string } } }>({ url: 'http://x' });
`;
    expect(check(plugin)).to.deep.equal([]);
    const wrong = check(`import { definePlugin } from 'objectql';
export default definePlugin(() => ({ name: 'bad', register(kernel) { kernel.hooks.noSuchHook.tap('bad', () => {}); } }));
`);
    expect(wrong.join('\n')).to.match(/noSuchHook/);
  });
});
