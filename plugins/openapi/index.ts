/**
 * The OpenAPI plugin: an OpenAPI 3.0.3 document generated from the metadata at `documentPath`
 * (default `{routes.rpc}/openapi.json`; each protocol plugin adds its own paths through the
 * kernel's `openapi` hook), and an interactive API reference at `docsPath` (default
 * `{routes.rpc}/docs`) served from swagger-ui-dist's local files. Both move with the instance's
 * basePath.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Request, Response } from 'express';
import { definePlugin, PluginError, type Kernel } from '../../kernel';
import { dataFileIds } from '../../kernel/protocol';
import { DocumentCache } from './cache';
import { baseDocument, OPENAPI_VERSION, schemaNameClashes, type DocumentSettings } from './document';
import { DOCS_ASSETS, DOCS_CSP, docsPage, INITIALIZER, initializerScript } from './docs-page';
import { parseOpenApiOptions, type OpenApiOptions, type OpenApiSettings } from './options';

export type { OpenApiOptions } from './options';

export default definePlugin((options: OpenApiOptions = {}) => {
  const settings = parseOpenApiOptions(options);
  let kernel: Kernel;
  let assetsDir = '';

  /** Where this plugin serves: read from the kernel when asked, since the rpc plugin may set its route in its own register. */
  const paths = () => servedPaths(kernel, settings);

  return {
    name: 'openapi',
    register(k) {
      kernel = k;
      k.hooks.capabilities.tap('openapi', (list) => {
        const { documentPath, docsPath } = paths();
        return [
          ...list,
          {
            plugin: 'openapi',
            protocol: 'openapi',
            version: OPENAPI_VERSION,
            routes: [`GET ${documentPath}`, `GET ${docsPath}`],
            document: documentPath,
            docs: docsPath,
          },
        ];
      });
      // Runs once every plugin has registered and started: the routes and the auth settings are final by then.
      k.hooks.publicRoutes.tap('openapi', (router) => {
        const pkg = packageInfo(kernel.config.baseDir);
        const license = settings.license ?? spdxLicense(pkg.license);
        const document: DocumentSettings = {
          title: settings.title ?? 'ObjectQL API',
          version: pkg.version ?? '1.0.0',
          ...paths(),
          anonymous: !authRequired(kernel),
          ...(license ? { license } : {}),
        };
        const cache = new DocumentCache(
          () => kernel.registry.revision,
          () => kernel.hooks.openapi.call(baseDocument(document, kernel.registry.objects(), dataFileIds(kernel.registry))),
        );
        const { documentPath, docsPath, title } = document;
        const assetBase = docsPath === '/' ? '' : docsPath;
        router.get(documentPath, (req, res) => serveDocument(kernel, req, res, cache));
        const page = docsPage(title, assetBase);
        router.get(docsPath, (_req, res) => {
          res.set({ 'Content-Security-Policy': DOCS_CSP, 'Cache-Control': 'no-cache' }).type('html').send(page);
        });
        const init = initializerScript(documentPath);
        router.get(`${assetBase}/${INITIALIZER}`, (_req, res) => {
          res.set('Cache-Control', 'no-cache').type('text/javascript; charset=utf-8').send(init);
        });
        for (const [file, type] of Object.entries(DOCS_ASSETS)) {
          router.get(`${assetBase}/${file}`, (req, res) => {
            res.sendFile(
              file,
              { root: assetsDir, maxAge: '1d', headers: { 'Content-Type': type, 'X-Content-Type-Options': 'nosniff' } },
              (err) => {
                if (err) kernel.http.sendError(req, res, err);
              },
            );
          });
        }
      });
    },
    start() {
      // The metadata is loaded now: an object whose schema name is taken fails start-up, not a request.
      const clashes = schemaNameClashes(kernel.registry.objects());
      if (clashes.length) throw new PluginError(`Plugin 'openapi': ${clashes.join('; ')}`);
      // The directory of the files the page loads, found without loading swagger-ui-dist's
      // index.js (which reads the whole 1.5 MB bundle into Node).
      assetsDir = dirname(require.resolve('swagger-ui-dist/swagger-ui-bundle.js'));
    },
  };
});

/** The document's and the page's paths as served: the options, else beside the JSON-RPC route; under the instance's basePath. */
function servedPaths(kernel: Kernel, settings: OpenApiSettings): { documentPath: string; docsPath: string } {
  const { http } = kernel;
  const rpc = http.routes.rpc;
  const { documentPath, docsPath } = settings;
  return {
    documentPath: documentPath ? http.path(documentPath) : `${rpc}/openapi.json`,
    // '/' is the root: of the base path, when there is one.
    docsPath: docsPath === '/' ? http.basePath || '/' : docsPath ? http.path(docsPath) : `${rpc}/docs`,
  };
}

function serveDocument(kernel: Kernel, req: Request, res: Response, cache: DocumentCache): void {
  try {
    const { json, etag } = cache.get();
    res.set({ ETag: etag, 'Cache-Control': 'no-cache' });
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    res.type('application/json; charset=utf-8').send(json);
  } catch (err) {
    kernel.http.sendError(req, res, err);
  }
}

/**
 * Whether callers without credentials are turned away, as the auth plugin says in its capability
 * (`required` is false when it lets them in, e.g. as a configured anonymous user). Without that
 * plugin anonymous callers are let in.
 */
function authRequired(kernel: Kernel): boolean {
  const auth = kernel.hooks.capabilities.call([]).find((c) => c.plugin === 'auth');
  return auth?.required === true;
}

/** `version` and `license` of the application's package.json (next to its config), where there is one. */
function packageInfo(dir: string): { version?: string; license?: string } {
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown; license?: unknown };
    return { version: text(pkg.version), license: text(pkg.license) };
  } catch {
    return {};
  }
}

/** An SPDX license id as an OpenAPI license object; none for UNLICENSED, SEE LICENSE IN ... or an expression. */
function spdxLicense(id: string | undefined): { name: string; url: string } | undefined {
  if (!id || !/^[A-Za-z0-9.+-]+$/.test(id) || id === 'UNLICENSED') return undefined;
  return { name: id, url: `https://spdx.org/licenses/${id}.html` };
}
