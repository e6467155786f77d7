/**
 * Route prefixes (spec: "Route prefixes", "Versioning"): the defaults, custom prefixes, trailing
 * slashes, invalid prefixes, and two kernels with different prefixes in one process.
 *
 * Config checks alone: test/kernel/routes.test.ts.
 *
 * JSON-RPC is always covered. The REST and metadata API plugins are included when they exist in
 * this checkout (their routes move with `data` and `metadata`); otherwise only rpc is probed.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, createKernel, DEFAULT_ROUTES, type ObjectQLConfig } from '../../server';
import { startServer, USERS, type TestServer } from '../helpers/server';

const ROOT = resolve(__dirname, '../..');
const HAS_REST = existsSync(join(ROOT, 'plugins/rest/index.ts'));
const HAS_METADATA = existsSync(join(ROOT, 'plugins/metadata-api/index.ts'));
const PLUGINS = { rpc: true, ...(HAS_REST ? { rest: true } : {}), ...(HAS_METADATA ? { metadata: true } : {}) };
const SPEC_DEFAULTS = { rpc: '/api/objectql', data: '/api/data', metadata: '/api/metadata', files: '/api/files' };

type Routes = typeof SPEC_DEFAULTS;

/** One request per enabled protocol under the given prefixes, with its status. */
async function probe(server: TestServer, routes: Omit<Routes, 'files'>): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  // `account` has no permission file: open to anonymous callers of every protocol.
  statuses.rpc = (await server.request('POST', routes.rpc, { op: 'count', object: 'account', args: {} })).status;
  if (HAS_REST) statuses.data = (await server.request('GET', `${routes.data}/account?top=1`)).status;
  if (HAS_METADATA) statuses.metadata = (await server.request('GET', `${routes.metadata}/objects`)).status;
  return statuses;
}

const all = (status: number) => ({ rpc: status, ...(HAS_REST ? { data: status } : {}), ...(HAS_METADATA ? { metadata: status } : {}) });

