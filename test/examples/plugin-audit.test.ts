/**
 * examples/plugin-audit, the third-party plugin shipped as its own package: loaded from a config
 * by path and by package name, over real HTTP against the sample application.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createKernel, type Kernel, type ObjectQLConfig } from '../../server';
import { SAMPLE_METADATA, USERS } from '../helpers/server';

const ROOT = resolve(__dirname, '../..');
const PLUGIN_DIR = join(ROOT, 'examples/plugin-audit');
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Server {
  kernel: Kernel;
  rpc(body: unknown, requestId?: string): Promise<{ status: number; body: any }>;
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  /** The log's entries without their timestamps (checked to be ISO timestamps, newest first). */
  entries(query?: string, path?: string): Promise<unknown[]>;
}

/** A kernel made from a config object (plugins named by path or package), extra plugins, started. */
async function start(config: ObjectQLConfig, extra: (k: Kernel) => void = () => {}): Promise<Server> {
  const kernel = await createKernel({
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
    metadata: [SAMPLE_METADATA],
    datasources: { default: { driver: 'memory' } },
    security: { allowBodyUser: true },
    ...config,
  });
  extra(kernel);
  await kernel.start();
  const url = kernel.http.url;
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(url + path, init);
    return { status: res.status, body: (await res.json()) as any };
  };
  const get: Server['get'] = (path, headers = {}) => call(path, { headers });
  return {
    kernel,
    get,
    rpc: (body, requestId) =>
      call(kernel.http.routes.rpc, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...(requestId ? { 'x-request-id': requestId } : {}) },
      }),
    async entries(query = '', path = '/api/audit') {
      const res = await get(path + query);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const stamps = res.body.items.map((e: { at: string }) => e.at);
      for (const at of stamps) expect(at).to.match(ISO);
      expect(stamps).to.deep.equal([...stamps].sort().reverse());
      return res.body.items.map(({ at: _at, ...rest }: { at: string }) => rest);
    },
  };
}

const byPath = (options: Record<string, unknown> = { path: '/api/audit' }): ObjectQLConfig => ({
  baseDir: ROOT,
  plugins: { rpc: true, './examples/plugin-audit': options },
});

