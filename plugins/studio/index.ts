/**
 * Studio: a web console at `path` (default /studio, under the base path) to browse and edit the
 * data as the signed-in user may. A single-page application (plugins/studio/app, built by
 * `npm run build` into dist/studio) that is a client like any other: it reads the metadata API,
 * reads and writes records through JSON-RPC and REST, uploads through the File API and listens on
 * the realtime WebSocket, with the user's session cookie. The server serves its page and files
 * (public: they hold no data) and nothing else. See docs/studio.md.
 */
import express from 'express';
import { definePlugin, ObjectQLError, type Kernel } from '../../kernel';
import { assetRouter, findAssetDir, readManifest } from './assets';
import { studioEndpoints } from './endpoints';
import { parseStudioOptions, type StudioOptions } from './options';
import { STUDIO_CSP, studioPage } from './page';

export type { StudioOptions } from './options';

export default definePlugin((options: StudioOptions = {}) => {
  const settings = parseStudioOptions(options);
  let kernel: Kernel;

  return {
    name: 'studio',
    dependsOn: ['rpc', 'rest', 'metadata-api'],
    register(k) {
      kernel = k;
      const base = k.http.path(settings.path).replace(/\/+$/, '');
      const dir = findAssetDir();
      const manifest = readManifest(dir);
      k.hooks.capabilities.tap('studio', (list) => [...list, { plugin: 'studio', protocol: 'html', routes: [`GET ${base}`] }]);
      // Routes are final once every plugin has registered: the page is made once, on the first request.
      let page: string | undefined;
      const render = () => (page ??= studioPage(manifest, { title: settings.title, base, api: studioEndpoints(kernel) }));
      k.hooks.publicRoutes.tap('studio', (router) => {
        const studio = express.Router({ strict: true });
        studio.use(
          '/assets',
          assetRouter(dir, (req, res) => kernel.http.sendError(req, res, new ObjectQLError('NOT_FOUND', `No Studio file at ${req.path}`))),
        );
        // Every other path is the app's: it routes in the browser.
        studio.get('/{*rest}', (_req, res) => {
          res.set({ 'Content-Security-Policy': STUDIO_CSP, 'Cache-Control': 'no-cache' }).type('html').send(render());
        });
        router.use(base, studio);
      });
    },
  };
});
