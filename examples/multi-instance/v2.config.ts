/**
 * Instance "v2" of a two-instance layout (see README.md): the sample application with every door
 * under /v2 — JSON-RPC, REST, the metadata API, OData, GraphQL and the OpenAPI document — on port
 * 3102. v1.config.ts is the same with /v1 on port 3101: one setting, `basePath`, moves them all.
 *
 *   node bin/objectql.js serve --config examples/multi-instance/v2.config.ts
 *
 * Relative paths resolve against this file's folder.
 */
export default {
  port: 3102,
  basePath: '/v2',
  metadata: ['../../metadata'],
  datasources: {
    // Both instances read and write the same SQLite file (relative to this folder), so a record
    // written through /v1 is there through /v2. For PostgreSQL or MySQL, point both configs at the
    // same database: { driver: 'sql', client: 'pg', connection: 'postgres://...' }.
    default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: '../../data/multi-instance.sqlite' } },
  },
  plugins: {
    rpc: true,
    rest: true,
    'metadata-api': true,
    odata: true,
    graphql: true,
    openapi: true,
  },
  security: {
    // Development only, like the root objectql.config.ts: trusts the JSON-RPC body `user`.
    allowBodyUser: true,
  },
};
