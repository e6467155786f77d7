/**
 * Where the OpenAPI plugin serves things: the API reference page and its local Swagger UI assets,
 * custom route prefixes moving the document and every path in it, the docsPath option, option
 * checking, and nothing at all when the plugin is off.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import { createKernel, type ObjectQLConfig } from '../../../server';
import { SAMPLE_METADATA, startServer, type TestServer } from '../../helpers/server';
import { checkSemantics, hasMetadata, hasRest, protocolPlugins, routeInDocument } from './helpers';

describe('OpenAPI API reference page', () => {
  let s: TestServer;

  before(async () => {
    s = await startServer({ plugins: { rpc: true, openapi: true } });
  });
  after(async () => {
    await s?.stop();
  });

  it('serves an HTML page that loads Swagger UI from this server only', async () => {
    const res = await s.request('GET', '/api/objectql/docs');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const html: string = res.body;
    expect(html).to.include('<div id="swagger-ui"></div>');
    expect(html).to.include('href="/api/objectql/docs/swagger-ui.css"');
    expect(html).to.include('src="/api/objectql/docs/swagger-ui-bundle.js"');
    expect(html).to.not.match(/(src|href)="(https?:)?\/\//); // no CDN, no other origin
    expect(html).to.not.match(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(res.headers.get('content-security-policy')).to.include("script-src 'self'");
  });

  it('serves the initializer, pointed at the document', async () => {
    const html: string = (await s.request('GET', '/api/objectql/docs')).body;
    const init = /src="([^"]*objectql-swagger-init\.js)"/.exec(html)?.[1];
    expect(init).to.be.a('string');
    const res = await s.request('GET', init!);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/javascript/);
    expect(res.body).to.include('url: "/api/objectql/openapi.json"').and.include('validatorUrl: null');
  });

  it('serves every asset the page references, with the right content type', async () => {
    const html: string = (await s.request('GET', '/api/objectql/docs')).body;
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs).to.have.length.greaterThan(3);
    const types: Record<string, RegExp> = { css: /^text\/css/, js: /javascript/, png: /^image\/png/ };
    for (const ref of refs) {
      const res = await fetch(s.url + ref);
      expect(res.status, ref).to.equal(200);
      expect(res.headers.get('content-type'), ref).to.match(types[ref.split('.').pop()!]);
      expect((await res.arrayBuffer()).byteLength, ref).to.be.greaterThan(0);
    }
  });

  it('serves only the listed assets: other swagger-ui-dist files and traversal are 404', async () => {
    for (const path of [
      '/api/objectql/docs/index.html',
      '/api/objectql/docs/package.json',
      '/api/objectql/docs/..%2Fpackage.json',
      '/api/objectql/docs/swagger-ui.js',
    ]) {
      const res = await s.request('GET', path);
      expect(res.status, path).to.equal(404);
      expect(res.body.error.code, path).to.equal('NOT_FOUND');
    }
  });
});

describe('OpenAPI plugin configuration', () => {
  const servers: TestServer[] = [];
  const start = async (config: ObjectQLConfig) => {
    const s = await startServer(config);
    servers.push(s);
    return s;
  };
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it('is absent when not enabled: document and page are 404', async () => {
    const s = await start({ plugins: { rpc: true } });
    for (const path of ['/api/objectql/openapi.json', '/api/objectql/docs', '/api/objectql/docs/swagger-ui.css']) {
      expect((await s.request('GET', path)).status, path).to.equal(404);
    }
    const caps = (await s.request('GET', '/.well-known/objectql')).body.capabilities;
    expect(caps.map((c: any) => c.plugin)).to.not.include('openapi');
  });

  it('moves the document and every path in it with custom route prefixes', async () => {
    const s = await start({ routes: { rpc: '/v2/rpc', data: '/v2/data', metadata: '/v2/meta' }, plugins: protocolPlugins() });
    expect((await s.request('GET', '/api/objectql/openapi.json')).status).to.equal(404);
    const res = await s.request('GET', '/v2/rpc/openapi.json');
    expect(res.status).to.equal(200);
    const doc = res.body;
    await SwaggerParser.validate(structuredClone(doc));
    checkSemantics(doc);
    expect(doc.paths['/v2/rpc']?.post).to.be.an('object');
    expect(doc.paths).to.have.property('/v2/rpc/openapi.json');
    expect(doc.paths).to.have.property('/v2/rpc/docs');
    const stale = Object.keys(doc.paths).filter((p) => /^\/api\/(objectql|data|metadata)(\/|$)/.test(p));
    expect(stale, 'paths left under the default prefixes').to.deep.equal([]);
    if (hasRest()) expect(routeInDocument(doc, 'GET /v2/data/:object'), 'REST list').to.equal(true);
    if (hasMetadata()) expect(routeInDocument(doc, 'GET /v2/meta/objects'), 'metadata objects').to.equal(true);
    const caps: { plugin: string; routes?: string[] }[] = (await s.request('GET', '/.well-known/objectql')).body.capabilities;
    const missing = caps.flatMap((c) => (c.routes ?? []).filter((r) => !routeInDocument(doc, r)).map((r) => `${c.plugin}: ${r}`));
    expect(missing).to.deep.equal([]);
    expect((await s.request('GET', '/v2/rpc/docs')).body).to.include('/v2/rpc/docs/swagger-ui-bundle.js');
  });

  it('takes docsPath and title options', async () => {
    const s = await start({ plugins: { rpc: true, openapi: { docsPath: '/reference/', title: 'Tracker API' } } });
    const page = await s.request('GET', '/reference');
    expect(page.status).to.equal(200);
    expect(page.body).to.include('<title>Tracker API — API reference</title>').and.include('src="/reference/swagger-ui-bundle.js"');
    expect((await s.request('GET', '/reference/swagger-ui.css')).status).to.equal(200);
    expect((await s.request('GET', '/api/objectql/docs')).status).to.equal(404);
    const doc = (await s.request('GET', '/api/objectql/openapi.json')).body;
    expect(doc.info.title).to.equal('Tracker API');
    expect(doc.paths).to.have.property('/reference');
  });

  it('drops anonymous access from the global security when the auth plugin turns anonymous callers away', async () => {
    const jwt = { secret: 'openapi-test-secret-of-at-least-32-characters' };
    const WITH_CREDENTIALS = [{ bearerAuth: [] }, { apiKey: [] }, { sessionCookie: [] }];
    for (const [auth, security] of [
      [{ jwt }, WITH_CREDENTIALS],
      [{ jwt, required: false }, [...WITH_CREDENTIALS, {}]],
      [{ jwt, anonymous: { roles: ['viewer'] } }, [...WITH_CREDENTIALS, {}]],
    ] as const) {
      const s = await start({ plugins: { rpc: true, openapi: true, auth } });
      const doc = (await s.request('GET', '/api/objectql/openapi.json')).body;
      expect(doc.security, JSON.stringify(auth)).to.deep.equal(security);
    }
  });

  it('reads what the auth plugin publishes in its capability, not its config', async () => {
    // A stand-in that is no auth plugin by config, only by what it tells the discovery route.
    const s = await startServer(
      { plugins: { rpc: true, openapi: true } },
      {
        use: [
          {
            name: 'my-auth',
            register: (k) => void k.hooks.capabilities.tap('my-auth', (list) => [...list, { plugin: 'auth', required: true }]),
          },
        ],
      },
    );
    servers.push(s);
    expect((await s.request('GET', '/api/objectql/openapi.json')).body.security).to.not.deep.include({});
  });

  it('refuses unknown or malformed options, naming them', async () => {
    for (const [options, message] of [
      [{ docs: '/x' }, /unknown option 'docs'/],
      [{ docsPath: 'docs' }, /docsPath must be a path/],
      [{ docsPath: '/a b' }, /docsPath must be a path/],
      [{ title: '' }, /title must be a non-empty string/],
    ] as const) {
      const err = await createKernel({
        logLevel: 'silent',
        metadata: [SAMPLE_METADATA],
        plugins: { rpc: true, openapi: options as Record<string, unknown> },
      }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message, JSON.stringify(options)).to.match(message);
    }
  });
});
