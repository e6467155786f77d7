/**
 * The files plugin: the spec's File API (docs/spec.md, "File API") under its `path` option, else `routes.files` (default
 * /api/files), under the instance's basePath — streamed uploads validated against a file/image
 * field, downloads with ranges, image thumbnails and previews — plus the rules for attachment
 * values on records (they must name files the caller may read) and the clean-up of files no
 * record holds. See docs/files.md.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { definePlugin, importModule, PluginError, type Kernel } from '../../kernel';
import { checkAttachments } from './attach-check';
import { OrphanCleanup } from './cleanup';
import { download } from './download';
import { DatasourceFileRecords } from './datasource-records';
import { FileRecordStore, type FileRecords } from './file-records';
import { ImageCache } from './image-cache';
import { imageRoute } from './image-route';
import { addFilesToDocument } from './openapi';
import { parseOptions, type FilesOptions, type FilesSettings } from './options';
import type { FilesRuntime } from './runtime';
import { adaptCustomStorage, isCustomStorageBackend, type CustomStorageBackend } from './storage/custom';
import { LocalStorage } from './storage/local';
import { MemoryStorage } from './storage/memory';
import { S3Storage } from './storage/s3';
import type { FileStorage } from './storage/types';
import { uploadRoute } from './upload-route';

export type { FilesOptions } from './options';
export type { FileStorage } from './storage/types';
export type { CustomStorageBackend } from './storage/custom';

export default definePlugin((options: FilesOptions = {}) => {
  const settings: FilesSettings = parseOptions(options);
  const cache = new ImageCache();
  let kernel: Kernel;
  let apiBase = '';
  let rt: FilesRuntime | undefined;
  let cleanup: OrphanCleanup | undefined;

  return {
    name: 'files',
    register(k) {
      kernel = k;
      // A plain-segment prefix (routePrefix): safe in an express path.
      const base = k.http.route('files', settings.path);
      apiBase = process.env.SERVICE_BASE_URL ? process.env.SERVICE_BASE_URL.replace(/\/+$/, '') : base;
      k.hooks.capabilities.tap('files', (list) => [
        ...list,
        {
          plugin: 'files',
          protocol: 'files',
          routes: [
            `POST ${base}/upload`,
            `POST ${base}/upload/batch`,
            `GET ${base}/:fileId`,
            `GET ${base}/:fileId/thumbnail`,
            `GET ${base}/:fileId/preview`,
          ],
        },
      ]);
      k.hooks.openapi.tap('files', (doc) => addFilesToDocument(doc, base));
      // A remote store (S3) is a dependency of readiness, as the datasources are.
      k.hooks.readiness.tap('files', (checks) => {
        const storage = rt?.storage;
        if (!storage?.ping) return checks;
        const kind = settings.storage.type === 's3' ? 's3' : 'file storage';
        const name = settings.storage.type === 's3' ? settings.storage.bucket : 'files';
        return [...checks, { kind, name, check: () => storage.ping!() }];
      });
      const runtime = (): FilesRuntime => rt!;
      // Seed data is written before plugins start: the kernel's own writes, naming no uploads of ours.
      k.hooks.beforeCreate.for('*').tapPromise('files', async (ctx) => {
        if (rt) await checkAttachments(rt, ctx);
      });
      k.hooks.beforeUpdate.for('*').tapPromise('files', async (ctx) => {
        if (rt) await checkAttachments(rt, ctx);
      });
      k.hooks.recordChanged.tapPromise('files', async (change) => {
        await cleanup?.onChange(change);
      });
      k.hooks.routes.tap('files', (router) => {
        router.post(`${base}/upload`, (req, res) => uploadRoute(runtime(), false, req, res));
        router.post(`${base}/upload/batch`, (req, res) => uploadRoute(runtime(), true, req, res));
        router.get(`${base}/:fileId/thumbnail`, (req, res) => imageRoute(runtime(), cache, 'thumbnail', req, res));
        router.get(`${base}/:fileId/preview`, (req, res) => imageRoute(runtime(), cache, 'preview', req, res));
        router.get(`${base}/:fileId`, (req, res) => download(runtime(), req, res));
      });
    },
    async start() {
      const { storage, metadataDir } = await openStorage(kernel, settings, apiBase);
      let records: FileRecords;
      try {
        records = recordStore(kernel, settings, metadataDir);
        await records.open();
      } catch (err) {
        await storage.close?.();
        throw err;
      }
      rt = { kernel, storage, records, settings, apiBase };
      cleanup = new OrphanCleanup(rt);
      cleanup.start();
    },
    async stop() {
      await cleanup?.stop();
      await rt?.storage.close?.();
      rt?.records.clear();
      cache.clear();
    },
  };
});

/** The configured backend, and where upload records are kept for it. */
async function openStorage(k: Kernel, settings: FilesSettings, apiBase: string): Promise<{ storage: FileStorage; metadataDir?: string }> {
  const s = settings.storage;
  const dir = (path: string) => (isAbsolute(path) ? path : resolve(k.config.baseDir, path));
  const metadataDir = settings.metadataDir !== undefined ? dir(settings.metadataDir) : undefined;
  if (s.type === 'local') {
    const baseDir = dir(s.baseDir ?? process.env.SERVICE_UPLOAD_DIR ?? './uploads');
    // Ids never start with a dot, so the records folder can never be fetched as a file.
    return {
      storage: new LocalStorage({ baseDir, baseUrl: s.baseUrl ?? apiBase }),
      metadataDir: metadataDir ?? join(baseDir, '.objectql-meta'),
    };
  }
  if (s.type === 'memory') return { storage: new MemoryStorage({ baseUrl: s.baseUrl ?? apiBase }), metadataDir };
  if (s.type === 's3') {
    const { type: _type, baseUrl, ...s3 } = s;
    const storage = new S3Storage({ ...s3, baseUrl: baseUrl ?? apiBase });
    // Loaded before the first request: the first readiness probe must time the bucket, not the import.
    await storage.load();
    return { storage, metadataDir };
  }
  return { storage: adaptCustomStorage(await loadCustomBackend(k, s.module, s.options)), metadataDir };
}

