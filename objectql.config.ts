/**
 * The sample application's config: `npm start` serves it. Every key is optional; see README.md.
 * This is a development config: plain API keys for the sample users, a JWT secret from the
 * environment with a development fallback, and the JSON-RPC body `user` trusted so you can try
 * permissions without credentials. Never run production like this (docs/auth.md).
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
    'metadata-api': true, // /api/metadata/objects
    openapi: true, // GET /api/objectql/openapi.json, reference page at /api/objectql/docs
    odata: true, // /odata: $metadata, entity sets, $batch
    graphql: true, // /api/graphql (GraphiQL in a browser), subscriptions over ws:// at the same path
    realtime: true, // ws://localhost:3000/api/realtime
    files: true, // /api/files: upload, download, thumbnails (stored in ./uploads)
    auth: {
      // Bearer JWTs signed with this secret (HS256), `sub` as the user id and `roles` as roles. The
      // fallback is public: the server warns about it at start and refuses it unless NODE_ENV is
      // development or test (`npm start` sets development).
      jwt: { secret: process.env.OBJECTQL_JWT_SECRET ?? 'development-secret-change-me-0123456789' },
      // X-API-Key: one per sample user. In production, keep only hashes: `objectql hash-key`.
      apiKeys: [
        { key: 'dev-key-alice-0001', user: { id: 'alice', roles: ['member'] } },
        { key: 'dev-key-carol-0001', user: { id: 'carol', roles: ['manager'] } },
        { key: 'dev-key-admin-0001', user: { id: 'root', roles: ['admin'] } },
      ],
      sessions: true, // POST /api/auth/session trades a token or key for a session cookie
    },
    // The spec's tiers, counted in memory. Outside production the sample raises them tenfold, so
    // that its own developer clicking through GraphiQL and the API reference is not refused.
    'rate-limit':
      process.env.NODE_ENV === 'production'
        ? true
        : {
            tiers: {
              anonymous: { perMinute: 200, perHour: 1000 },
              authenticated: { perMinute: 1000, perHour: 10000 },
              premium: { perMinute: 5000, perHour: 100000 },
            },
          },
    metrics: true, // GET /metrics for Prometheus, read by admins (docs/metrics.md)
    studio: true, // the web console at /studio: sign in with one of the API keys above (docs/studio.md)
    // events: true, // a change feed at /api/events and the workflows of metadata/**/*.workflow.yml (docs/events.md)
  },
  security: {
    adminRoles: ['admin'],
    allowBodyUser: true,
  },
};
