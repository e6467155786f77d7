/**
 * The built-in plugins and drivers, by the name a config uses: the one place that knows them.
 * Loaded lazily (knex-style), so an unused protocol costs nothing at start-up.
 */
import type { PluginCatalog, PluginLike, PluginLoader } from '../kernel';

/** A plugin module's default export (TypeScript's CommonJS output keeps it as `default`), else the module itself. */
function defaultExport(mod: unknown): PluginLike<never> {
  const exported = typeof mod === 'object' && mod !== null && 'default' in mod ? mod.default : mod;
  // What a module exports is not known to the compiler: Kernel.use checks that it is a plugin.
  return exported as PluginLike<never>;
}

const metadataApi: PluginLoader = () => defaultExport(require('../plugins/metadata-api'));

export const BUILTINS: PluginCatalog = Object.freeze({
  plugins: Object.freeze({
    rpc: () => defaultExport(require('../plugins/rpc')),
    rest: () => defaultExport(require('../plugins/rest')),
    'metadata-api': metadataApi,
    /** The metadata API's earlier name, still accepted. */
    metadata: metadataApi,
    openapi: () => defaultExport(require('../plugins/openapi')),
    'rate-limit': () => defaultExport(require('../plugins/rate-limit')),
    auth: () => defaultExport(require('../plugins/auth')),
    odata: () => defaultExport(require('../plugins/odata')),
    graphql: () => defaultExport(require('../plugins/graphql')),
    'pubsub-redis': () => defaultExport(require('../plugins/pubsub-redis')),
    realtime: () => defaultExport(require('../plugins/realtime')),
    files: () => defaultExport(require('../plugins/files')),
    metrics: () => defaultExport(require('../plugins/metrics')),
    studio: () => defaultExport(require('../plugins/studio')),
    events: () => defaultExport(require('../plugins/events')),
  }),
  /** Driver name (a datasource's `driver`) → the plugin that registers it. */
  drivers: Object.freeze({
    memory: () => defaultExport(require('../drivers/memory')),
    sql: () => defaultExport(require('../drivers/sql')),
    mongo: () => defaultExport(require('../drivers/mongo')),
  }),
});