/**
 * The upload records: as `records` says, else in the datasource for s3 storage (every instance
 * sees them), in a folder when there is one, else in memory.
 */
function recordStore(k: Kernel, settings: FilesSettings, metadataDir: string | undefined): FileRecords {
  const kind = settings.records ?? (settings.storage.type === 's3' ? 'datasource' : metadataDir ? 'folder' : 'memory');
  if (kind === 'memory') return new FileRecordStore();
  if (kind === 'folder') {
    if (!metadataDir) throw new PluginError(`Plugin 'files': records: 'folder' needs metadataDir (or local storage)`);
    return new FileRecordStore(metadataDir);
  }
  const datasources = k.resolve('datasources');
  if (!datasources.names().includes(settings.recordsDatasource)) {
    throw new PluginError(
      `Plugin 'files': recordsDatasource: no datasource '${settings.recordsDatasource}' (configured: ${datasources.names().join(', ')})`,
    );
  }
  return new DatasourceFileRecords(datasources.get(settings.recordsDatasource));
}

async function loadCustomBackend(
  k: Kernel,
  module: string | CustomStorageBackend,
  options: Record<string, unknown> | undefined,
): Promise<CustomStorageBackend> {
  if (typeof module !== 'string') return module;
  let exported: unknown;
  try {
    exported = await importModule(module, k.config.baseDir);
  } catch (err) {
    throw new PluginError(`Plugin 'files': storage.module: ${(err as Error).message}`);
  }
  const backend = typeof exported === 'function' ? await (exported as (o: unknown) => unknown)(options ?? {}) : exported;
  if (!isCustomStorageBackend(backend)) {
    throw new PluginError(
      `Plugin 'files': storage.module '${module}' must export a backend with save, get, delete and getPublicUrl functions (or a factory returning one)`,
    );
  }
  return backend;
}
