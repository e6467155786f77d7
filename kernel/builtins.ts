/**
 * Built-in plugins and drivers, by the name the config uses. Loaded lazily (knex-style), so an
 * unused protocol costs nothing at start-up.
 */
import type { PluginLike } from './plugin';

type Loader = () => PluginLike<any>;

function defaultExport(mod: { default?: unknown }): PluginLike<any> {
  return (mod.default ?? mod) as PluginLike<any>;
}

export const BUILTIN_PLUGINS: Readonly<Record<string, Loader>> = Object.freeze({
  rpc: () => defaultExport(require('../plugins/rpc')),
  rest: () => defaultExport(require('../plugins/rest')),
  metadata: () => defaultExport(require('../plugins/metadata-api')),
  openapi: () => defaultExport(require('../plugins/openapi')),
  'rate-limit': () => defaultExport(require('../plugins/rate-limit')),
  auth: () => defaultExport(require('../plugins/auth')),
  odata: () => defaultExport(require('../plugins/odata')),
  graphql: () => defaultExport(require('../plugins/graphql')),
  'pubsub-redis': () => defaultExport(require('../plugins/pubsub-redis')),
  realtime: () => defaultExport(require('../plugins/realtime')),
  files: () => defaultExport(require('../plugins/files')),
});

/** Driver name (a datasource's `driver`) → the plugin that registers it. */
export const BUILTIN_DRIVERS: Readonly<Record<string, Loader>> = Object.freeze({
  memory: () => defaultExport(require('../drivers/memory')),
  sql: () => defaultExport(require('../drivers/sql')),
  mongo: () => defaultExport(require('../drivers/mongo')),
});
