/**
 * The kernel alone (no built-in plugin, no driver): the plugin lifecycle, hook failures, config
 * loading and validation, malformed metadata, a plugin path that does not exist, and the HTTP
 * host's own routes. The same with built-in plugins is test/server/kernel.test.ts.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError, HookError, Kernel, loadConfigFile, MetadataError, PluginError, type Plugin } from '../../kernel';
import { startBareKernel, type BareKernel } from './bare-kernel';

// No datasources: nothing here stores a record, so no driver is needed.
const BASE = { port: 0, host: '127.0.0.1', logLevel: 'silent', datasources: {} } as const;

describe('kernel', () => {
  let tmp: string;
  const write = (rel: string, text: string): string => {
    const file = join(tmp, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  };
  /** Fails the test unless fn rejects; returns the error. */
  const rejection = async (fn: () => Promise<unknown>): Promise<any> => {
    try {
      await fn();
    } catch (err) {
      return err;
    }
    expect.fail('expected a rejection');
  };
  /** Fails the test unless fn throws; returns the error. */
  const throws = (fn: () => unknown): any => {
    try {
      fn();
    } catch (err) {
      return err;
    }
    expect.fail('expected a throw');
  };

  before(() => {
    tmp = mkdtempSync(join(tmpdir(), 'objectql-kernel-'));
    write('empty/README.md', 'no metadata here\n');
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  describe('plugins', () => {
    const plugin = (name: string, log: string[], extra: Partial<Plugin> = {}): Plugin => ({
      name,
      register: () => void log.push(`register ${name}`),
      start: () => void log.push(`start ${name}`),
      stop: () => void log.push(`stop ${name}`),
      ...extra,
    });
    // No objects and no datasources: the lifecycle alone, with no driver plugin.
    const kernel = () => new Kernel({ ...BASE, metadata: [join(tmp, 'empty')], plugins: {} });

    it('refuses a second plugin of the same name', () => {
      const k = kernel().use(plugin('audit', []));
      const err = throws(() => k.use(plugin('audit', [])));
      expect(err).to.be.instanceOf(PluginError);
      expect(err.message).to.include("'audit' is already registered");
    });

    it('fails start-up naming the plugin and its missing dependency', async () => {
      const log: string[] = [];
      const k = kernel().use(plugin('reports', log, { dependsOn: ['ghost'] }));
      const err = await rejection(() => k.start());
      expect(err).to.be.instanceOf(PluginError);
      expect(err.message).to.include("'reports'").and.include("'ghost'");
      expect(log).to.deep.equal([]);
      expect(k.isStarted).to.equal(false);
    });

    it('registers and starts in dependency order, stops in reverse, and refuses plugins after start', async () => {
      const log: string[] = [];
      const k = kernel()
        .use(plugin('c', log, { dependsOn: ['b'] }))
        .use(plugin('b', log, { dependsOn: ['a'] }))
        .use(plugin('a', log))
        .use(plugin('d', log));
      await k.start();
      try {
        expect(k.isStarted).to.equal(true);
        expect(log).to.deep.equal(['register a', 'register b', 'register c', 'register d', 'start a', 'start b', 'start c', 'start d']);
        const err = throws(() => k.use(plugin('late', log)));
        expect(err).to.be.instanceOf(PluginError);
        expect(err.message).to.include('after the kernel has started').and.include('late');
      } finally {
        await k.stop();
      }
      expect(log.slice(8)).to.deep.equal(['stop d', 'stop c', 'stop b', 'stop a']);
    });

    it('names the hook and the plugin when a lifecycle tap fails', async () => {
      const k = kernel().use({
        name: 'flaky',
        register: (kk) => kk.hooks.start.tapPromise('flaky', () => Promise.reject(new Error('disk on fire'))),
      });
      const err = await rejection(() => k.start());
      expect(err).to.be.instanceOf(HookError);
      expect(err.hook).to.equal('start');
      expect(err.tap).to.equal('flaky');
      expect(err.message).to.equal('Hook start failed in flaky: disk on fire');
      expect(k.isStarted).to.equal(false);
    });
  });

  describe('configuration', () => {
    it("loads .ts, .js, .mjs, .json and .yml files, resolving paths against the file's folder", async () => {
      const files = {
        ts: write('cfg/ts/objectql.config.ts', "const port: number = 4101;\nexport default { port, metadata: ['./meta'] };\n"),
        js: write('cfg/js/objectql.config.js', "module.exports = async () => ({ port: 4102, metadata: ['./meta'] });\n"),
        mjs: write('cfg/mjs/objectql.config.mjs', "export default { port: 4103, metadata: ['./meta'] };\n"),
        json: write('cfg/json/objectql.config.json', '{"port": 4104, "metadata": ["./meta"]}'),
        yml: write('cfg/yml/objectql.config.yml', 'port: 4105\nmetadata: [./meta]\nroutes: {rpc: /v2/rpc}\n'),
      };
      const ports = { ts: 4101, js: 4102, mjs: 4103, json: 4104, yml: 4105 };
      for (const [ext, file] of Object.entries(files) as Array<[keyof typeof ports, string]>) {
        const config = await loadConfigFile(file);
        expect(config.port, ext).to.equal(ports[ext]);
        expect(config.baseDir, ext).to.equal(join(tmp, 'cfg', ext));
        expect(config.metadata, ext).to.deep.equal([join(tmp, 'cfg', ext, 'meta')]);
        expect(config.routes.rpc, ext).to.equal(ext === 'yml' ? '/v2/rpc' : '/api/objectql');
        expect(config.routes.data, ext).to.equal('/api/data');
        expect(config.security).to.deep.include({ adminRoles: ['admin'], allowBodyUser: false, cors: false, headers: true, hsts: false });
        expect(config.security.websocketOrigins).to.deep.equal([]);
      }
    });

    it('rejects invalid configs naming the key', async () => {
      const cases: Array<[string, string, string]> = [
        ['port.json', '{"port": "abc"}', '- port:'],
        ['routes.yml', 'routes:\n  rpc: no-slash\n', '- routes.rpc: must be a path of plain segments starting with "/"'],
        ['unknown.json', '{"port": 1, "bogus": true}', "'bogus'"],
        ['plugins.json', '{"plugins": {"rpc": 5}}', '- plugins.rpc:'],
        ['limits.yml', 'limits:\n  maxTop: -1\n', '- limits.maxTop:'],
      ];
      for (const [name, text, expected] of cases) {
        const file = write(`bad-config/${name}`, text);
        const err = await rejection(() => loadConfigFile(file));
        expect(err, name).to.be.instanceOf(ConfigError);
        expect(err.message, name).to.include(file).and.include(expected);
      }
      const missing = await rejection(() => loadConfigFile(join(tmp, 'nope.json')));
      expect(missing.message).to.include('Config file not found');
      const direct = throws(() => new Kernel({ port: 'abc' } as never));
      expect(direct).to.be.instanceOf(ConfigError);
      expect(direct.message).to.include('port');
    });

    it('stops start-up on a malformed metadata file, naming the file and the path inside it', async () => {
      const file = write('bad-meta/gadget.object.yml', 'fields:\n  title:\n    type: nosuchtype\n');
      const k = new Kernel({ ...BASE, metadata: [dirname(file)] });
      const err = await rejection(() => k.start());
      expect(err).to.be.instanceOf(MetadataError);
      expect(err.file).to.equal(file);
      expect(err.path).to.equal('fields.title.type');
      expect(err.message).to.include(file).and.include('fields.title.type').and.include('nosuchtype');
      expect(k.isStarted).to.equal(false);
    });

    it('fails start-up naming a plugin path that does not exist', async () => {
      const err = await rejection(async () =>
        new Kernel({
          ...BASE,
          baseDir: tmp,
          metadata: [join(tmp, 'empty')],
          plugins: { './missing-plugin.ts': true },
        }).useConfiguredPlugins(),
      );
      expect(err).to.be.instanceOf(PluginError);
      expect(err.message).to.include('./missing-plugin.ts');
    });
  });

  it('serve: false starts without binding a port; logBindings are on every log line', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const kernel = new Kernel(
      { ...BASE, logLevel: 'info', metadata: [] },
      {
        serve: false,
        logBindings: { thread: 'events-dispatch' },
        logDestination: { write: (line: string) => lines.push(JSON.parse(line)) },
      },
    );
    await kernel.start();
    try {
      expect(kernel.serves).to.equal(false);
      expect(() => kernel.http.url).to.throw('HTTP server is not listening');
      const started = lines.find((l) => l.msg === 'ObjectQL started');
      expect(started).to.include({ thread: 'events-dispatch' });
      expect(started).to.not.have.property('url');
      expect(lines.every((l) => l.thread === 'events-dispatch')).to.equal(true);
    } finally {
      await kernel.stop();
    }
  });

  describe('HTTP host', () => {
    let server: BareKernel;
    before(async () => {
      server = await startBareKernel({}, [
        {
          name: 'reports',
          register: (k) => k.hooks.capabilities.tap('reports', (list) => [...list, { plugin: 'reports', routes: ['GET /reports'] }]),
        },
      ]);
    });
    after(async () => {
      await server?.stop();
    });

    it('answers /health with 200 and lists the routes and the capabilities plugins declare at /.well-known/objectql', async () => {
      const health = await server.request('GET', '/health');
      expect(health.status).to.equal(200);
      expect(health.body).to.deep.equal({ status: 'ok' });
      const discovery = await server.request('GET', '/.well-known/objectql');
      expect(discovery.status).to.equal(200);
      expect(discovery.body.routes.rpc).to.equal('/api/objectql');
      expect(discovery.body.capabilities).to.deep.equal([{ plugin: 'reports', routes: ['GET /reports'] }]);
    });

    it('answers an unknown route with 404 in the error shape', async () => {
      const res = await server.request('GET', '/no/such/route');
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.equal({ error: { code: 'NOT_FOUND', message: 'No route for GET /no/such/route' } });
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
    });

    it('echoes X-Request-Id, and generates one when absent or unusable', async () => {
      const given = await server.request('GET', '/health', undefined, { 'X-Request-Id': 'trace-42.a:b' });
      expect(given.headers.get('x-request-id')).to.equal('trace-42.a:b');
      const onError = await server.request('GET', '/missing', undefined, { 'X-Request-Id': 'err-7' });
      expect(onError.headers.get('x-request-id')).to.equal('err-7');
      const generated = [
        await server.request('GET', '/health'),
        await server.request('GET', '/health', undefined, { 'X-Request-Id': 'has spaces' }),
      ].map((r) => r.headers.get('x-request-id'));
      for (const id of generated) expect(id).to.match(/^[0-9a-f-]{36}$/);
      expect(generated[0]).to.not.equal(generated[1]);
    });
  });
});
