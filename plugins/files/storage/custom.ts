/**
 * Adapts the spec's custom backend (docs/spec.md, "File API") (save/get/delete/getPublicUrl over whole Buffers) to FileStorage.
 * An upload is buffered in memory up to maxBytes before save is called; a larger one is refused
 * with FILE_TOO_LARGE and save is never called. The id is the one save returns (or the last path
 * segment of its url when it returns none).
 */
import { Readable } from 'node:stream';
import { ObjectQLError } from '../../../kernel';
import { clampRange, pumpLimited, type FileStorage, type StoredFile } from './types';

export interface CustomStorageBackend {
  save(
    file: Buffer,
    filename: string,
    mimeType: string,
    options: { folder?: string; userId?: string },
  ): Promise<{ id?: string; url?: string; size?: number }>;
  get(fileId: string): Promise<Buffer | null>;
  delete(fileId: string): Promise<boolean>;
  getPublicUrl(fileId: string): string;
}

/** Duck-type check for a custom backend object. */
export function isCustomStorageBackend(value: unknown): value is CustomStorageBackend {
  const v = value as Record<string, unknown> | null;
  return !!v && typeof v === 'object' && ['save', 'get', 'delete', 'getPublicUrl'].every((k) => typeof v[k] === 'function');
}

export function adaptCustomStorage(custom: CustomStorageBackend): FileStorage {
  const saved = new Map<string, Date>();
  const load = async (id: string): Promise<Buffer | null> => {
    if (typeof id !== 'string' || !id) return null;
    // Typed Buffer, but a backend may hand back any Uint8Array.
    const data: Uint8Array | null = await custom.get(id);
    return Buffer.isBuffer(data) ? data : data == null ? null : Buffer.from(data);
  };
  return {
    async put(content, info, limits): Promise<StoredFile> {
      const chunks: Buffer[] = [];
      const size = await pumpLimited(content, limits.maxBytes, (chunk) => {
        chunks.push(chunk);
      });
      const data = Buffer.concat(chunks, size);
      const options: { folder?: string; userId?: string } = {};
      if (info.folder !== undefined) options.folder = info.folder;
      if (info.userId !== undefined) options.userId = info.userId;
      const result = await custom.save(data, info.filename, info.mimeType, options);
      let id = result && typeof result.id === 'string' && result.id ? result.id : undefined;
      if (!id && result && typeof result.url === 'string') {
        const last = result.url.split(/[?#]/)[0].split('/').filter(Boolean).pop();
        if (last) id = decodeURIComponent(last);
      }
      if (!id) throw new ObjectQLError('UPLOAD_FAILED', 'Custom storage returned no file id');
      saved.set(id, new Date());
      return { id, size: result && typeof result.size === 'number' ? result.size : size };
    },
    async open(id, range) {
      const data = await load(id);
      if (!data) return null;
      const r = clampRange(range, data.length);
      return Readable.from(r ? [data.subarray(r.start, r.end + 1)] : []);
    },
    /** mtime is the upload time when this process saved the file, else the time of the call. */
    async stat(id) {
      const data = await load(id);
      return data ? { size: data.length, mtime: saved.get(id) ?? new Date() } : null;
    },
    async delete(id) {
      saved.delete(id);
      return (await custom.delete(id)) === true;
    },
    getPublicUrl(id) {
      return custom.getPublicUrl(id);
    },
  };
}
