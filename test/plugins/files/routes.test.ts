/**
 * Where the File API is served: at its own `path` option (which wins over `routes.files`), under
 * the instance's `basePath`; the attachments it answers carry URLs under the served prefix, and
 * those URLs work. The discovery route and the OpenAPI paths follow. Bad options name the key.
 */
import { expect } from 'chai';
import { resolve } from 'node:path';
import sharp from 'sharp';
import { createKernel, type ObjectQLConfig } from '../../../server';
import { SAMPLE_METADATA, startServer, USERS, type TestServer } from '../../helpers/server';
import { as, filesClient } from './client';

const FIXTURES = resolve(__dirname, 'fixtures');

describe('files: routes', () => {
  const servers: TestServer[] = [];
  let png: Buffer;

  before(async () => {
    png = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#00f' } })
      .png()
      .toBuffer();
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  async function start(config: ObjectQLConfig): Promise<TestServer> {
    const s = await startServer(config, { identityFromHeader: true });
    servers.push(s);
    return s;
  }

  /** Uploads an image at `prefix` and follows every URL of its attachment. */
  async function roundTrip(s: TestServer, prefix: string): Promise<void> {
    const files = filesClient(s, prefix);
    const a = await files.upload(USERS.alice, png, 'blue.png');
    expect(a.url).to.equal(`${prefix}/${a.id}`);
    expect(a.thumbnail_url).to.equal(`${prefix}/${a.id}/thumbnail?size=small`);
    expect(a.variants.large).to.equal(`${prefix}/${a.id}/thumbnail?size=large`);
    for (const url of [a.url, a.thumbnail_url, a.variants.medium, `${prefix}/${a.id}/preview?width=4`]) {
      const res = await fetch(s.url + url, { headers: as(USERS.alice) });
      expect(res.status, url).to.equal(200);
      expect(res.headers.get('content-type'), url).to.match(/^image\/png/);
    }
    // Errors under the moved prefix are the spec's, rendered by the kernel.
    const missing = await fetch(`${s.url}${prefix}/nope.png`, { headers: as(USERS.alice) });
    expect(missing.status).to.equal(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).to.equal('FILE_NOT_FOUND');
  }

  /** Nothing is served at `prefix`: the kernel's NOT_FOUND for an unrouted path (not the File API's FILE_NOT_FOUND). */
  async function unserved(s: TestServer, prefix: string): Promise<void> {
    const res = await filesClient(s, prefix).get('/some-file.png', {}, USERS.alice);
    expect(res.status, prefix).to.equal(404);
    expect((JSON.parse(res.buffer.toString()) as { error: { code: string } }).error.code, prefix).to.equal('NOT_FOUND');
  }

  /** The discovery route's routes.files and the plugin's capability, and the File API's OpenAPI paths. */
  async function advertised(s: TestServer, discovery: string) {
    const body = (await (await fetch(s.url + discovery)).json()) as {
      routes: Record<string, string>;
      capabilities: { plugin: string; routes: string[] }[];
    };
    const doc = s.kernel.hooks.openapi.call({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {} });
    return { files: body.routes.files, routes: body.capabilities.find((c) => c.plugin === 'files')?.routes, paths: Object.keys(doc.paths) };
  }

  it('serves at its path option, which wins over routes.files', async () => {
    const s = await start({ routes: { files: '/ignored' }, plugins: { files: { path: '/blobs/', storage: { type: 'memory' } } } });
    await roundTrip(s, '/blobs');
    for (const prefix of ['/ignored', '/api/files']) await unserved(s, prefix);
    const { files, routes, paths } = await advertised(s, '/.well-known/objectql');
    expect(files).to.equal('/blobs');
    expect(routes).to.include.members(['POST /blobs/upload', 'GET /blobs/:fileId/thumbnail']);
    expect(paths).to.include.members(['/blobs/upload', '/blobs/{fileId}', '/blobs/{fileId}/preview']);
  });

  it('moves under basePath, with routes.files or the path option', async () => {
    for (const [files, prefix] of [
      [{ storage: { type: 'memory' } }, '/v2/api/files'],
      [{ path: '/blobs', storage: { type: 'memory' } }, '/v2/blobs'],
    ] as const) {
      const s = await start({ basePath: '/v2', plugins: { files } });
      await roundTrip(s, prefix);
      await unserved(s, prefix.slice('/v2'.length));
      const advert = await advertised(s, '/v2/.well-known/objectql');
      expect(advert.files).to.equal(prefix);
      expect(advert.routes).to.include(`POST ${prefix}/upload`);
      expect(
        advert.paths.every((p) => p.startsWith(`${prefix}/`)),
        advert.paths.join(),
      ).to.equal(true);
    }
  });

  it('an attachment given by its moved URL alone is resolved when a record takes it', async () => {
    const s = await start({ basePath: '/v2', metadata: [SAMPLE_METADATA, FIXTURES], plugins: { files: { storage: { type: 'memory' } } } });
    const files = filesClient(s, '/v2/api/files');
    const a = await files.upload(USERS.alice, png, 'blue.png', { object: 'doc', field: 'gallery' });
    const repo = s.kernel.engine.repo('doc', { user: USERS.alice });
    const created = await repo.create({ name: 'with a gallery', gallery: [{ url: a.url }] });
    const [held] = (await repo.findOne({ filters: [['id', '=', created.id]] }))?.gallery as Record<string, unknown>[];
    expect(held).to.include({ id: a.id, url: a.url, thumbnail_url: `/v2/api/files/${a.id}/thumbnail?size=small`, width: 8, height: 6 });
    expect((await files.get(`/${a.id}`, {}, USERS.carol)).status).to.equal(200);
  });

  it('refuses a malformed path option, naming it', async () => {
    for (const [path, message] of [
      ['files', /Plugin 'files': path must be a path of plain segments/],
      ['/a b', /path must be a path of plain segments/],
      [3, /path must be a string/],
    ] as const) {
      const err = await createKernel({ logLevel: 'silent', metadata: [SAMPLE_METADATA], plugins: { files: { path } } }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message, String(path)).to.match(message);
    }
  });
});
