/**
 * GET / (kernel/http/landing.ts): the doors of the running server from its discovery data, as a
 * small HTML page for browsers (every link answering, the page allowed by its own CSP) and as JSON
 * for anything else; public like /health; under the base path; in development how to authenticate,
 * never a credential; off with `landingPage: false`; a plugin serving GET / itself wins.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { ObjectQLConfig, Plugin } from '../../server';
import { startServer, type TestServer } from '../helpers/server';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const API_KEY = 'landing-test-key-7f3a9c21';
const JWT_SECRET = 'landing-test-secret-of-at-least-32-characters-5e8d';

/** Every built-in door but files (which wants a folder of its own), behind authentication. */
const ALL_DOORS: ObjectQLConfig = {
  plugins: {
    rpc: true,
    rest: true,
    'metadata-api': true,
    openapi: true,
    odata: true,
    graphql: true,
    realtime: true,
    auth: { jwt: { secret: JWT_SECRET }, apiKeys: [{ key: API_KEY, user: { id: 'carol', roles: ['manager'] } }], sessions: true },
  },
};

const hrefs = (html: string) => [...html.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));

/** Starts a server with NODE_ENV set as given while it mounts its routes (the page reads it then). */
async function startWithEnv(env: string | undefined, config: ObjectQLConfig, use: Plugin[] = []): Promise<TestServer> {
  const before = process.env.NODE_ENV;
  if (env === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = env;
  try {
    return await startServer(config, { use });
  } finally {
    if (before === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = before;
  }
}

describe('landing page (GET /)', () => {
  const servers: TestServer[] = [];
  const start = async (config: ObjectQLConfig, env: string | undefined = 'test', use: Plugin[] = []) => {
    const s = await startWithEnv(env, config, use);
    servers.push(s);
    return s;
  };
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it('gives a browser an HTML page of every door, without credentials, each link answering', async () => {
    const s = await start(ALL_DOORS);
    const res = await fetch(`${s.url}/`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.headers.get('vary')).to.match(/Accept/);
    const html = await res.text();
    const port = new URL(s.url).port;
    for (const door of ['rpc', 'rest', 'metadata-api', 'openapi', 'odata', 'graphql', 'realtime', 'auth', 'kernel']) {
      expect(html, door).to.include(`<td>${door}</td>`);
    }
    expect(html).to.include('<code>POST /api/objectql</code>').and.include('<code>/api/data/…</code>');
    expect(html).to.include(`ws://127.0.0.1:${port}/api/realtime`).and.include(`ws://127.0.0.1:${port}/api/graphql`);
    const links = hrefs(html);
    expect(links).to.include.members([
      '/api/graphql',
      '/api/objectql/docs',
      '/api/objectql/openapi.json',
      '/odata',
      '/odata/$metadata',
      '/api/metadata/objects',
      '/health',
      '/health/ready',
      '/.well-known/objectql',
    ]);
    for (const link of links) {
      const page = await fetch(new URL(link, s.url), { headers: { accept: BROWSER_ACCEPT } });
      expect(page.status, link).to.not.equal(404);
    }
    // Outside development the page says nothing about authentication.
    expect(html).to.not.include('Authentication');
  });

  it('is allowed by its own Content-Security-Policy: no script, no other origin, its one style by hash', async () => {
    const s = await start({ plugins: { rpc: true } });
    const res = await fetch(`${s.url}/`, { headers: { accept: 'text/html' } });
    const csp = res.headers.get('content-security-policy') ?? '';
    const html = await res.text();
    expect(csp).to.include("default-src 'none'").and.include("frame-ancestors 'none'").and.not.include('unsafe-inline');
    expect(html).to.not.match(/<script|\sstyle="|\son[a-z]+=/i);
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
    expect(csp).to.include(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(html).to.not.match(/(src|href)="(https?:)?\/\//);
  });

  it('gives any other client the same doors as JSON', async () => {
    const s = await start(ALL_DOORS);
    for (const accept of [undefined, 'application/json', '*/*']) {
      const res = await s.request('GET', '/', undefined, accept ? { accept } : {});
      expect(res.status, accept).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.body.name).to.equal('objectql');
      expect(res.body).to.not.have.property('basePath');
      expect(res.body).to.not.have.property('authentication');
      const doors = Object.fromEntries(res.body.doors.map((d: { plugin: string; urls: unknown[] }) => [d.plugin, d]));
      expect(doors.rpc.urls).to.deep.equal([{ kind: 'endpoint', path: '/api/objectql', methods: ['POST'] }]);
      expect(doors.rest.urls).to.deep.equal([{ kind: 'prefix', path: '/api/data', label: 'routes.data' }]);
      expect(doors.openapi.urls).to.deep.include({ kind: 'page', path: '/api/objectql/docs', methods: ['GET'], label: 'docs' });
      expect(doors.odata.urls).to.deep.include({ kind: 'page', path: '/odata/$metadata', methods: ['GET'], label: 'metadata' });
      expect(doors.graphql.urls).to.deep.include.members([
        { kind: 'page', path: '/api/graphql', methods: ['GET', 'POST'] },
        { kind: 'websocket', path: '/api/graphql', label: 'subscriptions' },
      ]);
      expect(doors.realtime.urls).to.deep.equal([{ kind: 'websocket', path: '/api/realtime' }]);
      expect(doors.kernel.urls.map((u: { path: string }) => u.path)).to.deep.equal(['/health', '/health/ready', '/.well-known/objectql']);
      // rate-limit and the like serve no route: no door.
      expect(res.body.doors.every((d: { urls: unknown[] }) => d.urls.length > 0)).to.equal(true);
    }
  });

  it('moves under the base path, with every door', async () => {
    const s = await start({ basePath: '/x', plugins: { rpc: true, rest: true, openapi: true, graphql: true } });
    for (const path of ['/x', '/x/']) {
      const json = await s.request('GET', path);
      expect(json.status, path).to.equal(200);
      expect(json.body.basePath).to.equal('/x');
      const paths = json.body.doors.flatMap((d: { urls: Array<{ path: string }> }) => d.urls.map((u) => u.path));
      expect(paths).to.include.members(['/x/api/objectql', '/x/api/data', '/x/api/objectql/docs', '/x/api/graphql', '/x/health']);
      expect(paths.every((p: string) => p.startsWith('/x/'))).to.equal(true);
    }
    const html = await (await fetch(`${s.url}/x`, { headers: { accept: BROWSER_ACCEPT } })).text();
    expect(html).to.include('<a href="/x/api/objectql/docs">').and.include('<a href="/x/.well-known/objectql">');
    for (const link of hrefs(html)) expect((await fetch(new URL(link, s.url))).status, link).to.not.equal(404);
    expect((await s.request('GET', '/')).status).to.equal(404);
  });

  it('in development says how to authenticate, never with a key or secret', async () => {
    const s = await start(ALL_DOORS, 'development');
    const html = await (await fetch(`${s.url}/`, { headers: { accept: BROWSER_ACCEPT } })).text();
    expect(html).to.include('Authentication (development)');
    expect(html).to.include('<code>X-API-Key: &lt;key&gt;</code>').and.include('<code>Authorization: Bearer &lt;jwt&gt;</code>');
    expect(html).to.include('POST /api/auth/session');
    const json = await s.request('GET', '/');
    expect(json.body.authentication).to.deep.include({ required: true });
    expect(json.body.authentication.send).to.include.members(['X-API-Key: <key>', 'Authorization: Bearer <jwt>']);
    for (const text of [html, JSON.stringify(json.body)]) {
      expect(text).to.not.include(API_KEY).and.not.include(JWT_SECRET);
    }
  });

  it('is not there with landingPage: false', async () => {
    const s = await start({ landingPage: false, plugins: { rpc: true } });
    expect((await s.request('GET', '/')).status).to.equal(404);
  });

  it('leaves GET / to a plugin that serves it, behind authentication or not', async () => {
    const own: Plugin = {
      name: 'home',
      register(k) {
        k.hooks.capabilities.tap('home', (list) => [...list, { plugin: 'home', routes: ['GET /'] }]);
        k.hooks.routes.tap('home', (router) => void router.get('/', (_req, res) => void res.json({ home: true })));
      },
    };
    const s = await start({ plugins: { rpc: true } }, 'test', [own]);
    expect((await s.request('GET', '/', undefined, { accept: BROWSER_ACCEPT })).body).to.deep.equal({ home: true });
    const docs = await start({ plugins: { rpc: true, openapi: { docsPath: '/' } } });
    expect((await docs.request('GET', '/', undefined, { accept: BROWSER_ACCEPT })).body).to.include('swagger-ui');
  });

  it('escapes what plugins say about themselves', async () => {
    const odd: Plugin = {
      name: 'odd',
      register(k) {
        k.hooks.capabilities.tap('odd', (list) => [
          ...list,
          { plugin: '<img src=x onerror=alert(1)>', protocol: '"x"', routes: ['GET /a&b'] },
        ]);
      },
    };
    const s = await start({ plugins: { rpc: true } }, 'test', [odd]);
    const html = await (await fetch(`${s.url}/`, { headers: { accept: 'text/html' } })).text();
    expect(html).to.not.include('<img').and.not.include('"x"');
    expect(html).to.include('&lt;img src=x onerror=alert(1)&gt;').and.include('&quot;x&quot;').and.include('href="/a&amp;b"');
  });
});
