/** Options of the files plugin (see docs/files.md). */
import { z } from 'zod';
import { parsePluginOptions, routePrefix } from '../../kernel';
import { isCustomStorageBackend, type CustomStorageBackend } from './storage/custom';

export const DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024;
export const DEFAULT_MAX_FILES = 10;
export const DEFAULT_ORPHAN_TTL = 24 * 60 * 60;

const customBackend = z.custom<CustomStorageBackend>(isCustomStorageBackend, {
  message: 'must be an object with save, get, delete and getPublicUrl functions, or a module name or path exporting one',
});

const storage = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('local'), baseDir: z.string().min(1).optional(), baseUrl: z.string().min(1).optional() }),
  z.strictObject({ type: z.literal('memory'), baseUrl: z.string().min(1).optional() }),
  z
    .strictObject({
      type: z.literal('s3'),
      bucket: z.string().min(3).max(63),
      region: z.string().min(1).optional(),
      /** An S3-compatible endpoint (MinIO, ...); absent: AWS S3 of `region`. */
      endpoint: z.url().optional(),
      forcePathStyle: z.boolean().optional(),
      /** Key prefix of every stored file ("uploads/"). */
      prefix: z.string().max(200).optional(),
      /** Explicit credentials; absent: the SDK's standard chain (AWS_* environment, shared config, role). */
      accessKeyId: z.string().min(1).optional(),
      secretAccessKey: z.string().min(1).optional(),
      baseUrl: z.string().min(1).optional(),
    })
    .refine((s) => (s.accessKeyId === undefined) === (s.secretAccessKey === undefined), {
      message: 'accessKeyId and secretAccessKey go together: give both or neither',
      path: ['accessKeyId'],
    }),
  z.strictObject({
    type: z.literal('custom'),
    /** The backend, or a module (path relative to the config, or package) whose default export is one or a factory of one. */
    module: z.union([z.string().min(1), customBackend]),
    /** Passed to the module's factory. */
    options: z.record(z.string(), z.unknown()).optional(),
  }),
]);

const schema = z.strictObject({
  /** Route prefix of the File API (default: config `routes.files`, /api/files), under the instance's basePath. */
  path: routePrefix.optional(),
  storage: storage.optional(),
  /** Bytes, for a field without max_size and for uploads without a field. */
  maxFileSize: z.number().int().positive().optional(),
  /** Files per batch upload. */
  maxFiles: z.number().int().positive().max(1000).optional(),
  /** Seconds an upload may stay unattached to any record before it is deleted; 0 keeps it forever. */
  orphanTtl: z.number().nonnegative().optional(),
  /**
   * Where upload records are kept: 'folder' (`metadataDir`, default `{baseDir}/.objectql-meta`),
   * 'memory', or 'datasource' (a table in `recordsDatasource`, seen by every instance). Default:
   * 'folder' for local storage, 'datasource' for s3, else 'folder' when `metadataDir` is set, else memory.
   */
  records: z.enum(['datasource', 'folder', 'memory']).optional(),
  /** The datasource of `records: 'datasource'` (default: 'default'). */
  recordsDatasource: z.string().min(1).optional(),
  /** Where upload records are kept (default: `{baseDir}/.objectql-meta` for local storage, else memory). */
  metadataDir: z.string().min(1).optional(),
});

export type FilesOptions = z.input<typeof schema>;
export type StorageOptions = z.output<typeof storage>;

export interface FilesSettings {
  path?: string;
  storage: StorageOptions;
  maxFileSize: number;
  maxFiles: number;
  orphanTtl: number;
  records?: 'datasource' | 'folder' | 'memory';
  recordsDatasource: string;
  metadataDir?: string;
}

export function parseOptions(input: unknown): FilesSettings {
  const parsed = parsePluginOptions('files', schema, input);
  return {
    ...(parsed.path !== undefined ? { path: parsed.path } : {}),
    storage: parsed.storage ?? { type: 'local' },
    maxFileSize: parsed.maxFileSize ?? DEFAULT_MAX_FILE_SIZE,
    maxFiles: parsed.maxFiles ?? DEFAULT_MAX_FILES,
    orphanTtl: parsed.orphanTtl ?? DEFAULT_ORPHAN_TTL,
    ...(parsed.records !== undefined ? { records: parsed.records } : {}),
    recordsDatasource: parsed.recordsDatasource ?? 'default',
    ...(parsed.metadataDir !== undefined ? { metadataDir: parsed.metadataDir } : {}),
  };
}
