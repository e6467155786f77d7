/**
 * The built app (scripts/build-studio.mjs writes dist/studio): its manifest, and its files served
 * with a one-year immutable cache (their names carry their content's hash), in the precompressed
 * form the browser accepts.
 */
import express, { type Request, type Response, type Router } from 'express';
import { existsSync, readFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { PluginError } from '../../kernel';

export interface StudioManifest {
  entry: string;
  css?: string;
  /** Chunks the entry imports, fetched before the app runs. */
  preload: string[];
  initialJavaScriptGzipBytes: number;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

/** dist/studio: beside the compiled plugin (dist/plugins/studio), or under dist/ when run from source. */
export function findAssetDir(): string {
  const candidates = [resolve(__dirname, '../../studio'), resolve(__dirname, '../../dist/studio')];
  const dir = candidates.find((d) => existsSync(join(d, 'manifest.json')));
  if (!dir) throw new PluginError("Plugin 'studio': its app is not built (no dist/studio/manifest.json): run npm run build");
  return dir;
}

export function readManifest(dir: string): StudioManifest {
  return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as StudioManifest;
}

/** Serves `{base}/assets/<file>`: only files of the build (a name with a hash, no path), br or gzip when accepted; anything else is `notFound`. */
export function assetRouter(dir: string, notFound: (req: Request, res: Response) => void): Router {
  const router = express.Router();
  router.get('/:file', (req: Request, res: Response, next) => {
    const file = String(req.params.file);
    const type = TYPES[extname(file)];
    if (!type || !/^[\w.-]+$/.test(file) || file === 'manifest.json' || !existsSync(join(dir, file))) return next();
    // Asked one at a time: given several, `accepts` follows the client's order, and browsers list gzip before br.
    const encoding = file.endsWith('.map')
      ? undefined
      : req.acceptsEncodings('br')
        ? 'br'
        : req.acceptsEncodings('gzip')
          ? 'gzip'
          : undefined;
    const suffix = encoding === 'br' ? '.br' : encoding === 'gzip' ? '.gz' : '';
    res.set({
      'Content-Type': type,
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
      Vary: 'Accept-Encoding',
      ...(encoding ? { 'Content-Encoding': encoding } : {}),
    });
    res.sendFile(file + suffix, { root: dir, etag: true, lastModified: false }, (err) => {
      if (err && !res.headersSent && (err as NodeJS.ErrnoException).code !== 'ECONNABORTED') next(err);
    });
  });
  router.use(notFound);
  return router;
}
