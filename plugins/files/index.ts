/**
 * The files plugin: the spec's File API under `{routes.files}` (default /api/files) — streamed
 * uploads validated against a file/image field, downloads with ranges, image thumbnails and
 * previews. Every route needs an authenticated caller. See docs/files.md for what is enforced.
 */
import type { Request, Response } from 'express';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { definePlugin, isAnonymous, ObjectQLError, sendError, type Kernel, type RequestContext } from '../../kernel';
import { parseOptions, type FilesOptions, type FilesSettings } from './options';
import { receiveUpload, readStored, type UploadRules, type UploadedFile } from './upload';
import { isValidFileId, type FileStorage } from './storage/types';
import { LocalStorage } from './storage/local';
import { MemoryStorage } from './storage/memory';
import { adaptCustomStorage } from './storage/custom';
import { THUMBNAIL_SIZES, resizeImage } from './images';

export type { FilesOptions } from './options';

/** What the plugin remembers of each upload (in memory, and beside the file for local storage). */
export interface FileRecord {
  id: string;
  name: string;
  type: string;
  size: number;
  uploaded_at: string;
  uploaded_by?: string;
  object?: string;
  field?: string;
  width?: number;
  height?: number;
}

export const MAX_PREVIEW_PX = 4096;
const CACHE_BYTES = 64 * 1024 * 1024;
const SIZES = ['small', 'medium', 'large'] as const;
type SizeName = (typeof SIZES)[number];

