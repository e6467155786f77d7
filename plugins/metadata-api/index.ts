/**
 * The metadata API: `{path}/objects`, `/objects/:name` (also `/object/:name`), its fields,
 * actions and the caller's access, the admin-only label/description update, and every loaded metadata type at `/:type`
 * and `/:type/:id` — `path` being the plugin's option, else `routes.metadata`, under the
 * instance's basePath. Thin HTTP binding; what each route answers is in mapping.ts.
 */
import type { Request, RequestHandler } from 'express';
import { definePlugin, isAnonymous, parsePluginOptions, type Kernel, type ObjectDefinition } from '../../kernel';
import { assertJsonBody, routeOptions, type RouteOptions } from '../../kernel/protocol';
import {
  getAccess,
  getEntry,
  getField,
  getObject,
  listActions,
  listEntries,
  listObjects,
  refuseWrite,
  requireAdmin,
  updateObjectInfo,
  type Viewer,
} from './mapping';
import { addMetadataPaths } from './openapi';

export default definePlugin((options: RouteOptions = {}) => {
  const settings = parsePluginOptions('metadata-api', routeOptions, options);
  let kernel: Kernel;

  /** The caller as the mapping sees it: identity from the kernel, readable fields from the engine's permissions. */
  function viewerOf(req: Request): Viewer {
    const ctx = kernel.http.context(req);
    const user = ctx.user;
    const adminRoles = kernel.config.security.adminRoles;
    return {
      user,
      admin: !isAnonymous(user) && (user?.roles ?? []).some((r) => adminRoles.includes(r)),
      readable(def: ObjectDefinition) {
        const visibility = kernel.engine.repo(def.name, ctx).visibility();
        return visibility.canRead ? visibility.readable : undefined;
      },
    };
  }

  /** A route answering with what `fn` returns (as JSON), or with the spec's error body. */
  function handle(fn: (viewer: Viewer, params: Record<string, string>, req: Request) => unknown): RequestHandler {
    return (req, res) => {
      try {
        res.json(fn(viewerOf(req), req.params as Record<string, string>, req));
      } catch (err) {
        kernel.http.sendError(req, res, err);
      }
    };
  }

  return {
    name: 'metadata-api',
    register(k) {
      kernel = k;
      // A plain-segment prefix (routePrefix): safe in an express path.
      const base = k.http.route('metadata', settings.path);
      const both = (suffix: string) => [`${base}/objects${suffix}`, `${base}/object${suffix}`];
      const routes = [
        `GET ${base}/objects`,
        `GET ${base}/objects/:name`,
        `GET ${base}/objects/:name/fields/:field`,
        `GET ${base}/objects/:name/actions`,
        `GET ${base}/objects/:name/access`,
        `PUT ${base}/object/:name`,
        `GET ${base}/:type`,
        `GET ${base}/:type/:id`,
        `POST ${base}/:type/:id`,
      ];
      k.hooks.capabilities.tap('metadata-api', (list) => [
        ...list,
        { plugin: 'metadata-api', protocol: 'metadata', routes, aliases: { objects: 'object' }, writable: false },
      ]);
      k.hooks.openapi.tap('metadata-api', (doc) => addMetadataPaths(doc, base));
      k.hooks.routes.tap('metadata-api', (router) => {
        const registry = () => kernel.registry;
        router.get(
          `${base}/objects`,
          handle((viewer) => listObjects(registry(), viewer)),
        );
        router.get(
          both('/:name'),
          handle((viewer, p) => getObject(registry(), viewer, p.name)),
        );
        router.get(
          both('/:name/fields/:field'),
          handle((viewer, p) => getField(registry(), viewer, p.name, p.field)),
        );
        router.get(
          both('/:name/actions'),
          handle((viewer, p) => listActions(registry(), viewer, p.name)),
        );
        router.get(
          both('/:name/access'),
          handle((viewer, p, req) => {
            const ctx = kernel.http.context(req);
            return getAccess(registry(), viewer, p.name, (def) => kernel.engine.repo(def.name, ctx).permissions());
          }),
        );
        router.put(
          both('/:name'),
          handle((viewer, p, req) => {
            // Who asks comes first; then a body not declared as JSON (never parsed) is named as such.
            requireAdmin(viewer, 'Updating object metadata');
            assertJsonBody(req.headers);
            return updateObjectInfo(registry(), viewer, p.name, req.body);
          }),
        );
        router.get(
          `${base}/:type`,
          handle((viewer, p) => listEntries(registry(), viewer, p.type)),
        );
        router.get(
          `${base}/:type/:id`,
          handle((viewer, p) => getEntry(registry(), viewer, p.type, p.id)),
        );
        router.post(
          `${base}/:type/:id`,
          handle((viewer, p) => refuseWrite(viewer, p.type, p.id, base)),
        );
      });
    },
  };
});
