/**
 * Instance "v1" of a two-instance layout (see README.md): the sample application under /v1/...
 * on port 3101. v2.config.ts is the same with /v2/... on port 3102.
 *
 *   node bin/objectql.js serve --config examples/multi-instance/v1.config.ts
 *
 * Relative paths resolve against this file's folder.
 */
export default {
  port: 3101,
  metadata: ['../../metadata'],
  routes: {
    rpc: '/v1/rpc',
    data: '/v1/data',
    metadata: '/v1/metadata',
    files: '/v1/files',
  },
  datasources: {
    // Both instances read and write the same SQLite file (relative to this folder), so a record
    // written through /v1 is there through /v2. For PostgreSQL or MySQL, point both configs at the
    // same database: { driver: 'sql', client: 'pg', connection: 'postgres://...' }.
    default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: '../../data/multi-instance.sqlite' } },
  },
  plugins: {
    rpc: true,
    rest: true,
    metadata: true,
  },
  security: {
    // Development only, like the root objectql.config.ts: trusts the JSON-RPC body `user`.
    allowBodyUser: true,
  },
};