export default definePlugin((options: FilesOptions = {}) => {
  const settings: FilesSettings = parseOptions(options);
  let kernel: Kernel;
  let storage: FileStorage;
  let apiBase = '';
  let sidecarDir: string | undefined;
  const records = new Map<string, FileRecord>();
  /** Generated thumbnails and previews, per kernel, least recently used dropped first. */
  const cache = new Map<string, { data: Buffer; contentType: string }>();
  let cacheBytes = 0;

  function remember(key: string, value: { data: Buffer; contentType: string }): void {
    if (value.data.length > CACHE_BYTES / 4) return;
    cache.set(key, value);
    cacheBytes += value.data.length;
    for (const [k, v] of cache) {
      if (cacheBytes <= CACHE_BYTES) break;
      cache.delete(k);
      cacheBytes -= v.data.length;
    }
  }

  async function saveRecord(record: FileRecord): Promise<void> {
    records.set(record.id, record);
    if (sidecarDir) await writeFile(join(sidecarDir, `${record.id}.json`), JSON.stringify(record));
  }

  async function loadRecord(id: string): Promise<FileRecord | undefined> {
    const known = records.get(id);
    if (known || !sidecarDir) return known;
    try {
      const record = JSON.parse(await readFile(join(sidecarDir, `${id}.json`), 'utf8')) as FileRecord;
      if (record && record.id === id) {
        records.set(id, record);
        return record;
      }
    } catch {
      /* no sidecar: a file this plugin did not upload */
    }
    return undefined;
  }

  function caller(req: Request): RequestContext {
    const ctx = kernel.http.context(req);
    if (isAnonymous(ctx.user)) throw new ObjectQLError('UNAUTHORIZED', 'Authentication required');
    return ctx;
  }

  /** The field an upload names, checked: it exists, is a file/image field, and the caller may read it. */
  async function rulesFor(ctx: RequestContext, object: string | undefined, field: string | undefined): Promise<UploadRules> {
    if (object === undefined && field === undefined) return { maxBytes: settings.maxFileSize };
    if (!object || !field) throw new ObjectQLError('INVALID_REQUEST', 'Parts object and field go together: give both or neither');
    const def = kernel.engine.has(object) ? kernel.engine.object(object).def : undefined;
    const f = def?.fields[field];
    if (!f || (f.type !== 'file' && f.type !== 'image')) {
      throw new ObjectQLError('FILE_VALIDATION_ERROR', `'${object}.${field}' is not a file or image field`, { file: null, reason: 'invalid_field', object, field });
    }
    await assertFieldReadable(ctx, object, field);
    return { field: f, maxBytes: settings.maxFileSize };
  }

  /** Throws FILE_ACCESS_DENIED unless the caller may read the object and its field is not hidden from them. */
  async function assertFieldReadable(ctx: RequestContext, object: string, field: string): Promise<void> {
    try {
      await kernel.engine.repo(object, ctx).count({ filters: [[field, '!=', null]] });
    } catch (err) {
      if (err instanceof ObjectQLError && err.status >= 500) throw err;
      throw new ObjectQLError('FILE_ACCESS_DENIED', `Not allowed to access files of '${object}.${field}'`, { object, field });
    }
  }

  /**
   * A file attached to (uploaded for) object.field: its uploader may read it; anyone else must be
   * able to read some record of the object whose field holds this file's id.
   */
  async function assertMayDownload(ctx: RequestContext, record: FileRecord): Promise<void> {
    if (!record.object || !record.field) return;
    if (record.uploaded_by !== undefined && record.uploaded_by === ctx.user?.id) return;
    const denied = () => new ObjectQLError('FILE_ACCESS_DENIED', 'Not allowed to access this file');
    if (!kernel.engine.has(record.object)) throw denied();
    const repo = kernel.engine.repo(record.object, ctx);
    const page = 200;
    for (let skip = 0; skip < 50 * page; skip += page) {
      let items: Array<Record<string, unknown>>;
      try {
        ({ items } = await repo.find({ filters: [[record.field, '!=', null]], fields: ['id', record.field], top: page, skip }));
      } catch (err) {
        if (err instanceof ObjectQLError && err.status >= 500) throw err;
        throw denied();
      }
      if (items.some((item) => holds(item[record.field!], record.id))) return;
      if (items.length < page) break;
    }
    throw denied();
  }

  function attachment(file: UploadedFile, record: FileRecord) {
    const id = file.stored.id;
    const base = {
      id,
      name: file.name,
      url: storage.getPublicUrl(id),
      size: file.stored.size,
      type: file.type,
      original_name: file.name,
      uploaded_at: record.uploaded_at,
      ...(record.uploaded_by !== undefined ? { uploaded_by: record.uploaded_by } : {}),
    };
    if (!file.type.startsWith('image/') || file.width === undefined) return base;
    const thumb = (size: SizeName) => `${apiBase}/${encodeURIComponent(id)}/thumbnail?size=${size}`;
    return {
      ...base,
      width: file.width,
      height: file.height,
      thumbnail_url: thumb('small'),
      variants: { small: thumb('small'), medium: thumb('medium'), large: thumb('large') },
    };
  }

  async function upload(req: Request, res: Response, batch: boolean): Promise<void> {
    try {
      const ctx = caller(req);
      const form = await receiveUpload(req, batch ? 'files' : 'file', batch ? settings.maxFiles : 1, {
        storage,
        userId: ctx.user?.id,
        rules: (f) => rulesFor(ctx, f.object, f.field),
      });
      const now = new Date().toISOString();
      const out = [];
      try {
        for (const file of form.files) {
          const record: FileRecord = {
            id: file.stored.id,
            name: file.name,
            type: file.type,
            size: file.stored.size,
            uploaded_at: now,
            uploaded_by: ctx.user?.id,
            ...(form.object ? { object: form.object, field: form.field } : {}),
            ...(file.width !== undefined ? { width: file.width, height: file.height } : {}),
          };
          await saveRecord(record);
          out.push(attachment(file, record));
        }
      } catch (err) {
        await Promise.all(form.files.map((f) => storage.delete(f.stored.id).catch(() => false)));
        throw err;
      }
      res.status(200).json({ data: batch ? out : out[0] });
    } catch (err) {
      // The request may still be sending: answer, then let the socket close rather than read on.
      if (!req.complete) res.setHeader('Connection', 'close');
      sendError(req, res, err);
    }
  }

  /** The file's metadata and stat, access checked; FILE_NOT_FOUND for anything not there. */
  async function locate(req: Request): Promise<{ record: FileRecord | undefined; id: string; size: number; mtime: Date }> {
    const ctx = caller(req);
    const id = String((req.params as Record<string, string>).fileId ?? '');
    const notFound = () => new ObjectQLError('FILE_NOT_FOUND', 'File not found', { file: id.slice(0, 200) });
    if (!isValidFileId(id)) throw notFound();
    const stat = await storage.stat(id);
    if (!stat) throw notFound();
    const record = await loadRecord(id);
    if (record) await assertMayDownload(ctx, record);
    return { record, id, size: stat.size, mtime: stat.mtime };
  }

  async function download(req: Request, res: Response): Promise<void> {
    try {
      const { record, id, size, mtime } = await locate(req);
      const etag = `"${id}-${size}-${mtime.getTime().toString(36)}"`;
      const type = record?.type ?? 'application/octet-stream';
      res.setHeader('ETag', etag);
      res.setHeader('Last-Modified', mtime.toUTCString());
      res.setHeader('Accept-Ranges', 'bytes');
      res.setHeader('Cache-Control', 'private, max-age=0, must-revalidate');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Content-Disposition', disposition(type.startsWith('image/') && type !== 'image/svg+xml' ? 'inline' : 'attachment', record?.name ?? id));
      if (notModified(req, etag, mtime)) {
        res.status(304).end();
        return;
      }
      let range: { start: number; end: number } | undefined;
      const header = req.get('range');
      if (header && ifRangeMatches(req, etag, mtime)) {
        const parsed = parseRange(header, size);
        if (parsed === 'unsatisfiable') {
          res.setHeader('Content-Range', `bytes */${size}`);
          throw new RangeNotSatisfiable();
        }
        range = parsed;
      }
      const stream = await storage.open(id, range);
      if (!stream) throw new ObjectQLError('FILE_NOT_FOUND', 'File not found');
      res.setHeader('Content-Type', type);
      if (range) {
        res.status(206);
        res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
        res.setHeader('Content-Length', String(range.end - range.start + 1));
      } else {
        res.status(200);
        res.setHeader('Content-Length', String(size));
      }
      if (req.method === 'HEAD') {
        (stream as unknown as { destroy?: () => void }).destroy?.();
        res.end();
        return;
      }
      stream.on('error', (err) => {
        req.log.error({ err }, 'files: reading a stored file failed');
        res.destroy();
      });
      stream.pipe(res);
    } catch (err) {
      if (err instanceof RangeNotSatisfiable) {
        res.status(416).end();
        return;
      }
      sendError(req, res, err);
    }
  }

  async function image(req: Request, res: Response, kind: 'thumbnail' | 'preview'): Promise<void> {
    try {
      const { record, id, mtime } = await locate(req);
      const type = record?.type;
      if (!type || !type.startsWith('image/')) throw new ObjectQLError('FILE_TYPE_NOT_ALLOWED', `File '${record?.name ?? id}' is not an image`, { file: record?.name ?? id, type: type ?? null });
      let box: { width?: number; height?: number };
      let key: string;
      if (kind === 'thumbnail') {
        const size = (req.query.size ?? 'small') as string;
        if (!SIZES.includes(size as SizeName)) throw new ObjectQLError('INVALID_REQUEST', `size must be one of ${SIZES.join(', ')}`);
        const px = THUMBNAIL_SIZES[size as SizeName];
        box = { width: px, height: px };
        key = size;
      } else {
        const width = dimension(req.query.width, 'width');
        const height = dimension(req.query.height, 'height');
        if (width === undefined && height === undefined) throw new ObjectQLError('INVALID_REQUEST', 'Give width, height or both');
        box = { ...(width !== undefined ? { width } : {}), ...(height !== undefined ? { height } : {}) };
        key = `${width ?? ''}x${height ?? ''}`;
      }
      const etag = `"${id}-${kind}-${key}-${mtime.getTime().toString(36)}"`;
      res.setHeader('ETag', etag);
      res.setHeader('Last-Modified', mtime.toUTCString());
      res.setHeader('Cache-Control', 'private, max-age=0, must-revalidate');
      if (notModified(req, etag, mtime)) {
        res.status(304).end();
        return;
      }
      const cacheKey = `${id}\n${etag}`;
      let out = cache.get(cacheKey);
      if (out) {
        cache.delete(cacheKey);
        cache.set(cacheKey, out);
      } else {
        const content = await readStored(storage, id);
        if (!content) throw new ObjectQLError('FILE_NOT_FOUND', 'File not found');
        try {
          out = await resizeImage(content, box);
        } catch {
          throw new ObjectQLError('FILE_TYPE_NOT_ALLOWED', `File '${record?.name ?? id}' is not a readable image`, { file: record?.name ?? id });
        }
        remember(cacheKey, out);
      }
      res.status(200).setHeader('Content-Type', out.contentType);
      res.setHeader('Content-Length', String(out.data.length));
      res.end(req.method === 'HEAD' ? undefined : out.data);
    } catch (err) {
      sendError(req, res, err);
    }
  }

  return {
    name: 'files',
    register(k) {
      kernel = k;
      const base = k.config.routes.files;
      apiBase = process.env.SERVICE_BASE_URL ? process.env.SERVICE_BASE_URL.replace(/\/+$/, '') : base;
      const s = settings.storage;
      if (s.type === 'local') {
        const dir = s.baseDir ?? process.env.SERVICE_UPLOAD_DIR ?? './uploads';
        const baseDir = isAbsolute(dir) ? dir : resolve(k.config.baseDir, dir);
        storage = new LocalStorage({ baseDir, baseUrl: s.baseUrl ?? apiBase });
        sidecarDir = join(baseDir, '.objectql-meta');
      } else if (s.type === 'memory') {
        storage = new MemoryStorage({ baseUrl: s.baseUrl ?? apiBase });
      } else {
        storage = adaptCustomStorage(s.module);
      }
      k.hooks.capabilities.tap('files', (list) => [
        ...list,
        {
          plugin: 'files',
          protocol: 'files',
          routes: [`POST ${base}/upload`, `POST ${base}/upload/batch`, `GET ${base}/:fileId`, `GET ${base}/:fileId/thumbnail`, `GET ${base}/:fileId/preview`],
        },
      ]);
      k.hooks.routes.tapPromise('files', async (router) => {
        if (sidecarDir) await mkdir(sidecarDir, { recursive: true });
        router.post(`${base}/upload`, (req, res) => upload(req, res, false));
        router.post(`${base}/upload/batch`, (req, res) => upload(req, res, true));
        router.get(`${base}/:fileId/thumbnail`, (req, res) => image(req, res, 'thumbnail'));
        router.get(`${base}/:fileId/preview`, (req, res) => image(req, res, 'preview'));
        router.get(`${base}/:fileId`, (req, res) => download(req, res));
      });
    },
    async stop() {
      await storage?.close?.();
      cache.clear();
      records.clear();
    },
  };
});

