/**
 * examples/multi-instance: the v1 and v2 configs, loaded as `objectql serve --config` loads them,
 * started side by side in one process on ephemeral ports.
 */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfigFile, type ResolvedConfig } from '../../kernel';
import { startServer, USERS, type TestServer } from '../helpers/server';

const ROOT = resolve(__dirname, '../..');
const DIR = join(ROOT, 'examples/multi-instance');
const PREFIXES = (v: string) => ({
  rpc: `/${v}/api/objectql`,
  data: `/${v}/api/data`,
  metadata: `/${v}/api/metadata`,
  files: `/${v}/api/files`,
});

/** Status of one request per protocol under the base path of version `v`. */
async function probe(server: TestServer, v: string): Promise<Record<string, number>> {
  const p = PREFIXES(v);
  return {
    rpc: (await server.request('POST', p.rpc, { op: 'count', object: 'account', args: {} })).status,
    data: (await server.request('GET', `${p.data}/account?top=1`)).status,
    metadata: (await server.request('GET', `${p.metadata}/objects`)).status,
    odata: (await server.request('GET', `/${v}/odata/account?$top=1`)).status,
    graphql: (await server.request('POST', `/${v}/api/graphql`, { query: '{ accountList(top: 1) { id } }' })).status,
    openapi: (await server.request('GET', `/${v}/api/objectql/openapi.json`)).status,
  };
}
const all = (status: number) => ({ rpc: status, data: status, metadata: status, odata: status, graphql: status, openapi: status });

describe('examples/multi-instance', () => {
  let configs: Record<'v1' | 'v2', ResolvedConfig>;
  let servers: Record<'v1' | 'v2', TestServer>;

  before(async () => {
    configs = { v1: await loadConfigFile(join(DIR, 'v1.config.ts')), v2: await loadConfigFile(join(DIR, 'v2.config.ts')) };
    // One shared SQLite file, as in the configs, but in a temporary folder.
    const shared = {
      default: {
        driver: 'sql',
        client: 'better-sqlite3',
        connection: { filename: join(mkdtempSync(join(tmpdir(), 'objectql-multi-')), 'shared.sqlite') },
      },
    };
    const start = (config: ResolvedConfig) =>
      startServer({ ...config, datasources: shared, port: 0, host: '127.0.0.1', logLevel: 'silent' });
    // One after the other: the first seeds the sample data, the second finds it there.
    const v1 = await start(configs.v1);
    const v2 = await start(configs.v2);
    servers = { v1, v2 };
  });
  after(async () => {
    await Promise.all([servers?.v1?.stop(), servers?.v2?.stop()]);
  });

  it('configures basePath /v1 on port 3101 and /v2 on port 3102, over the same metadata folder and SQLite file', () => {
    for (const [v, port] of [
      ['v1', 3101],
      ['v2', 3102],
    ] as const) {
      expect(configs[v].port, v).to.equal(port);
      expect(configs[v].basePath, v).to.equal(`/${v}`);
      expect(configs[v].metadata, v).to.deep.equal([join(ROOT, 'metadata')]);
      expect(configs[v].datasources, v).to.deep.equal({
        default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: '../../data/multi-instance.sqlite' } },
      });
      expect(configs[v].plugins, v).to.deep.equal({
        rpc: true,
        rest: true,
        'metadata-api': true,
        odata: true,
        graphql: true,
        openapi: true,
      });
    }
  });

  it('serves each instance under its own base path only', async () => {
    expect(servers.v1.url).to.not.equal(servers.v2.url);
    expect(await probe(servers.v1, 'v1')).to.deep.equal(all(200));
    expect(await probe(servers.v2, 'v2')).to.deep.equal(all(200));
    expect(await probe(servers.v1, 'v2')).to.deep.equal(all(404));
    expect(await probe(servers.v2, 'v1')).to.deep.equal(all(404));
    const defaults = await servers.v1.request('POST', '/api/objectql', { op: 'count', object: 'account', args: {} });
    expect(defaults.status).to.equal(404);
    for (const v of ['v1', 'v2'] as const) {
      const discovery = await servers[v].request('GET', `/${v}/.well-known/objectql`);
      expect(discovery.body.routes).to.deep.equal(PREFIXES(v));
      const rpc = discovery.body.capabilities.find((c: any) => c.plugin === 'rpc');
      expect(rpc.routes).to.deep.equal([`POST /${v}/api/objectql`]);
    }
  });

  it('shares one database: what one instance writes, the other reads, changes and deletes', async () => {
    // The sample's initial data was loaded once, by the first instance.
    expect((await servers.v2.request('POST', '/v2/api/objectql', { op: 'count', object: 'account', args: {} })).body.count).to.equal(3);
    const created = await servers.v1.request('POST', '/v1/api/objectql', {
      op: 'create',
      object: 'account',
      args: { id: 'acc-v1', name: 'Made on v1' },
      user: USERS.carol,
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const read = await servers.v2.request('GET', '/v2/api/data/account/acc-v1');
    expect(read.status).to.equal(200);
    expect(read.body).to.include({ id: 'acc-v1', name: 'Made on v1', '@type': 'account' });
    const updated = await servers.v2.request('PUT', '/v2/api/data/account/acc-v1', { name: 'Renamed on v2' });
    expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
    expect((await servers.v1.request('POST', '/v1/api/objectql', { op: 'findOne', object: 'account', args: 'acc-v1' })).body.name).to.equal(
      'Renamed on v2',
    );
    expect((await servers.v1.request('DELETE', '/v1/api/data/account/acc-v1')).status).to.equal(200);
    expect((await servers.v2.request('GET', '/v2/api/data/account/acc-v1')).status).to.equal(404);
  });
});
