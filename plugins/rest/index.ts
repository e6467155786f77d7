/** The REST protocol: the spec's REST table (docs/spec.md, "REST style API") under `{path}` (default `routes.data`, under the instance's basePath). */
import type { Request, Response } from 'express';
import { definePlugin, parsePluginOptions, type Kernel } from '../../kernel';
import { assertJsonBody, dataFileIds, routeOptions, type RouteOptions } from '../../kernel/protocol';
import { executeRest, type RestRoute } from './mapping';
import { restPaths } from './openapi';
import { LIST_PARAMS } from './query';

/** Method, path under the prefix, route; PATCH is accepted as PUT. */
const ROUTES: ReadonlyArray<readonly ['get' | 'post' | 'put' | 'patch' | 'delete', string, RestRoute]> = [
  ['get', '/:object', 'list'],
  ['post', '/:object', 'create'],
  ['post', '/:object/bulk-update', 'bulkUpdate'],
  ['post', '/:object/bulk-delete', 'bulkDelete'],
  ['get', '/:object/:id', 'get'],
  ['put', '/:object/:id', 'update'],
  ['patch', '/:object/:id', 'update'],
  ['delete', '/:object/:id', 'delete'],
];
const WITH_BODY = new Set<RestRoute>(['create', 'update', 'bulkUpdate', 'bulkDelete']);

export default definePlugin((options: RouteOptions = {}) => {
  const settings = parsePluginOptions('rest', routeOptions, options);
  let kernel: Kernel;
  /** The data prefix as served (basePath included), set in register. */
  let base: string;

  async function handle(route: RestRoute, req: Request, res: Response): Promise<void> {
    try {
      // A body that is not declared as JSON is never parsed: say so rather than "not an object".
      // No body at all (or Content-Length: 0) is left to the mapping, which says a body is missing.
      if (WITH_BODY.has(route)) assertJsonBody(req.headers);
      const params = req.params as Record<string, string>;
      // Read from the raw URL, not req.query: repeated names stay visible, whatever query parser Express is set to.
      const mark = req.originalUrl.indexOf('?');
      const query = new URLSearchParams(mark < 0 ? '' : req.originalUrl.slice(mark + 1));
      const result = await executeRest(
        kernel.engine,
        { route, object: params.object, id: params.id, query, body: req.body, ifMatch: req.get('if-match') },
        kernel.http.context(req),
      );
      if (result.createdId !== undefined)
        res.location(`${base}/${encodeURIComponent(params.object)}/${encodeURIComponent(result.createdId)}`);
      if (result.headers) res.set(result.headers);
      res.status(result.status).json(result.body);
    } catch (err) {
      kernel.http.sendError(req, res, err);
    }
  }

  return {
    name: 'rest',
    register(k) {
      kernel = k;
      // Route prefixes are plain path segments (the kernel's routePrefix): safe in an express path.
      base = k.http.route('data', settings.path);
      k.hooks.capabilities.tap('rest', (list) => [
        ...list,
        {
          plugin: 'rest',
          protocol: 'rest',
          routes: ROUTES.map(([method, path]) => `${method.toUpperCase()} ${base}${path}`),
          listParameters: [...LIST_PARAMS],
        },
      ]);
      k.hooks.routes.tap('rest', (router) => {
        for (const [method, path, route] of ROUTES) router[method](base + path, (req, res) => handle(route, req, res));
      });
      k.hooks.openapi.tap('rest', (doc) => ({
        ...doc,
        paths: { ...doc.paths, ...restPaths(k.registry.objects(), base, dataFileIds(k.registry)) },
      }));
    },
  };
});
