import { z } from 'zod';

// Plain path segments only: express would read ( ) * : { } as route syntax, and '//' would collapse to nothing.
const prefix = z
  .string()
  .regex(/^(\/[A-Za-z0-9._~-]+)+\/*$/, 'must be a path of plain segments starting with "/", such as "/v1/api" (letters, digits, . _ ~ -)')
  .transform((p) => p.replace(/\/+$/, ''));

export const DEFAULT_ROUTES = {
  rpc: '/api/objectql',
  data: '/api/data',
  metadata: '/api/metadata',
  files: '/api/files',
} as const;

export const configSchema = z.strictObject({
  port: z.number().int().min(0).max(65535).default(3000),
  host: z.string().default('0.0.0.0'),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Metadata folders, searched recursively; relative to the config file's folder. */
  metadata: z.array(z.string()).default(['./metadata']),
  datasources: z
    .record(z.string(), z.looseObject({ driver: z.string().min(1) }))
    // The embedded default: a SQLite file beside the config, no external service.
    .default({ default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: './data/objectql.sqlite' } } }),
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
    })
    .default({ adminRoles: ['admin'], allowBodyUser: false }),
  limits: z
    .strictObject({
      defaultTop: z.number().int().positive().default(100),
      maxTop: z.number().int().positive().default(1000),
      maxExpandDepth: z.number().int().min(0).default(3),
      maxFilterDepth: z.number().int().positive().default(16),
      maxFilterConditions: z.number().int().positive().default(200),
      maxBulkItems: z.number().int().positive().default(1000),
      maxBodyBytes: z.number().int().positive().default(1_048_576),
    })
    .default({ defaultTop: 100, maxTop: 1000, maxExpandDepth: 3, maxFilterDepth: 16, maxFilterConditions: 200, maxBulkItems: 1000, maxBodyBytes: 1_048_576 }),
  /** Folder that relative paths resolve against; the config file's folder when loaded from a file. */
  baseDir: z.string().optional(),
});

export type ObjectQLConfig = z.input<typeof configSchema>;
export type ResolvedConfig = z.output<typeof configSchema> & { baseDir: string };
