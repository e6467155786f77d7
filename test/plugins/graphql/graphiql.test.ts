/**
 * The GraphiQL page on a bare express app (no kernel): served to a browser's GET only, every file
 * it references served from this server with its content type, a strict Content-Security-Policy,
 * no other origin named anywhere; and, where Chromium is installed, the page really rendering in a
 * headless browser with no CSP violation and its introspection query reaching the endpoint.
 */
import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { buildSchema, graphql } from 'graphql';
import { GRAPHIQL_ASSETS, GRAPHIQL_CSP, mountGraphiQL } from '../../../plugins/graphql/graphiql';
import { chromiumOrSkip, renderedDom } from '../../helpers/chromium';

const PATH = '/api/graphql';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
/** Script and stylesheet URLs of a page. */
const referenced = (html: string) => [...html.matchAll(/<(?:script[^>]*\bsrc|link[^>]*\bhref)="([^"]+)"/g)].map((m) => m[1]);
/** CDNs and any absolute URL to another origin a script or stylesheet could load from. */
const CDN = /(unpkg\.com|jsdelivr\.net|cdnjs|esm\.sh|skypack|googleapis|gstatic|cloudflare)/i;

const schema = buildSchema('type Query { hello: String }');

describe('GraphiQL page', () => {
  let server: Server;
  let base: string;
  /** Bodies the endpoint received, and CSP violation reports. */
  const posted: Array<{ query?: string }> = [];
  const cspReports: unknown[] = [];
  let reportViolations = false;

  before(async () => {
    const app = express();
    // For the browser test only: have the browser report any CSP violation here.
    app.use((_req, res, next) => {
      const setHeader = res.setHeader.bind(res);
      res.setHeader = (name: string, value: string | number | readonly string[]) =>
        setHeader(name, reportViolations && /^content-security-policy$/i.test(name) ? `${String(value)}; report-uri /csp-report` : value);
      next();
    });
    app.post('/csp-report', express.json({ type: () => true }), (req, res) => {
      cspReports.push(req.body);
      res.status(204).end();
    });
    const router = express.Router();
    mountGraphiQL(router, PATH, { title: 'Tracker <GraphQL>' });
    router.get(PATH, (req, res) => {
      res.json({ endpoint: 'get', query: req.query.query ?? null });
    });
    router.post(PATH, express.json(), async (req, res) => {
      posted.push(req.body);
      res.json(await graphql({ schema, source: String(req.body?.query), variableValues: req.body?.variables }));
    });
    app.use(router);
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('serves the HTML page to a browser, with a strict CSP and no inline script', async () => {
    const res = await fetch(base + PATH, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.headers.get('vary')).to.match(/Accept/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).to.equal(GRAPHIQL_CSP);
    expect(csp)
      .to.include("default-src 'self'")
      .and.include("script-src 'self';")
      .and.include("connect-src 'self'")
      .and.include("object-src 'none'");
    expect(csp).to.not.match(/unsafe-eval|https?:|\*/);
    const html = await res.text();
    expect(html).to.include('<div id="graphiql">');
    expect(html).to.include('<title>Tracker &#60;GraphQL&#62;</title>');
    expect(html).to.not.match(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(html).to.not.match(/(src|href)="(https?:)?\/\//); // no other origin
    expect(html).to.not.match(CDN);
    expect(referenced(html)).to.have.length(GRAPHIQL_ASSETS.length + 2);
    for (const url of referenced(html)) expect(url.startsWith(`${PATH}/graphiql/`), url).to.equal(true);
  });

  it('serves every referenced file with its content type, and none names a CDN', async () => {
    const html = await (await fetch(base + PATH, { headers: { accept: 'text/html' } })).text();
    for (const url of referenced(html)) {
      const res = await fetch(base + url);
      expect(res.status, url).to.equal(200);
      const type = res.headers.get('content-type')!;
      if (url.endsWith('.js')) expect(type, url).to.match(/^text\/javascript/);
      else expect(type, url).to.match(/^text\/css/);
      expect(res.headers.get('x-content-type-options'), url).to.equal('nosniff');
      const body = await res.text();
      expect(body.length, url).to.be.greaterThan(50);
      expect(body, url).to.not.match(CDN);
      // Package files are kept long; the two written here are revalidated.
      if (/objectql-/.test(url)) expect(res.headers.get('cache-control'), url).to.equal('no-cache');
      else expect(res.headers.get('cache-control'), url).to.match(/max-age=[1-9]\d{4,}/);
    }
  });

  it('points the initializer at the endpoint and loads GraphiQL, React and ReactDOM in order', async () => {
    const html = await (await fetch(base + PATH, { headers: { accept: 'text/html' } })).text();
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1].split('/').pop());
    expect(scripts).to.deep.equal([
      'react.production.min.js',
      'react-dom.production.min.js',
      'graphiql.min.js',
      'objectql-graphiql-init.js',
    ]);
    const init = await (await fetch(`${base}${PATH}/graphiql/objectql-graphiql-init.js`)).text();
    expect(init).to.include('GraphiQL.createFetcher({').and.include('url: "/api/graphql",');
    expect(init).to.include('\'ws://\') + location.host + "/api/graphql"');
    expect(init).to.include('ReactDOM.createRoot');
  });

  it('leaves non-browser GETs, GETs with a query, and POSTs to the endpoint', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/graphql-response+json, text/html;q=0.5']) {
      const res = await fetch(base + PATH, { headers: accept ? { accept } : {} });
      expect(await res.json(), String(accept)).to.deep.equal({ endpoint: 'get', query: null });
    }
    const q = await fetch(`${base}${PATH}?query=${encodeURIComponent('{hello}')}`, { headers: { accept: BROWSER_ACCEPT } });
    expect(await q.json()).to.deep.equal({ endpoint: 'get', query: '{hello}' });
    const p = await fetch(base + PATH, {
      method: 'POST',
      headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{hello}' }),
    });
    expect(await p.json()).to.deep.equal({ data: { hello: null } });
  });

  it('serves nothing else of the packages', async () => {
    for (const url of [
      `${PATH}/graphiql/package.json`,
      `${PATH}/graphiql/graphiql.js`,
      `${PATH}/graphiql/..%2Fpackage.json`,
      `${PATH}/graphiql/umd/react.production.min.js`,
      `${PATH}/graphiql/`,
    ]) {
      expect((await fetch(base + url)).status, url).to.equal(404);
    }
  });

  it('takes a trailing slash in the path and a default title', async () => {
    const app = express();
    const router = express.Router();
    mountGraphiQL(router, '/gql/');
    app.use(router);
    const s = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => s.once('listening', resolve));
    try {
      const at = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
      const html = await (await fetch(`${at}/gql`, { headers: { accept: 'text/html' } })).text();
      expect(html).to.include('<title>GraphiQL</title>').and.include('src="/gql/graphiql/graphiql.min.js"');
      expect((await fetch(`${at}/gql/graphiql/graphiql.min.css`)).status).to.equal(200);
      expect(await (await fetch(`${at}/gql/graphiql/objectql-graphiql-init.js`)).text()).to.include('url: "/gql",');
    } finally {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  });

  describe('in a headless browser', function () {
    let chromium: string;

    before(function () {
      chromium = chromiumOrSkip(this);
    });

    it('renders GraphiQL, which introspects the endpoint, with no CSP violation', async function () {
      this.timeout(60_000);
      posted.length = 0;
      cspReports.length = 0;
      reportViolations = true;
      try {
        const dom = await renderedDom(chromium, base + PATH, 10_000);
        expect(dom).to.include('class="graphiql-container"');
        expect(dom).to.include('CodeMirror');
        expect(dom).to.not.include('Loading GraphiQL…');
        expect(
          posted.some((b) => /__schema/.test(b.query ?? '')),
          'an introspection query',
        ).to.equal(true);
        // Reports are sent on their own; give a late one a moment.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(cspReports).to.deep.equal([]);
      } finally {
        reportViolations = false;
      }
    });
  });
});
