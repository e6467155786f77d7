/**
 * The OpenAPI plugin under the instance's basePath and with moved routes: the document, the page,
 * its assets and initializer, and every path inside the document where they are served; explicit
 * documentPath/docsPath moved by basePath; the default following the JSON-RPC route as the rpc
 * plugin sets it in its own register (read lazily, whatever the plugin order).
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import type { ObjectQLConfig, Plugin } from '../../../server';
import { startServer, type TestServer } from '../../helpers/server';
import { checkSemantics, routeInDocument } from './helpers';

/** The plugins this check can move today: every one serving a door of the document. */
const MOVABLE = { openapi: true, rpc: true, rest: true, 'metadata-api': true, files: { storage: { type: 'memory' } } };

describe('OpenAPI under basePath and moved routes', () => {
  const servers: TestServer[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });
  async function start(config: ObjectQLConfig, use: Plugin[] = []): Promise<TestServer> {
    const s = await startServer(config, { use });
    servers.push(s);
    return s;
  }

  /** The page at `docsPath` loads its assets and its initializer from under `assetBase`, pointed at `documentPath`. */
  async function expectPage(s: TestServer, docsPath: string, assetBase: string, documentPath: string): Promise<void> {
    const page = await s.request('GET', docsPath);
    expect(page.status, docsPath).to.equal(200);
    const refs = [...(page.body as string).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).to.be.greaterThan(3);
    for (const ref of refs) {
      expect(ref.startsWith(`${assetBase}/`), ref).to.equal(true);
      expect((await fetch(s.url + ref)).status, ref).to.equal(200);
    }
    const init = refs.find((r) => r.endsWith('objectql-swagger-init.js'))!;
    expect((await s.request('GET', init)).body).to.include(`url: ${JSON.stringify(documentPath)}`);
  }

  it('serves the document and the page under basePath, every path in the document under it too', async () => {
    const s = await start({ basePath: '/v2', plugins: MOVABLE });
    const DOC = '/v2/api/objectql/openapi.json';
    for (const path of ['/api/objectql/openapi.json', '/api/objectql/docs'])
      expect((await s.request('GET', path)).status, path).to.equal(404);
    const res = await s.request('GET', DOC);
    expect(res.status).to.equal(200);
    const doc = res.body;
    await SwaggerParser.validate(structuredClone(doc));
    checkSemantics(doc);
    // Paths carry the base path themselves, so the server is the origin's root.
    expect(doc.servers).to.deep.equal([{ url: '/' }]);
    const outside = Object.keys(doc.paths).filter((p) => !p.startsWith('/v2/'));
    expect(outside, 'paths outside the base path').to.deep.equal([]);
    expect(doc.paths).to.include.keys(DOC, '/v2/api/objectql/docs', '/v2/api/metadata/objects', '/v2/api/files/upload');
    const { capabilities } = (await s.request('GET', '/v2/.well-known/objectql')).body;
    const openapi = capabilities.find((c: { plugin: string }) => c.plugin === 'openapi');
    expect(openapi).to.deep.include({ document: DOC, docs: '/v2/api/objectql/docs' });
    const missing = capabilities.flatMap((c: { plugin: string; routes?: string[] }) =>
      (c.routes ?? []).filter((r) => !routeInDocument(doc, r)).map((r) => `${c.plugin}: ${r}`),
    );
    expect(missing).to.deep.equal([]);
    await expectPage(s, '/v2/api/objectql/docs', '/v2/api/objectql/docs', DOC);
  });

  it('moves explicit documentPath and docsPath with basePath', async () => {
    const s = await start({ basePath: '/v2', plugins: { openapi: { documentPath: '/spec.json', docsPath: '/reference/' } } });
    const doc = (await s.request('GET', '/v2/spec.json')).body;
    expect(doc.paths).to.have.keys('/v2/spec.json', '/v2/reference');
    for (const path of ['/spec.json', '/reference', '/v2/api/objectql/openapi.json']) {
      expect((await s.request('GET', path)).status, path).to.equal(404);
    }
    await expectPage(s, '/v2/reference', '/v2/reference', '/v2/spec.json');
  });

  it("puts docsPath '/' at the root of the base path (or of the server)", async () => {
    const moved = await start({ basePath: '/v2', plugins: { openapi: { docsPath: '/' } } });
    await expectPage(moved, '/v2', '/v2', '/v2/api/objectql/openapi.json');
    const root = await start({ plugins: { openapi: { docsPath: '/' } } });
    expect((await root.request('GET', '/api/objectql/openapi.json')).body.paths).to.have.property('/');
    const page = await root.request('GET', '/');
    expect(page.body).to.include('src="/swagger-ui-bundle.js"');
    expect((await root.request('GET', '/swagger-ui.css')).status).to.equal(200);
  });

  it('follows the JSON-RPC route set by a plugin registered after it', async () => {
    // What the rpc plugin does with its own path option, in its register.
    const rpcRoute: Plugin = { name: 'rpc-route', register: (k) => void k.http.route('rpc', '/rpc2') };
    const s = await start({ basePath: '/v2', plugins: { openapi: true } }, [rpcRoute]);
    const res = await s.request('GET', '/v2/rpc2/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.body.paths).to.have.keys('/v2/rpc2/openapi.json', '/v2/rpc2/docs');
    const { capabilities } = (await s.request('GET', '/v2/.well-known/objectql')).body;
    expect(capabilities.find((c: { plugin: string }) => c.plugin === 'openapi').routes).to.deep.equal([
      'GET /v2/rpc2/openapi.json',
      'GET /v2/rpc2/docs',
    ]);
    await expectPage(s, '/v2/rpc2/docs', '/v2/rpc2/docs', '/v2/rpc2/openapi.json');
  });
});
