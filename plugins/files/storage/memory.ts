/** Files kept in process memory (tests, demos). Same id rules as the other backends. */
import { Readable } from 'node:stream';
import { clampRange, isValidFileId, joinUrl, newFileId, pumpLimited, type FileStorage, type StoredFile } from './types';

export class MemoryStorage implements FileStorage {
  readonly baseUrl: string;
  private readonly files = new Map<string, { data: Buffer; mtime: Date; mimeType: string }>();

  constructor(opts: { baseUrl: string }) {
    this.baseUrl = opts.baseUrl;
  }

  async put(
    content: NodeJS.ReadableStream,
    info: { filename: string; mimeType: string; folder?: string; userId?: string },
    limits: { maxBytes: number },
  ): Promise<StoredFile> {
    const chunks: Buffer[] = [];
    const size = await pumpLimited(content, limits.maxBytes, (chunk) => {
      chunks.push(chunk);
    });
    const id = newFileId(info.filename, info.folder);
    this.files.set(id, { data: Buffer.concat(chunks, size), mtime: new Date(), mimeType: info.mimeType });
    return { id, size };
  }

  open(id: string, range?: { start: number; end: number }): Promise<NodeJS.ReadableStream | null> {
    const f = isValidFileId(id) ? this.files.get(id) : undefined;
    if (!f) return Promise.resolve(null);
    const r = clampRange(range, f.data.length);
    return Promise.resolve(Readable.from(r ? [f.data.subarray(r.start, r.end + 1)] : []));
  }

  stat(id: string): Promise<{ size: number; mtime: Date } | null> {
    const f = isValidFileId(id) ? this.files.get(id) : undefined;
    return Promise.resolve(f ? { size: f.data.length, mtime: f.mtime } : null);
  }

  delete(id: string): Promise<boolean> {
    return Promise.resolve(isValidFileId(id) && this.files.delete(id));
  }

  getPublicUrl(id: string): string {
    return joinUrl(this.baseUrl, id);
  }

  /** Number of stored files (for tests). */
  get count(): number {
    return this.files.size;
  }

  close(): Promise<void> {
    this.files.clear();
    return Promise.resolve();
  }
}