describe(`route prefixes (rpc${HAS_REST ? ', rest' : ''}${HAS_METADATA ? ', metadata' : ''})`, () => {
  describe('without a routes key', () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ plugins: PLUGINS });
    });
    after(() => server?.stop());

    it("uses the spec's defaults in the config and at /.well-known/objectql", async () => {
      expect(DEFAULT_ROUTES).to.deep.equal(SPEC_DEFAULTS);
      expect(server.kernel.config.routes).to.deep.equal(SPEC_DEFAULTS);
      const discovery = await server.request('GET', '/.well-known/objectql');
      expect(discovery.body.routes).to.deep.equal(SPEC_DEFAULTS);
      const caps = Object.fromEntries(discovery.body.capabilities.map((c: any) => [c.plugin, c.routes]));
      expect(caps.rpc).to.deep.equal(['POST /api/objectql']);
      if (HAS_REST) expect(caps.rest).to.include('GET /api/data/:object');
      if (HAS_METADATA) expect(caps['metadata-api']).to.include('GET /api/metadata/objects');
    });

    it('serves every protocol under its default prefix', async () => {
      expect(await probe(server, SPEC_DEFAULTS)).to.deep.equal(all(200));
      expect((await server.rpc({ op: 'count', object: 'account', args: {} })).body).to.deep.equal({ count: 3, '@type': 'account' });
    });
  });

  describe('custom prefixes', () => {
    const custom = { rpc: '/v1/rpc', data: '/v1/data', metadata: '/v1/meta' };
    let server: TestServer;
    before(async () => {
      server = await startServer({ plugins: PLUGINS, routes: custom });
    });
    after(() => server?.stop());

    it('moves every route to the new prefix; the defaults answer 404', async () => {
      expect(server.kernel.config.routes).to.deep.equal({ ...custom, files: '/api/files' });
      expect(await probe(server, custom)).to.deep.equal(all(200));
      expect(await probe(server, SPEC_DEFAULTS)).to.deep.equal(all(404));
      const old = await server.request('POST', '/api/objectql', { op: 'count', object: 'account', args: {} });
      expect(old.body.error).to.deep.equal({ code: 'NOT_FOUND', message: 'No route for POST /api/objectql' });
    });

    it('lists the custom prefixes at /.well-known/objectql', async () => {
      const discovery = await server.request('GET', '/.well-known/objectql');
      expect(discovery.body.routes).to.deep.equal({ ...custom, files: '/api/files' });
      const caps = Object.fromEntries(discovery.body.capabilities.map((c: any) => [c.plugin, c.routes]));
      expect(caps.rpc).to.deep.equal(['POST /v1/rpc']);
      if (HAS_REST) for (const route of caps.rest) expect(route).to.match(/^[A-Z]+ \/v1\/data\//);
      if (HAS_METADATA) for (const route of caps['metadata-api']) expect(route).to.match(/^[A-Z]+ \/v1\/meta\//);
    });

    it('changes only the prefixes given', async () => {
      const only = await startServer({ plugins: PLUGINS, routes: { rpc: '/v1/rpc' } });
      try {
        expect(only.kernel.config.routes).to.deep.equal({ ...SPEC_DEFAULTS, rpc: '/v1/rpc' });
        expect(await probe(only, { ...SPEC_DEFAULTS, rpc: '/v1/rpc' })).to.deep.equal(all(200));
        expect((await only.request('POST', '/api/objectql', { op: 'count', object: 'account', args: {} })).status).to.equal(404);
      } finally {
        await only.stop();
      }
    });
  });

  describe('trailing slashes', () => {
    it('serve under the normalised prefix (with or without the slash in the request)', async () => {
      const server = await startServer({ plugins: PLUGINS, routes: { rpc: '/v1/rpc/', data: '/v1/data/', metadata: '/v1/meta//' } });
      try {
        const routes = { rpc: '/v1/rpc', data: '/v1/data', metadata: '/v1/meta' };
        expect((await server.request('GET', '/.well-known/objectql')).body.routes).to.deep.equal({ ...routes, files: '/api/files' });
        expect(await probe(server, routes)).to.deep.equal(all(200));
        expect((await server.request('POST', '/v1/rpc/', { op: 'count', object: 'account', args: {} })).status).to.equal(200);
      } finally {
        await server.stop();
      }
    });
  });

  describe('invalid prefixes', () => {
    it('make createKernel reject, naming only the bad key', async () => {
      const err = await createKernel({ routes: { rpc: '/ok', data: 'bad' } }).catch((e: Error) => e);
      expect(err).to.be.instanceOf(ConfigError);
      expect((err as Error).message)
        .to.include('routes.data')
        .and.not.include('routes.rpc');
    });
  });

  describe('two kernels in one process with different prefixes', () => {
    const v1 = { rpc: '/v1/rpc', data: '/v1/data', metadata: '/v1/metadata' };
    const v2 = { rpc: '/v2/rpc', data: '/v2/data', metadata: '/v2/metadata' };
    let a: TestServer;
    let b: TestServer;
    before(async () => {
      const config = (routes: typeof v1): ObjectQLConfig => ({ plugins: PLUGINS, routes, security: { allowBodyUser: true } });
      [a, b] = await Promise.all([startServer(config(v1)), startServer(config(v2))]);
    });
    after(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
    });

    it('serve at once, each on its own prefixes only', async () => {
      const [onA, onB, v2OnA, v1OnB] = await Promise.all([probe(a, v1), probe(b, v2), probe(a, v2), probe(b, v1)]);
      expect({ onA, onB, v2OnA, v1OnB }).to.deep.equal({ onA: all(200), onB: all(200), v2OnA: all(404), v1OnB: all(404) });
      expect(await probe(a, SPEC_DEFAULTS)).to.deep.equal(all(404));
      expect((await a.request('GET', '/.well-known/objectql')).body.routes).to.deep.equal({ ...v1, files: '/api/files' });
      expect((await b.request('GET', '/.well-known/objectql')).body.routes).to.deep.equal({ ...v2, files: '/api/files' });
    });

    it('keep their own records', async () => {
      const made = await a.rpc({ op: 'create', object: 'account', args: { id: 'acc-v1-only', name: 'Only in v1' }, user: USERS.carol });
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
      expect((await a.rpc({ op: 'findOne', object: 'account', args: 'acc-v1-only' })).status).to.equal(200);
      expect((await b.rpc({ op: 'findOne', object: 'account', args: 'acc-v1-only' })).status).to.equal(404);
      if (HAS_REST) {
        expect((await a.request('GET', '/v1/data/account/acc-v1-only')).status).to.equal(200);
        expect((await b.request('GET', '/v2/data/account/acc-v1-only')).status).to.equal(404);
      }
    });
  });
});