describe('examples/plugin-audit', () => {
  describe('loaded by path, with JSON-RPC writes', () => {
    let server: Server;
    const carol = USERS.carol;
    before(async () => {
      server = await start(byPath(), (k) => {
        // Runs after the audit tap on '*': rolls back a write whose after hooks already ran.
        k.use({
          name: 'veto',
          register: (kk) =>
            kk.hooks.afterCreate
              .for('account')
              .tapPromise('veto', (ctx) =>
                ctx.data?.name === 'Vetoed' ? Promise.reject(Object.assign(new Error('vetoed'), { code: 'CONFLICT' })) : Promise.resolve(),
              ),
        });
      });
    });
    after(() => server?.kernel.stop());

    it('starts empty: initial data is not audited', async () => {
      expect(await server.entries()).to.deep.equal([]);
      expect((await server.get('/api/audit')).body.total).to.equal(0);
    });

    it('writes one entry per create, update and delete, newest first, with exact changes', async () => {
      const ok = async (body: object, id: string) => {
        const res = await server.rpc(body, id);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
      };
      await ok({ op: 'create', object: 'project', args: { id: 'prj-audit', name: 'Audit', budget: 1000 }, user: carol }, 'r1');
      // `name` is sent unchanged: only budget changed.
      await ok({ op: 'update', object: 'project', args: { id: 'prj-audit', data: { budget: 2000, name: 'Audit' } }, user: carol }, 'r2');
      // expense.hook.ts updates the project's actual_cost inside the same transaction.
      await ok({ op: 'create', object: 'expense', args: { id: 'exp-audit', project: 'prj-audit', amount: 50 }, user: carol }, 'r3');
      await ok({ op: 'create', object: 'task', args: { id: 'tsk-audit', project: 'prj-audit', title: 'Check' }, user: USERS.admin }, 'r4');
      // Deleting the master deletes its details (as the system, on carol's behalf).
      await ok({ op: 'delete', object: 'project', args: { id: 'prj-audit' }, user: carol }, 'r5');

      const entry = (object: string, type: string, id: string, user: string, changes: string[], requestId: string) => ({
        object,
        type,
        id,
        user,
        changes,
        requestId,
      });
      expect(await server.entries()).to.deep.equal([
        entry('project', 'deleted', 'prj-audit', 'carol', [], 'r5'),
        entry('task', 'deleted', 'tsk-audit', 'carol', [], 'r5'),
        entry('expense', 'deleted', 'exp-audit', 'carol', [], 'r5'),
        entry('project', 'updated', 'prj-audit', 'carol', ['actual_cost'], 'r5'),
        entry('task', 'created', 'tsk-audit', 'root', ['assignee', 'done', 'project', 'status', 'title'], 'r4'),
        entry('expense', 'created', 'exp-audit', 'carol', ['amount', 'category', 'project'], 'r3'),
        entry('project', 'updated', 'prj-audit', 'carol', ['actual_cost'], 'r3'),
        entry('project', 'updated', 'prj-audit', 'carol', ['budget'], 'r2'),
        entry('project', 'created', 'prj-audit', 'carol', ['budget', 'code', 'name', 'owner', 'priority', 'status'], 'r1'),
      ]);
    });

    it('filters by ?object= and caps ?limit=', async () => {
      const all = await server.entries();
      expect(await server.entries('?object=task')).to.deep.equal(all.filter((e: any) => e.object === 'task'));
      expect(await server.entries('?object=project&limit=2')).to.deep.equal(all.filter((e: any) => e.object === 'project').slice(0, 2));
      expect((await server.get('/api/audit?object=project&limit=2')).body.total).to.equal(5);
      expect(await server.entries('?object=nothing')).to.deep.equal([]);
      expect(await server.entries('?limit=1000000')).to.deep.equal(all);
      for (const bad of ['?limit=0', '?limit=abc', '?limit=-1', '?limit=1&limit=2', '?object=a&object=b']) {
        const res = await server.get(`/api/audit${bad}`);
        expect(res.status, bad).to.equal(400);
        expect(res.body.error.code, bad).to.equal('INVALID_REQUEST');
      }
    });

    it('leaves out writes that failed or were rolled back after the after hooks ran', async () => {
      const count = (await server.entries()).length;
      const invalid = await server.rpc({ op: 'create', object: 'project', args: { name: 'Bad', budget: -1 }, user: carol });
      expect(invalid.status).to.equal(400);
      const vetoed = await server.rpc({ op: 'create', object: 'account', args: { name: 'Vetoed' }, user: carol });
      expect(vetoed.status).to.equal(409);
      expect(
        (await server.rpc({ op: 'count', object: 'account', args: { filters: [['name', '=', 'Vetoed']] }, user: carol })).body.count,
      ).to.equal(0);
      expect(await server.entries()).to.have.length(count);
      await server.rpc({ op: 'create', object: 'account', args: { id: 'acc-audit', name: 'Kept' } }, 'r6');
      expect(await server.entries('?limit=1')).to.deep.equal([
        { object: 'account', type: 'created', id: 'acc-audit', user: null, changes: ['active', 'name'], requestId: 'r6' },
      ]);
    });

    it('lists its capability at the discovery route', async () => {
      const discovery = await server.get('/.well-known/objectql');
      expect(discovery.body.capabilities.map((c: any) => c.plugin)).to.deep.equal(['rpc', 'audit']);
      expect(discovery.body.capabilities[1]).to.deep.include({ plugin: 'audit', routes: ['GET /api/audit'] });
    });
  });

  describe('loaded by package name from node_modules', () => {
    let tmp: string;
    let server: Server | undefined;
    before(() => {
      tmp = mkdtempSync(join(tmpdir(), 'objectql-audit-'));
      mkdirSync(join(tmp, 'node_modules'));
      symlinkSync(PLUGIN_DIR, join(tmp, 'node_modules', 'objectql-plugin-audit'), 'dir');
    });
    after(async () => {
      await server?.kernel.stop();
      rmSync(tmp, { recursive: true, force: true });
    });

    it('serves on the configured path and records writes', async () => {
      server = await start({ baseDir: tmp, plugins: { rpc: true, 'objectql-plugin-audit': { path: '/audit-log/' } } });
      expect(
        (await server.rpc({ op: 'create', object: 'account', args: { id: 'acc-pkg', name: 'By Package' }, user: USERS.carol }, 'p1'))
          .status,
      ).to.equal(200);
      expect(await server.entries('', '/audit-log')).to.deep.equal([
        { object: 'account', type: 'created', id: 'acc-pkg', user: 'carol', changes: ['active', 'name'], requestId: 'p1' },
      ]);
      expect((await server.get('/api/audit')).status).to.equal(404);
    });
  });

  it("serves under the instance's basePath, as every door does", async () => {
    const server = await start({ ...byPath(), basePath: '/v2' });
    try {
      expect(
        (await server.rpc({ op: 'create', object: 'account', args: { id: 'acc-v2', name: 'Moved' }, user: USERS.carol })).status,
      ).to.equal(200);
      expect((await server.entries('', '/v2/api/audit')).map((e: any) => e.id)).to.deep.equal(['acc-v2']);
      expect((await server.get('/api/audit')).status).to.equal(404);
      const { capabilities } = (await server.get('/v2/.well-known/objectql')).body;
      expect(capabilities.find((c: { plugin: string }) => c.plugin === 'audit').routes).to.deep.equal(['GET /v2/api/audit']);
    } finally {
      await server.kernel.stop();
    }
  });

  describe('two kernels, each with the plugin', () => {
    let a: Server;
    let b: Server;
    before(async () => {
      [a, b] = await Promise.all([start(byPath({ maxLimit: 2 })), start({ ...byPath(), routes: { rpc: '/b/rpc' } })]);
    });
    after(async () => {
      await Promise.all([a?.kernel.stop(), b?.kernel.stop()]);
    });

    it('keep separate logs', async () => {
      for (const name of ['One', 'Two', 'Three']) {
        expect((await a.rpc({ op: 'create', object: 'account', args: { id: `acc-${name}`, name }, user: USERS.carol })).status).to.equal(
          200,
        );
      }
      expect((await b.rpc({ op: 'delete', object: 'account', args: { id: 'acc-acme' }, user: USERS.admin }, 'b1')).status).to.equal(200);
      // maxLimit 2 on A: the third entry is there (total) but one response holds two.
      const inA = await a.get('/api/audit?limit=50');
      expect(inA.body.total).to.equal(3);
      expect(inA.body.items.map((e: any) => e.id)).to.deep.equal(['acc-Three', 'acc-Two']);
      expect(await b.entries()).to.deep.equal([
        { object: 'account', type: 'deleted', id: 'acc-acme', user: 'root', changes: [], requestId: 'b1' },
      ]);
    });
  });

  describe('options', () => {
    it('restricts reading to `roles`: 401 anonymous, 403 without the role', async () => {
      const server = await start(byPath({ roles: ['auditor'] }), (k) => {
        k.use({
          name: 'header-auth',
          register: (kk) =>
            kk.hooks.authenticate.tapPromise('header-auth', (req) => {
              const roles = req.headers['x-roles'];
              return Promise.resolve(roles === undefined ? undefined : { id: 'someone', roles: roles.split(',') });
            }),
        });
      });
      try {
        expect((await server.get('/api/audit')).body.error.code).to.equal('UNAUTHORIZED');
        const denied = await server.get('/api/audit', { 'x-roles': 'manager' });
        expect(denied.status).to.equal(403);
        expect(denied.body.error.code).to.equal('FORBIDDEN');
        expect(await server.get('/api/audit', { 'x-roles': 'manager,auditor' })).to.deep.equal({
          status: 200,
          body: { items: [], total: 0 },
        });
      } finally {
        await server.kernel.stop();
      }
    });

    it('rejects bad options when the config is loaded, naming the option', async () => {
      for (const [options, expected] of [
        [{ path: 'audit' }, "option 'path'"],
        [{ maxLimit: 0 }, "option 'maxLimit'"],
        [{ colour: 'red' }, "'colour'"],
      ] as const) {
        let error: Error | undefined;
        await createKernel({ logLevel: 'silent', ...byPath(options) }).catch((err: Error) => {
          error = err;
        });
        expect(error?.message, JSON.stringify(options)).to.include(expected);
      }
    });
  });
});
