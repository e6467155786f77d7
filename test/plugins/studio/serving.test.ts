/**
 * Studio's server side, over real HTTP with no browser: the console's one HTML page for every path
 * under /studio (a strict Content-Security-Policy, no-cache, and the settings naming where the APIs
 * are), the built files under /studio/assets with a one-year immutable cache in the precompressed
 * form the client accepts, 404 for anything else there (never a 500), the plugin's options checked
 * at start-up, a base path moving the console and its APIs, and the build's size budget.
 * Needs dist/studio: `node scripts/build-studio.mjs`.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join, resolve } from 'node:path';
import type { ObjectQLConfig } from '../../../kernel';
import { startServer, type TestServer } from '../../helpers/server';

const DIST = resolve(__dirname, '../../../dist/studio');
const KEY = 'studio-serving-key-0123456789';

const PLUGINS = {
  rpc: true,
  rest: true,
  'metadata-api': true,
  auth: { apiKeys: [{ key: KEY, user: { id: 'root', roles: ['admin'] } }], sessions: true },
  studio: true,
};

interface Manifest {
  entry: string;
  css?: string;
  preload: string[];
  initialJavaScriptGzipBytes: number;
}
const manifest = (): Manifest => JSON.parse(readFileSync(join(DIST, 'manifest.json'), 'utf8')) as Manifest;

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET with exactly these headers and the path sent as is (no normalising, no decompression). */
function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  const { hostname, port } = new URL(base);
  return new Promise((done, fail) => {
    const req = httpRequest({ host: hostname, port, path, method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', fail);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${path}: no answer within 10 s`)));
    req.on('error', fail);
    req.end();
  });
}

/** The settings the page carries in <script id="studio-settings">. */
function settingsOf(html: string): any {
  const match = /<script type="application\/json" id="studio-settings">([^<]*)<\/script>/.exec(html);
  expect(match, 'the page carries its settings').to.not.equal(null);
  return JSON.parse(match![1]);
}

/** The CSP's directives: name → sources. */
function cspOf(header: string | string[] | undefined): Map<string, string[]> {
  expect(header, 'a Content-Security-Policy header').to.be.a('string');
  return new Map(
    String(header)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name, sources]),
  );
}

async function startFails(config: ObjectQLConfig): Promise<string> {
  let s: TestServer | undefined;
  try {
    s = await startServer(config);
  } catch (err) {
    return (err as Error).message;
  }
  await s.stop();
  throw new Error('expected the server not to start');
}

describe('Studio: serving the console', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ plugins: PLUGINS });
  });
  after(() => s?.stop());

  for (const path of ['/studio', '/studio/', '/studio/o/x/r/y', '/studio/meta/project']) {
    it(`GET ${path}: the page, with a strict CSP, no-cache and the API paths`, async () => {
      const res = await rawGet(s.url, path, { accept: 'text/html' });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.match(/^text\/html/);
      expect(res.headers['cache-control']).to.equal('no-cache');
      const csp = cspOf(res.headers['content-security-policy']);
      expect(csp.get('script-src')).to.deep.equal(["'self'"]);
      expect(csp.get('default-src')).to.deep.equal(["'none'"]);
      expect(String(res.headers['content-security-policy'])).to.not.include('unsafe-inline').and.not.include('unsafe-eval');
      const html = res.body.toString('utf8');
      // No inline script the CSP would refuse: the only <script> without src is the JSON settings.
      for (const [tag] of html.matchAll(/<script\b[^>]*>/g)) expect(tag).to.match(/\bsrc="|type="application\/json"/);
      const m = manifest();
      expect(html).to.include(`src="/studio/assets/${m.entry}"`);
      if (m.css) expect(html).to.include(`href="/studio/assets/${m.css}"`);
      const settings = settingsOf(html);
      expect(settings.base).to.equal('/studio');
      expect(settings.api).to.include({
        rpc: '/api/objectql',
        data: '/api/data',
        metadata: '/api/metadata',
        session: '/api/auth/session',
        auth: true,
      });
      expect(settings.api).to.not.have.property('files');
      expect(settings.api).to.not.have.property('realtime');
    });
  }

  describe('assets', () => {
    const entry = () => `/studio/assets/${manifest().entry}`;
    const file = (name: string) => readFileSync(join(DIST, name));

    function expectImmutable(res: Raw): void {
      expect(res.status).to.equal(200);
      expect(res.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
      expect(res.headers['content-type']).to.match(/^text\/javascript/);
      expect(String(res.headers.vary)).to.match(/accept-encoding/i);
    }

    it('brotli when the client accepts br', async () => {
      const res = await rawGet(s.url, entry(), { 'accept-encoding': 'gzip, deflate, br' });
      expectImmutable(res);
      expect(res.headers['content-encoding']).to.equal('br');
      expect(res.body.equals(file(`${manifest().entry}.br`))).to.equal(true);
    });

    it('gzip when the client accepts only gzip', async () => {
      const res = await rawGet(s.url, entry(), { 'accept-encoding': 'gzip' });
      expectImmutable(res);
      expect(res.headers['content-encoding']).to.equal('gzip');
      expect(res.body.equals(file(`${manifest().entry}.gz`))).to.equal(true);
    });

    it('the file itself otherwise', async () => {
      for (const headers of [{}, { 'accept-encoding': 'identity' }, { 'accept-encoding': 'deflate' }] as Array<Record<string, string>>) {
        const res = await rawGet(s.url, entry(), headers);
        expectImmutable(res);
        expect(res.headers['content-encoding'], JSON.stringify(headers)).to.equal(undefined);
        expect(res.body.equals(file(manifest().entry)), JSON.stringify(headers)).to.equal(true);
      }
    });

    it('the stylesheet and the preloaded chunks are served too', async () => {
      const m = manifest();
      for (const name of [...(m.css ? [m.css] : []), ...m.preload]) {
        const res = await rawGet(s.url, `/studio/assets/${name}`);
        expect(res.status, name).to.equal(200);
        expect(res.headers['cache-control'], name).to.equal('public, max-age=31536000, immutable');
        expect(res.body.equals(file(name)), name).to.equal(true);
      }
    });

    const NOT_FOUND = [
      '/studio/assets/nope-0000.js',
      '/studio/assets/manifest.json',
      '/studio/assets/',
      '/studio/assets/..%2Fmanifest.json',
      '/studio/assets/..%2F..%2F..%2Fpackage.json',
      '/studio/assets/%2e%2e/%2e%2e/%2e%2e/package.json',
      '/studio/assets/../../../package.json',
      '/studio/assets/..%5C..%5Cpackage.json',
      '/studio/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fpackage.json',
      '/studio/assets/.%00.js',
      '/studio/assets/x/../../../../etc/passwd',
    ];
    it('an unknown file, the manifest, or a path out of the build: 404, never a 500 nor a file outside the build', async () => {
      const wrong: string[] = [];
      for (const path of NOT_FOUND) {
        const res = await rawGet(s.url, path, { 'accept-encoding': 'br, gzip' });
        const body = res.body.toString('utf8');
        if (body.includes('"name": "objectql') || body.includes('root:x:0:0')) wrong.push(`${path}: a file outside the build`);
        else if (res.status !== 404) wrong.push(`${path}: ${res.status} ${String(res.headers['content-type'])}`);
      }
      expect(wrong, wrong.join('\n')).to.deep.equal([]);
    });

    it('a malformed percent-encoding: refused with a 4xx, not a 500', async () => {
      const res = await rawGet(s.url, '/studio/assets/%E0%A4%A.js');
      expect(res.status).to.be.oneOf([400, 404]);
    });
  });
});

