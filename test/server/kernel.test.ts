/**
 * The assembled server (server/: the kernel with its built-in plugins and drivers): two kernels in
 * one process, a data hook failing behind JSON-RPC, the rpc plugin in the discovery document, and a
 * third-party plugin loaded from a config by path next to a built-in one, and kernels started with
 * metadata loaded beforehand. What the kernel does alone is tested in test/kernel/kernel.test.ts.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createKernel, loadConfigFile, type Kernel, type ObjectQLConfig } from '../../server';
import { MetadataRegistry } from '../../kernel/metadata';
import { startServer, type TestServer } from '../helpers/server';

const BASE = { port: 0, host: '127.0.0.1', logLevel: 'silent', datasources: { default: { driver: 'memory' } } } as const;
const ADMIN = { id: 'root', roles: ['admin'] };

describe('server: kernel with built-in plugins', () => {
  let tmp: string;
  const write = (rel: string, text: string): string => {
    const file = join(tmp, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  };

  before(() => {
    tmp = mkdtempSync(join(tmpdir(), 'objectql-server-'));
    write('app-a/item.object.yml', 'fields:\n  title: {type: text, required: true}\n');
    write('app-a/alpha.object.yml', 'fields:\n  name: text\n');
    write('app-a/alpha.data.yml', '- {id: a-1, name: only in A}\n');
    write('app-b/item.object.yml', 'fields:\n  title: {type: text, required: true}\n  size: number\n');
    write('app-b/beta.object.yml', 'fields:\n  name: text\n');
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  describe('two kernels in one process', () => {
    let a: TestServer;
    let b: TestServer;
    before(async () => {
      const config = (app: string, rpc: string): ObjectQLConfig => ({
        metadata: [join(tmp, app)],
        routes: { rpc },
        security: { allowBodyUser: true },
      });
      [a, b] = await Promise.all([startServer(config('app-a', '/a/rpc')), startServer(config('app-b', '/b/rpc'))]);
    });
    after(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
    });

    it('serve at once, each with its own objects, routes and records', async () => {
      expect(a.url).to.not.equal(b.url);
      const made = await a.rpc({ op: 'create', object: 'item', args: { id: 'it-1', title: 'made in A' }, user: ADMIN });
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
      expect((await a.rpc({ op: 'findOne', object: 'item', args: 'it-1', user: ADMIN })).body.title).to.equal('made in A');

      const inB = await b.rpc({ op: 'findOne', object: 'item', args: 'it-1', user: ADMIN });
      expect(inB.status).to.equal(404);
      expect((await b.rpc({ op: 'count', object: 'item', args: {}, user: ADMIN })).body.count).to.equal(0);
      const madeInB = await b.rpc({ op: 'create', object: 'item', args: { title: 'made in B', size: 2 }, user: ADMIN });
      expect(madeInB.body.size).to.equal(2);
      expect((await a.rpc({ op: 'count', object: 'item', args: {}, user: ADMIN })).body.count).to.equal(1);
      // B's item has `size`, A's does not.
      expect((await a.rpc({ op: 'find', object: 'item', args: { fields: ['size'] }, user: ADMIN })).status).to.equal(400);

      for (const [server, foreign, own] of [
        [a, 'beta', 'alpha'],
        [b, 'alpha', 'beta'],
      ] as const) {
        const res = await server.rpc({ op: 'find', object: foreign, args: {}, user: ADMIN });
        expect(res.status).to.equal(404);
        expect(res.body.error).to.deep.include({ code: 'NOT_FOUND' });
        expect(res.body.error.message).to.include(foreign);
        expect((await server.rpc({ op: 'count', object: own, args: {}, user: ADMIN })).status).to.equal(200);
      }
      expect((await a.rpc({ op: 'findOne', object: 'alpha', args: 'a-1', user: ADMIN })).body.name).to.equal('only in A');
      // Each kernel answers on its own prefix only.
      expect((await a.request('POST', '/b/rpc', { op: 'count', object: 'item', args: {} })).status).to.equal(404);
      expect(a.kernel.registry).to.not.equal(b.kernel.registry);
    });
  });

  describe('plugins', () => {
    it('names the hook and the plugin when a data hook tap fails, without leaking the cause', async () => {
      const k = await createKernel({ ...BASE, metadata: [join(tmp, 'app-a')], security: { allowBodyUser: true } });
      k.use({
        name: 'broken-audit',
        register: (kk) => kk.hooks.beforeCreate.for('item').tapPromise('broken-audit', () => Promise.reject(new Error('secret detail'))),
      });
      await k.start();
      try {
        const res = await fetch(`${k.http.url}/api/objectql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ op: 'create', object: 'item', args: { title: 'x' }, user: ADMIN }),
        });
        const body = (await res.json()) as any;
        expect(res.status).to.equal(500);
        expect(body.error.code).to.equal('INTERNAL_ERROR');
        expect(body.error.message).to.include('beforeCreate').and.include('broken-audit');
        expect(JSON.stringify(body)).to.not.include('secret detail');
        expect(await k.engine.repo('item', { system: true }).count()).to.equal(0);
      } finally {
        await k.stop();
      }
    });
  });

  describe('HTTP host', () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ metadata: [join(tmp, 'app-a')] });
    });
    after(async () => {
      await server?.stop();
    });

    it('lists the rpc capability at /.well-known/objectql', async () => {
      const discovery = await server.request('GET', '/.well-known/objectql');
      expect(discovery.status).to.equal(200);
      expect(discovery.body.routes.rpc).to.equal('/api/objectql');
      const rpc = discovery.body.capabilities.find((c: any) => c.plugin === 'rpc');
      expect(rpc).to.deep.include({ protocol: 'json-rpc', routes: ['POST /api/objectql'] });
      expect(rpc.ops).to.include.members(['find', 'create', 'deleteMany']);
    });
  });

  describe('a third-party plugin loaded from the config by path', () => {
    let kernel: Kernel | undefined;
    after(async () => {
      await kernel?.stop();
    });

    it('adds a route and sees every create', async () => {
      write('third/meta/note.object.yml', 'fields:\n  text: text\n');
      write(
        'third/plugins/hello.plugin.ts',
        [
          '// No imports: a plugin is a plain factory.',
          'type Res = { json(body: unknown): void };',
          'type Router = { get(path: string, handler: (req: unknown, res: Res) => void): void };',
          'export default (options: { greeting?: string }) => {',
          '  const created: Array<{ object: string; id?: string; by?: string }> = [];',
          '  return {',
          "    name: 'hello',",
          "    dependsOn: ['rpc'],",
          '    register(kernel: any) {',
          "      kernel.hooks.routes.tapPromise('hello', async (router: Router) => {",
          "        router.get('/hello', (_req, res) => res.json({ greeting: options.greeting, created }));",
          '      });',
          "      kernel.hooks.afterCreate.for('*').tapPromise('hello', async (ctx: any) => {",
          '        created.push({ object: ctx.object, id: ctx.id, by: ctx.user?.id });',
          '      });',
          "      kernel.hooks.capabilities.tap('hello', (list: unknown[]) => [...list, { plugin: 'hello', routes: ['GET /hello'] }]);",
          '    },',
          '  };',
          '};',
        ].join('\n'),
      );
      const file = write(
        'third/objectql.config.yml',
        [
          'metadata: [./meta]',
          'security: {allowBodyUser: true}',
          'plugins:',
          '  rpc: true',
          '  ./plugins/hello.plugin.ts: {greeting: hi there}',
        ].join('\n'),
      );
      kernel = await createKernel({ ...(await loadConfigFile(file)), ...BASE });
      await kernel.start();
      const url = kernel.http.url;

      const before = await (await fetch(`${url}/hello`)).json();
      expect(before).to.deep.equal({ greeting: 'hi there', created: [] });
      const res = await fetch(`${url}/api/objectql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ op: 'create', object: 'note', args: { id: 'n-1', text: 'hello' }, user: { id: 'dana', roles: [] } }),
      });
      expect(res.status).to.equal(200);
      const after = (await (await fetch(`${url}/hello`)).json()) as any;
      expect(after.created).to.deep.equal([{ object: 'note', id: 'n-1', by: 'dana' }]);
      const discovery = (await (await fetch(`${url}/.well-known/objectql`)).json()) as any;
      expect(discovery.capabilities.map((c: any) => c.plugin)).to.deep.equal(['rpc', 'hello']);
    });
  });

  describe('metadata loaded beforehand (KernelOptions.registry, what objectql dev uses)', () => {
    it('serves the given registry instead of its folders, one kernel after another', async () => {
      const registry = await MetadataRegistry.load([join(tmp, 'app-b')]);
      for (let round = 0; round < 2; round++) {
        const k = await createKernel({ ...BASE, metadata: [join(tmp, 'app-a')] }, { registry });
        await k.start();
        try {
          expect(k.registry).to.equal(registry);
          expect(k.registry.object('beta'), 'from app-b').to.not.equal(undefined);
          expect(k.registry.object('alpha'), 'from app-a').to.equal(undefined);
          expect(await k.engine.repo('item', { system: true }).create({ title: 't', size: round })).to.include({ size: round });
        } finally {
          await k.stop();
        }
      }
    });
  });
});
