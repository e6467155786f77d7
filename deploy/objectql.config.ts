/**
 * The production config of the container image (docker-compose.yml, docs/deploy.md): everything an
 * instance shares with the others comes from the environment — PostgreSQL (records and upload
 * records), Redis (sessions, rate limits, change events) and an S3-compatible bucket (uploaded
 * files) — so any number of instances can run behind one load balancer. A variable that is
 * required and missing stops start-up naming it.
 */
function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`deploy/objectql.config.ts: set the environment variable ${name}`);
  return value;
}

function optionalEnv(name: string): string | undefined {
  return process.env[name] || undefined;
}

const redisUrl = env('REDIS_URL');
const s3Endpoint = optionalEnv('S3_ENDPOINT');

export default {
  metadata: ['../metadata'],
  logLevel: 'info',
  datasources: {
    default: { driver: 'sql', client: 'pg', connection: env('DATABASE_URL'), pool: { min: 0, max: 10 } },
  },
  plugins: {
    rpc: true,
    rest: true,
    'metadata-api': true,
    openapi: true,
    odata: true,
    graphql: true,
    realtime: true,
    // Change events of every instance reach the subscribers of every other one.
    'pubsub-redis': { url: redisUrl },
    files: {
      storage: {
        type: 's3',
        bucket: env('S3_BUCKET'),
        region: optionalEnv('S3_REGION') ?? 'us-east-1',
        ...(s3Endpoint ? { endpoint: s3Endpoint, forcePathStyle: true } : {}),
        // Absent: the SDK's own chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, shared config, role).
        ...(optionalEnv('S3_ACCESS_KEY_ID') ? { accessKeyId: env('S3_ACCESS_KEY_ID'), secretAccessKey: env('S3_SECRET_ACCESS_KEY') } : {}),
      },
      // Upload records in PostgreSQL (the default for s3 storage): every instance sees them.
      records: 'datasource',
    },
    auth: {
      jwt: { secret: env('OBJECTQL_JWT_SECRET') },
      sessions: { store: { redis: { url: redisUrl } } },
    },
    'rate-limit': { store: { redis: { url: redisUrl } } },
    metrics: true,
  },
  security: {
    adminRoles: ['admin'],
  },
};
