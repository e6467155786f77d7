import { z } from 'zod';
import { customTypeProblem } from '../metadata/metadata-types';

// Plain path segments only: express would read ( ) * : { } as route syntax, and '//' would collapse to nothing.
const prefix = z
  .string()
  .regex(/^(\/[A-Za-z0-9._~-]+)+\/*$/, 'must be a path of plain segments starting with "/", such as "/v1/api" (letters, digits, . _ ~ -)')
  .transform((p) => p.replace(/\/+$/, ''));

/** A route prefix: plain path segments, no trailing slash (what `basePath`, `routes.*` and plugins' `path` options take). */
export const routePrefix = prefix;

export type RouteKey = keyof typeof DEFAULT_ROUTES;

export const DEFAULT_ROUTES = {
  rpc: '/api/objectql',
  data: '/api/data',
  metadata: '/api/metadata',
  files: '/api/files',
} as const;

// A browser origin: scheme://host[:port], no path; or '*' for any origin.
const origin = z
  .string()
  .regex(
    /^(\*|[a-z][a-z0-9+.-]*:\/\/[^/\s]+)$/i,
    'must be an origin such as "https://app.example.com" (scheme, host and port, no path) or "*"',
  );
const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be a header name');

const corsSchema = z.union([
  z.boolean(),
  z
    .strictObject({
      origin: z.union([origin, z.array(origin).min(1)]),
      /** Let browsers send cookies and Authorization to this service from those origins. */
      credentials: z.boolean().optional(),
      /** Seconds a browser may cache a preflight answer. */
      maxAge: z.number().int().min(0).optional(),
      /** Response headers scripts may read, besides X-Request-Id, X-RateLimit-* and the other defaults. */
      exposedHeaders: z.array(headerName).optional(),
      /** Request headers allowed; default: whatever the preflight asks for. */
      allowedHeaders: z.array(headerName).optional(),
    })
    .refine((c) => !(c.credentials && [c.origin].flat().includes('*')), {
      message: "credentials need explicit origins: browsers refuse them with origin '*'",
      path: ['credentials'],
    }),
]);

// WebSocket limits (docs/security.md, "WebSockets"): shared by every WebSocket protocol (realtime, GraphQL subscriptions).
const positiveInt = z.number().int().positive();
const websocketLimits = z.strictObject({
  maxConnectionsPerIp: positiveInt.default(128),
  maxConnectionsPerUser: positiveInt.default(32),
  maxSubscriptionsPerConnection: positiveInt.default(100),
  maxSubscriptionsPerUser: positiveInt.default(200),
  messagesPerSecond: positiveInt.default(50),
  messageBurst: positiveInt.default(200),
  maxBufferedBytes: positiveInt.default(4_194_304),
  authTimeoutSeconds: z.number().positive().default(10),
  heartbeatSeconds: z.number().positive().default(30),
});
/** Connection limits and timeouts of the kernel's HTTP server (and of plugins' own ports). */
export const serverSchema = z
  .strictObject({
    /** Open connections at once; one more is answered 503 and closed. Keep it below the open-file limit (ulimit -n). */
    maxConnections: z.number().int().positive().default(10_000),
    /** Open connections from one client address (an IPv6 /64); one more is answered 429 and closed. Behind a proxy, every connection is the proxy's. */
    maxConnectionsPerIp: z.number().int().positive().default(1000),
    /** Time for a connection to send a request's headers (also a connection that sends nothing); then 408 and closed. */
    headersTimeoutMs: z.number().int().positive().default(20_000),
    /** Time to receive a whole request, headers and body; then 408 and closed. Large uploads on slow links need more. */
    requestTimeoutMs: z.number().int().positive().default(60_000),
    /** An idle keep-alive connection is closed after this long. Behind a load balancer, make it longer than the balancer's. */
    keepAliveTimeoutMs: z.number().int().positive().default(5_000),
    /** On stop, time for the responses in flight to finish before their connections are closed. */
    shutdownTimeoutMs: z.number().int().min(0).default(10_000),
  })
  .refine((s) => s.headersTimeoutMs <= s.requestTimeoutMs, {
    message: 'must not be longer than requestTimeoutMs (the whole request includes its headers)',
    path: ['headersTimeoutMs'],
  });

export const configSchema = z.strictObject({
  port: z.number().int().min(0).max(65535).default(3000),
  host: z.string().default('0.0.0.0'),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Metadata folders, searched recursively; relative to the config file's folder. */
  metadata: z.array(z.string()).default(['./metadata']),
  /** Custom metadata types (`<id>.<type>.yml`) loaded besides the spec's; a file of any other type stops start-up. */
  metadataTypes: z
    .array(
      z.string().superRefine((type, ctx) => {
        const problem = customTypeProblem(type);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    )
    .default([]),
  datasources: z
    .record(z.string(), z.looseObject({ driver: z.string().min(1) }))
    // The embedded default: a SQLite file beside the config, no external service.
    .default({ default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: './data/objectql.sqlite' } } }),
  /**
   * Moves every door of this instance under one path (`/v2`): the four route prefixes, OData,
   * GraphQL, realtime, the API document and docs, the session routes and the discovery route.
   * `/health` stays where it is (and answers under it too).
   */
  basePath: prefix.optional(),
  /** GET / (under `basePath`): a page listing this instance's doors, JSON for programs; a plugin serving GET / wins. */
  landingPage: z.boolean().default(true),
  /**
   * OpenTelemetry spans: one per HTTP request, per engine operation and per SQL statement, through
   * @opentelemetry/api into the SDK the application registers (docs/tracing.md). Off: nothing is traced.
   */
  tracing: z.boolean().default(false),
  /** The spec's route prefixes (docs/spec.md, "Route prefixes"); a plugin's own `path` option, when given, wins here. */
  routes: z
    .strictObject({ rpc: prefix.optional(), data: prefix.optional(), metadata: prefix.optional(), files: prefix.optional() })
    .default({})
    .transform((r) => ({ ...DEFAULT_ROUTES, ...r })),
  /** Plugin name (built-in name, package name or path) → true, false, or its options. */
  plugins: z.record(z.string(), z.union([z.boolean(), z.record(z.string(), z.unknown())])).default({ rpc: true }),
  security: z
    .strictObject({
      /** Users with one of these roles bypass every permission check. */
      adminRoles: z.array(z.string()).default(['admin']),
      /** Honour the JSON-RPC body `user` field. Development and tests only. */
      allowBodyUser: z.boolean().default(false),
      /** Cross-origin requests from browsers (docs/security.md): off, any origin (no credentials), or these origins. */
      cors: corsSchema.default(false),
      /** Security headers on every response (nosniff, frame denial, no referrer, a strict CSP ...). */
      headers: z.boolean().default(true),
      /** Strict-Transport-Security: only behind TLS. `true` = one year, with subdomains. */
      hsts: z
        .union([
          z.boolean(),
          z.strictObject({
            maxAge: z.number().int().positive(),
            includeSubDomains: z.boolean().optional(),
            preload: z.boolean().optional(),
          }),
        ])
        .default(false),
      /** Origins besides the service's own allowed to open a WebSocket that carries cookies; '*' = any. */
      websocketOrigins: z.array(origin).default([]),
    })
    .prefault({}),
  limits: z
    .strictObject({
      defaultTop: z.number().int().positive().default(100),
      maxTop: z.number().int().positive().default(1000),
      maxExpandDepth: z.number().int().min(0).default(3),
      maxFilterDepth: z.number().int().positive().default(16),
      maxFilterConditions: z.number().int().positive().default(200),
      maxBulkItems: z.number().int().positive().default(1000),
      maxBodyBytes: z.number().int().positive().default(1_048_576),
      /** Nesting of arrays and objects in any JSON input (bodies, query-string JSON, JSON values), checked before anything recurses over it. */
      maxJsonDepth: z.number().int().positive().default(64),
      websocket: websocketLimits.prefault({}),
      // Values every engine stores alike (docs/security.md, "Values and query inputs").
      /** Characters of a text value (text, textarea, email, url, phone, select, ids) unless its field declares max_length. */
      maxTextLength: z.number().int().positive().default(65_536),
      /** Nesting of a JSON value (json, object, file, image, multiple fields); MariaDB's JSON check accepts at most 31 levels. */
      maxJsonValueDepth: z.number().int().positive().max(31).default(31),
      /** Characters of a JSON value (json, object, file, image fields) as JSON text. */
      maxJsonLength: z.number().int().positive().default(262_144),
      /** Characters of a like / contains / startswith / endswith filter value. */
      maxPatternLength: z.number().int().positive().default(1000),
      /** Records a list may skip; beyond it, page with a filter on the sort key. */
      maxSkip: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(100_000),
      /** Bytes of one JSON (or text) response on every protocol; a larger one answers INVALID_REQUEST instead. Files are exempt. */
      maxResponseBytes: z.number().int().positive().default(33_554_432),
      /**
       * Related records one condition through a relation may match (their ids become an `in`
       * list), and records of a one-to-many expand paged in memory on a store that cannot page per group.
       */
      maxRelatedRecords: z.number().int().positive().default(10_000),
    })
    .default({
      defaultTop: 100,
      maxTop: 1000,
      maxExpandDepth: 3,
      maxFilterDepth: 16,
      maxFilterConditions: 200,
      maxBulkItems: 1000,
      maxBodyBytes: 1_048_576,
      maxJsonDepth: 64,
      websocket: websocketLimits.parse({}),
      maxTextLength: 65_536,
      maxJsonValueDepth: 31,
      maxJsonLength: 262_144,
      maxPatternLength: 1000,
      maxSkip: 100_000,
      maxResponseBytes: 33_554_432,
      maxRelatedRecords: 10_000,
    }),
  /** GET /health/ready and answers for a dependency that is down (docs/security.md, "Failing dependencies"). */
  health: z
    .strictObject({
      /** How long one dependency's check may take before it counts as down. */
      readyTimeoutMs: z.number().int().positive().default(2000),
      /** How long a readiness answer is reused: a flood of /health/ready is not a flood of pings. */
      readyCacheMs: z.number().int().min(0).default(1000),
      /** Retry-After (seconds) on a 503 SERVICE_UNAVAILABLE. */
      retryAfterSeconds: z.number().int().positive().default(5),
    })
    .prefault({}),
  /** The HTTP server's connection limits and timeouts (docs/security.md, "Server limits"). */
  server: serverSchema.prefault({}),
  /** Folder that relative paths resolve against; the config file's folder when loaded from a file. */
  baseDir: z.string().optional(),
});

export type ObjectQLConfig = z.input<typeof configSchema>;
export type ResolvedConfig = z.output<typeof configSchema> & { baseDir: string };