class RangeNotSatisfiable extends Error {}

/** Does an attachment value (single, array, or JSON text) hold the file `id`? */
function holds(value: unknown, id: string): boolean {
  if (value == null) return false;
  if (typeof value === 'string') {
    try {
      return holds(JSON.parse(value), id);
    } catch {
      return false;
    }
  }
  if (Array.isArray(value)) return value.some((v) => holds(v, id));
  if (typeof value === 'object') {
    const v = value as { id?: unknown; url?: unknown };
    if (v.id === id) return true;
    return typeof v.url === 'string' && v.url.split('?')[0].endsWith(`/${encodeURIComponent(id)}`);
  }
  return false;
}

function dimension(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PREVIEW_PX) throw new ObjectQLError('INVALID_REQUEST', `${name} must be an integer from 1 to ${MAX_PREVIEW_PX}`);
  return n;
}

/** One `bytes=` range (a multi-range is served whole); undefined when the header is to be ignored. */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return undefined;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}

function notModified(req: Request, etag: string, mtime: Date): boolean {
  const inm = req.get('if-none-match');
  if (inm) return inm.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}` || t.trim() === '*');
  const ims = req.get('if-modified-since');
  if (ims) {
    const t = Date.parse(ims);
    return !Number.isNaN(t) && Math.floor(mtime.getTime() / 1000) <= Math.floor(t / 1000);
  }
  return false;
}

function ifRangeMatches(req: Request, etag: string, mtime: Date): boolean {
  const ifRange = req.get('if-range');
  if (!ifRange) return true;
  if (ifRange.startsWith('"') || ifRange.startsWith('W/')) return ifRange === etag;
  const t = Date.parse(ifRange);
  return !Number.isNaN(t) && Math.floor(mtime.getTime() / 1000) <= Math.floor(t / 1000);
}

function disposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
