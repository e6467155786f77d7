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
    // In memory: this process's data only, lost when it stops. Two instances started from these
    // configs do NOT share records (see README.md).
    default: { driver: 'memory' },

    // ==== SHARED STORE: switch to this once the SQL driver lands (next issue) =====================
    // Replace the memory datasource above with the one below, in BOTH v1.config.ts and
    // v2.config.ts, so that both processes read and write the same SQLite file:
    //
    // default: {
    //   driver: 'sql',
    //   client: 'better-sqlite3',
    //   connection: { filename: '../../data/multi-instance.sqlite' },
    // },
    // =============================================================================================
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
