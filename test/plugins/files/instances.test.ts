/**
 * Several kernels in one process: each serves files under its own prefix from its own state, and
 * two instances sharing one SQLite file and one upload folder share files, access and clean-up.
 */
import { expect } from 'chai';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { SAMPLE_METADATA, startServer, USERS, type TestServer } from '../../helpers/server';
import { filesClient } from './client';

const FIXTURES = resolve(__dirname, 'fixtures');
const routes = (v: string) => ({ rpc: `/${v}/rpc`, data: `/${v}/data`, metadata: `/${v}/metadata`, files: `/${v}/files` });

describe('files: several instances', () => {
  let dir: string;
  const servers: TestServer[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oql-files-instances-'));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await rm(dir, { recursive: true, force: true });
  });

  async function start(v: string, files: Record<string, unknown>, datasource = { driver: 'memory' as const }) {
    const s = await startServer(
      {
        metadata: [SAMPLE_METADATA, FIXTURES],
        routes: routes(v),
        datasources: { default: datasource },
        security: { allowBodyUser: true },
        plugins: { rpc: true, files },
      },
      { identityFromHeader: true },
    );
    servers.push(s);
    return s;
  }

  it('each kernel answers under its own prefix, from its own storage', async () => {
    const v1 = await start('v1', { storage: { type: 'memory' } });
    const v2 = await start('v2', { storage: { type: 'memory' } });
    const png = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#0f0' } })
      .png()
      .toBuffer();
    const a = await filesClient(v1, '/v1/files').upload(USERS.alice, png, 'g.png');
    expect(a.url).to.equal(`/v1/files/${a.id}`);
    expect(a.thumbnail_url).to.equal(`/v1/files/${a.id}/thumbnail?size=small`);
    expect((await filesClient(v1, '/v1/files').get(`/${a.id}/thumbnail`, {}, USERS.alice)).status).to.equal(200);
    expect((await filesClient(v2, '/v2/files').get(`/${a.id}`, {}, USERS.alice)).status).to.equal(404);
    expect((await filesClient(v1, '/v2/files').get(`/${a.id}`, {}, USERS.alice)).status).to.equal(404);
  });

  it('two instances on one store and one folder share files, access rules and clean-up', async () => {
    const shared = { storage: { type: 'local', baseDir: join(dir, 'uploads') } };
    const datasource = { driver: 'sql', client: 'better-sqlite3', connection: { filename: join(dir, 'shared.sqlite') } } as never;
    const a = await start('a', shared, datasource);
    const b = await start('b', shared, datasource);
    const up = await filesClient(a, '/a/files').upload(USERS.carol, 'shared file', 'shared.txt', { object: 'doc', field: 'attachment' });
    const created = await b.rpc({ op: 'create', object: 'doc', args: { name: 'shared', attachment: up }, user: USERS.carol });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    // Attached through B: a viewer reads it through A, a member who cannot read the record may not.
    expect((await filesClient(a, '/a/files').get(`/${up.id}`, {}, USERS.viewer)).status).to.equal(200);
    expect((await filesClient(a, '/a/files').get(`/${up.id}`, {}, USERS.bob)).status).to.equal(403);
    // Deleted through A: the file goes for both.
    expect((await a.rpc({ op: 'delete', object: 'doc', args: { id: created.body.id }, user: USERS.carol })).status).to.equal(200);
    expect((await filesClient(b, '/b/files').get(`/${up.id}`, {}, USERS.carol)).status).to.equal(404);
    expect(await readdir(join(dir, 'uploads'))).to.not.include(up.id);
  });
});
