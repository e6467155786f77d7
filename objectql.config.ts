/**
 * The sample application's config: `npm start` serves it. Every key is optional; see README.md.
 * This is a development config: it trusts the JSON-RPC body `user` so you can try permissions
 * without setting up authentication. Never turn that on in production.
 */
export default {
  port: 3000,
  metadata: ['./metadata'],
  datasources: {
    // A SQLite file beside this config (created on first start; delete it to start afresh).
    // Other stores: { driver: 'sql', client: 'pg', connection: 'postgres://...' },
    // { driver: 'sql', client: 'mysql2', connection: 'mysql://...' }, { driver: 'mongo', url: 'mongodb://...' },
    // { driver: 'memory' } (nothing kept across restarts).
    default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: './data/objectql.sqlite' } },
  },
  plugins: {
    rpc: true, // POST /api/objectql
    rest: true, // /api/data/:object
    metadata: true, // /api/metadata/objects
    openapi: true, // GET /api/objectql/openapi.json, reference page at /api/objectql/docs
  },
  security: {
    adminRoles: ['admin'],
    allowBodyUser: true,
  },
};