describe('Studio: start-up', () => {
  it('an unknown option or a bad path stops start-up, naming studio', async () => {
    const base = { rpc: true, rest: true, 'metadata-api': true };
    expect(await startFails({ plugins: { ...base, studio: { colour: 'blue' } } }))
      .to.include("Plugin 'studio'")
      .and.include('colour');
    for (const path of ['studio', '/x/:y', '/x//y', 5]) {
      expect(await startFails({ plugins: { ...base, studio: { path } } }), JSON.stringify(path))
        .to.include("Plugin 'studio'")
        .and.include('path');
    }
    expect(await startFails({ plugins: { ...base, studio: { title: '' } } })).to.include("Plugin 'studio'");
  });

  it('without rpc it does not start, naming the missing plugin', async () => {
    const message = await startFails({ plugins: { rest: true, 'metadata-api': true, studio: true } });
    expect(message).to.include("'studio'").and.include("'rpc'");
  });

  it('under basePath /v2: the console at /v2/studio, with its assets and API paths under /v2', async () => {
    const s = await startServer({ basePath: '/v2', plugins: PLUGINS });
    try {
      const page = await rawGet(s.url, '/v2/studio/o/project');
      expect(page.status).to.equal(200);
      const html = page.body.toString('utf8');
      const settings = settingsOf(html);
      expect(settings.base).to.equal('/v2/studio');
      expect(settings.api).to.include({
        rpc: '/v2/api/objectql',
        data: '/v2/api/data',
        metadata: '/v2/api/metadata',
        session: '/v2/api/auth/session',
      });
      expect(html).to.include(`src="/v2/studio/assets/${manifest().entry}"`);
      const asset = await rawGet(s.url, `/v2/studio/assets/${manifest().entry}`);
      expect(asset.status).to.equal(200);
      // Not served where it stood (auth answers 401 for a route nobody made public).
      expect((await rawGet(s.url, '/studio')).status).to.be.oneOf([401, 404]);
    } finally {
      await s.stop();
    }
  });

  it('another path: the console moves with its option', async () => {
    const s = await startServer({ plugins: { ...PLUGINS, studio: { path: '/console', title: 'Acme <Console>' } } });
    try {
      const page = await rawGet(s.url, '/console');
      expect(page.status).to.equal(200);
      const html = page.body.toString('utf8');
      expect(html).to.include('<title>Acme &#60;Console&#62;</title>');
      expect(settingsOf(html)).to.include({ base: '/console', title: 'Acme <Console>' });
      // Not served where it stood (auth answers 401 for a route nobody made public).
      expect((await rawGet(s.url, '/studio')).status).to.be.oneOf([401, 404]);
    } finally {
      await s.stop();
    }
  });
});

describe('Studio: the build', () => {
  it('its initial JavaScript stays under 250 KB gzipped, as the manifest reports', () => {
    const m = manifest();
    expect(m.initialJavaScriptGzipBytes)
      .to.be.a('number')
      .and.be.above(0)
      .and.below(250 * 1024);
    for (const name of [m.entry, ...m.preload]) expect(readFileSync(join(DIST, name)).length, name).to.be.above(0);
  });
});
