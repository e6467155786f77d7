/**
 * Where the metadata API is served: under either config key (`metadata-api`, or the older
 * `metadata`), at its own `path` option (which wins over `routes.metadata`), under the instance's
 * `basePath`, and the discovery route and the OpenAPI paths saying so. Bad options are refused
 * naming the key.
 */
import { expect } from 'chai';
import { createKernel } from '../../../server';
import { SAMPLE_METADATA, USERS, type TestServer } from '../../helpers/server';
import { as, expectError, ok, startMetadataServer } from './helpers';

const { carol, admin } = USERS;

describe('metadata API: routes', () => {
  const servers: TestServer[] = [];
  const start = async (...args: Parameters<typeof startMetadataServer>) => {
    const s = await startMetadataServer(...args);
    servers.push(s);
    return s;
  };
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  /** The capability of the metadata API at the discovery route under `prefix`. */
  const capability = async (s: TestServer, prefix = '') => {
    const { capabilities, routes } = ok(await s.request('GET', `${prefix}/.well-known/objectql`));
    return { cap: capabilities.find((c: { plugin: string }) => c.plugin === 'metadata-api'), routes };
  };

  for (const key of ['metadata-api', 'metadata']) {
    it(`is enabled by the config key '${key}'`, async () => {
      const s = await start({ plugins: { [key]: true } });
      expect(ok(await as(s, carol, 'GET', '/api/metadata/objects')).objects).to.have.length(6);
      const { cap } = await capability(s);
      expect(cap).to.deep.include({ plugin: 'metadata-api', protocol: 'metadata' });
    });
  }

  it('serves at its path option, which wins over routes.metadata', async () => {
    const s = await start({ routes: { metadata: '/ignored' }, plugins: { 'metadata-api': { path: '/meta/' } } });
    expect(ok(await as(s, carol, 'GET', '/meta/objects')).objects).to.have.length(6);
    expect(ok(await as(s, carol, 'GET', '/meta/app/projects')).label).to.equal('Project Tracker');
    for (const path of ['/ignored/objects', '/api/metadata/objects']) expectError(await as(s, carol, 'GET', path), 404, 'NOT_FOUND');
    const { cap, routes } = await capability(s);
    expect(routes.metadata).to.equal('/meta');
    expect(cap.routes).to.include.members(['GET /meta/objects', 'PUT /meta/object/:name']);
    // The hint to the update route names the served path.
    expectError(await as(s, admin, 'POST', '/meta/objects/project', {}), 400, 'INVALID_REQUEST', 'PUT /meta/object/project');
  });

  it('moves under basePath, with the path option or routes.metadata', async () => {
    const a = await start({ basePath: '/v2', plugins: { 'metadata-api': true } });
    const b = await start({ basePath: '/v2', plugins: { 'metadata-api': { path: '/meta' } } });
    for (const [s, prefix] of [
      [a, '/v2/api/metadata'],
      [b, '/v2/meta'],
    ] as const) {
      expect(ok(await as(s, carol, 'GET', `${prefix}/objects`)).objects, prefix).to.have.length(6);
      expect(ok(await as(s, admin, 'PUT', `${prefix}/object/project`, { label: 'Engagement' }))).to.deep.equal({ success: true });
      expect(ok(await as(s, carol, 'GET', `${prefix}/objects/project`)).label).to.equal('Engagement');
      expectError(await as(s, carol, 'GET', prefix.replace('/v2', '') + '/objects'), 404, 'NOT_FOUND');
      const { cap, routes } = await capability(s, '/v2');
      expect(routes.metadata).to.equal(prefix);
      expect(cap.routes).to.include(`GET ${prefix}/objects`);
      const doc = s.kernel.hooks.openapi.call({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {} });
      expect(
        Object.keys(doc.paths).every((p) => p.startsWith(`${prefix}/`)),
        Object.keys(doc.paths).join(),
      ).to.equal(true);
    }
  });

  it('still checks the Content-Type of an update after who asks', async () => {
    const s = await start({ basePath: '/v2', plugins: { 'metadata-api': true } });
    const put = (user: typeof admin, body: string, type: string) =>
      as(s, user, 'PUT', '/v2/api/metadata/object/project', body, { 'content-type': type });
    expectError(await put(carol, 'label=X', 'text/plain'), 403, 'FORBIDDEN');
    const res = await put(admin, 'label=X', 'text/plain');
    expectError(res, 400, 'INVALID_REQUEST', "Content-Type must be application/json, got 'text/plain'");
    expect(res.body.error.details).to.deep.equal({ parameter: 'Content-Type' });
    expect(ok(await put(admin, '{"label":"X"}', 'application/merge-patch+json'))).to.deep.equal({ success: true });
  });

  it('refuses unknown or malformed options, naming them', async () => {
    for (const [options, message] of [
      [{ prefix: '/x' }, /Plugin 'metadata-api': unknown option 'prefix'/],
      [{ path: 'meta' }, /Plugin 'metadata-api': path must be a path of plain segments/],
      [{ path: '/a/:b' }, /path must be a path of plain segments/],
      [{ path: 7 }, /path must be a string/],
    ] as const) {
      const err = await createKernel({ logLevel: 'silent', metadata: [SAMPLE_METADATA], plugins: { 'metadata-api': options } }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message, JSON.stringify(options)).to.match(message);
    }
  });
});
