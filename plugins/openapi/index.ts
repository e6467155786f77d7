/**
 * The OpenAPI plugin: `GET {routes.rpc}/openapi.json`, an OpenAPI 3.0.3 document generated from
 * the metadata (each protocol plugin adds its own paths through the kernel's `openapi` hook), and
 * an interactive API reference at `docsPath` (default `{routes.rpc}/docs`) served from
 * swagger-ui-dist's local files.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Request, Response } from 'express';
import { definePlugin, PluginError, sendError, type Kernel } from '../../kernel';
import { DocumentCache } from './cache';
import { baseDocument, OPENAPI_VERSION, schemaNameClashes, type DocumentSettings } from './document';
import { DOCS_ASSETS, DOCS_CSP, docsPage, INITIALIZER, initializerScript } from './docs-page';

export interface OpenApiOptions {
  /** Path of the API reference page; default `{routes.rpc}/docs`. */
  docsPath?: string;
  /** `info.title` of the document and the page title; default 'ObjectQL API'. */
  title?: string;
}

const OPTION_KEYS = new Set(['docsPath', 'title']);
const DOCS_PATH = /^\/[\w\-.~/]*$/;

export default definePlugin((options: OpenApiOptions = {}) => {
  checkOptions(options);
  let kernel: Kernel;
  let settings: DocumentSettings;
  let cache: DocumentCache;
  let assetsDir = '';
  return {
    name: 'openapi',
    register(k) {
      kernel = k;
      // Prefixes (kernel config) and docsPath (checkOptions) are plain path segments: safe in an express path.
      const base = k.config.routes.rpc;
      settings = {
        title: options.title ?? 'ObjectQL API',
        version: '1.0.0',
        documentPath: `${base}/openapi.json`,
        docsPath: options.docsPath ? options.docsPath.replace(/(.)\/+$/, '$1') : `${base}/docs`,
        anonymous: !authRequired(k.config.plugins.auth),
      };
      cache = new DocumentCache(
        () => kernel.registry.objects(),
        (objects) => kernel.hooks.openapi.call(baseDocument(settings, objects)),
      );
      const { documentPath, docsPath } = settings;
      const assetBase = docsPath === '/' ? '' : docsPath;
      k.hooks.capabilities.tap('openapi', (list) => [
        ...list,
        {
          plugin: 'openapi',
          protocol: 'openapi',
          version: OPENAPI_VERSION,
          routes: [`GET ${documentPath}`, `GET ${docsPath}`],
          document: documentPath,
          docs: docsPath,
        },
      ]);
      k.hooks.publicRoutes.tapPromise('openapi', async (router) => {
        router.get(documentPath, (req, res) => serveDocument(req, res, cache));
        const page = docsPage(settings.title, assetBase);
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
                if (err) sendError(req, res, err);
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
      settings.version = packageVersion(kernel.config.baseDir) ?? settings.version;
      // swagger-ui-dist's index.js loads the whole 1.5 MB bundle into Node; its absolute-path module
      // is the same getAbsoluteFSPath without that cost.
      const getAbsoluteFSPath = require('swagger-ui-dist/absolute-path.js') as () => string;
      assetsDir = getAbsoluteFSPath();
    },
  };
});

function serveDocument(req: Request, res: Response, cache: DocumentCache): void {
  try {
    const { json, etag } = cache.get();
    res.set({ ETag: etag, 'Cache-Control': 'no-cache' });
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    res.type('application/json; charset=utf-8').send(json);
  } catch (err) {
    sendError(req, res, err);
  }
}

function checkOptions(options: unknown): asserts options is OpenApiOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new PluginError("Plugin 'openapi': options must be an object {docsPath?, title?}");
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw new PluginError(`Plugin 'openapi': unknown option '${key}'; expected docsPath, title`);
  }
  const { docsPath, title } = options as Record<string, unknown>;
  if (docsPath !== undefined && (typeof docsPath !== 'string' || !DOCS_PATH.test(docsPath))) {
    throw new PluginError(
      `Plugin 'openapi': docsPath must be a path starting with "/" (letters, digits, - . _ ~ /), got ${JSON.stringify(docsPath)}`,
    );
  }
  if (title !== undefined && (typeof title !== 'string' || !title.trim()))
    throw new PluginError(`Plugin 'openapi': title must be a non-empty string, got ${JSON.stringify(title)}`);
}

/**
 * Whether the auth plugin turns away callers without credentials: it is enabled, its `required`
 * (default true) is not false and it has no `anonymous` user. Without that plugin anonymous callers are let in.
 */
function authRequired(auth: unknown): boolean {
  if (auth === true) return true;
  if (typeof auth !== 'object' || auth === null) return false;
  const { required, anonymous } = auth as { required?: unknown; anonymous?: unknown };
  return required !== false && anonymous === undefined;
}

/** `version` of the application's package.json (next to its config), if there is one. */
function packageVersion(dir: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' && pkg.version ? pkg.version : undefined;
  } catch {
    return undefined;
  }
}
