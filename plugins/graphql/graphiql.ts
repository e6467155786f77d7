/**
 * GraphiQL, the in-browser GraphQL IDE, for a browser's GET on the GraphQL endpoint: an HTML page
 * that loads GraphiQL (graphiql 3.x's UMD bundle, which expects React 18 as the globals `React` and
 * `ReactDOM`) and React from the installed npm packages, served under `{path}/graphiql/`, plus a
 * small initializer script (a file, not an inline script) pointing GraphiQL at the endpoint on the
 * same origin, its subscriptions at the same endpoint with the ws scheme. A bar above GraphiQL
 * takes an API key or a Bearer token, kept for the tab's session (sessionStorage) and sent on every
 * request and in the subscriptions' connection_init. Nothing is fetched from another origin; the
 * page's Content-Security-Policy says so to the browser. GraphiQL's stylesheet embeds its fonts as
 * data: URIs.
 */
import { dirname, join } from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { CREDENTIALS_FORM, graphiqlInitializer, PAGE_CSS } from './graphiql-init';

export interface GraphiQLOptions {
  /** The page title; default 'GraphiQL'. */
  title?: string;
  /** Whether the endpoint serves subscriptions over graphql-ws (GraphiQL then runs them there); default true. */
  subscriptions?: boolean;
}

/** Under `{path}/graphiql/`. */
export const GRAPHIQL_ASSET_DIR = 'graphiql';
/** Written by this module (not a package file): starts GraphiQL on the endpoint. */
export const GRAPHIQL_INITIALIZER = 'objectql-graphiql-init.js';
/** Written by this module: the page's own few rules (full-height container). */
export const GRAPHIQL_PAGE_CSS = 'objectql-graphiql.css';

/** The package files the page uses: served name → package, path inside it, content type. In load order within each kind. */
export const GRAPHIQL_ASSETS: ReadonlyArray<{ name: string; pkg: string; file: string; type: string }> = [
  { name: 'graphiql.min.css', pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css; charset=utf-8' },
  { name: 'react.production.min.js', pkg: 'react', file: 'umd/react.production.min.js', type: 'text/javascript; charset=utf-8' },
  {
    name: 'react-dom.production.min.js',
    pkg: 'react-dom',
    file: 'umd/react-dom.production.min.js',
    type: 'text/javascript; charset=utf-8',
  },
  { name: 'graphiql.min.js', pkg: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript; charset=utf-8' },
];

/**
 * Same-origin only. GraphiQL (CodeMirror, Radix UI) sets inline style attributes and inserts
 * <style> elements, and its stylesheet carries its fonts and a few images as data: URIs (hence
 * those allowances); scripts come only from this server, no inline script runs, and nothing needs
 * eval. connect-src 'self' covers the queries (and same-host WebSockets in current browsers).
 */
export const GRAPHIQL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

/** Long enough that a browser keeps them; the package version is in no URL, so not `immutable`. */
const ASSET_MAX_AGE = '7d';

/** The directory of an installed package: its package.json is exported by each of the three (their `exports` hide the UMD files themselves). */
function packageDir(pkg: string): string {
  return dirname(require.resolve(`${pkg}/package.json`));
}

/**
 * Serves the GraphiQL page for GET `path` when the request prefers HTML to JSON and carries no
 * `query` parameter (anything else goes on to the next handler: the GraphQL GET), and its files
 * under `{path}/graphiql/`. Mount it before the endpoint's GET handler. `path` must be a plain
 * path (letters, digits, - . _ ~ /), as express reads it as a route.
 */
export function mountGraphiQL(router: Router, path: string, options: GraphiQLOptions = {}): void {
  const endpoint = path === '/' ? '/' : path.replace(/\/+$/, '');
  const assetBase = `${endpoint === '/' ? '' : endpoint}/${GRAPHIQL_ASSET_DIR}`;
  const page = graphiqlPage(options.title ?? 'GraphiQL', assetBase);
  const init = graphiqlInitializer(endpoint, options.subscriptions ?? true);
  const files = GRAPHIQL_ASSETS.map((a) => ({
    ...a,
    root: join(packageDir(a.pkg), dirname(a.file)),
    base: a.file.slice(a.file.lastIndexOf('/') + 1),
  }));

  router.get(endpoint, (req: Request, res: Response, next: NextFunction) => {
    if (!wantsGraphiQL(req)) return next();
    res.set({ 'Content-Security-Policy': GRAPHIQL_CSP, 'Cache-Control': 'no-cache', Vary: 'Accept' }).type('html').send(page);
  });
  // The files under one prefix: a request elsewhere passes them with one match, not one per file.
  const assets = express.Router();
  router.use(assetBase, assets);
  assets.get(`/${GRAPHIQL_INITIALIZER}`, (_req, res) => {
    res.set({ 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' }).type('text/javascript; charset=utf-8').send(init);
  });
  assets.get(`/${GRAPHIQL_PAGE_CSS}`, (_req, res) => {
    res.set({ 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' }).type('text/css; charset=utf-8').send(PAGE_CSS);
  });
  for (const f of files) {
    assets.get(`/${f.name}`, (_req, res, next) => {
      res.sendFile(
        f.base,
        { root: f.root, maxAge: ASSET_MAX_AGE, headers: { 'Content-Type': f.type, 'X-Content-Type-Options': 'nosniff' } },
        (err) => {
          // A browser leaving mid-file (ECONNABORTED) is no error to report.
          if (err && !res.headersSent && (err as NodeJS.ErrnoException).code !== 'ECONNABORTED') next(err);
        },
      );
    });
  }
}

/**
 * A browser navigating to the endpoint: a GET without `query`, whose Accept prefers text/html to
 * the GraphQL JSON types (so curl's `*∕*`, or no Accept at all, still reaches the endpoint).
 */
export function wantsGraphiQL(req: Request): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (req.query && typeof req.query === 'object' && 'query' in req.query) return false;
  if (!req.headers.accept) return false;
  return req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html';
}

/** `assetBase`: where the files are, e.g. '/api/graphql/graphiql'. */
export function graphiqlPage(title: string, assetBase: string): string {
  const asset = (name: string) => escapeHtml(`${assetBase}/${name}`);
  const styles = GRAPHIQL_ASSETS.filter((a) => a.name.endsWith('.css'))
    .map((a) => `  <link rel="stylesheet" href="${asset(a.name)}">\n`)
    .join('');
  const scripts = GRAPHIQL_ASSETS.filter((a) => a.name.endsWith('.js'))
    .map((a) => `  <script src="${asset(a.name)}"></script>\n`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>${escapeHtml(title)}</title>
${styles}  <link rel="stylesheet" href="${asset(GRAPHIQL_PAGE_CSS)}">
</head>
<body>
${CREDENTIALS_FORM}  <div id="graphiql">Loading GraphiQL…</div>
  <noscript>GraphiQL needs JavaScript. The endpoint also answers POST {query, variables} and GET ?query=.</noscript>
${scripts}  <script src="${asset(GRAPHIQL_INITIALIZER)}"></script>
</body>
</html>
`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
