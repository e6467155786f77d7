/**
 * Files on the local disk under `baseDir`. An id maps to `baseDir/<id>`, or to
 * `baseDir/<folder>/<id>` when the id carries a sanitised folder prefix ("<folder>--<random>.ext").
 * Uploads are written to a hidden temp file in baseDir (ids never start with '.') and renamed into
 * place once complete; every resolved path is checked to stay inside baseDir.
 */
import { createReadStream, createWriteStream, promises as fsp, type WriteStream } from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { clampRange, folderOfId, isValidFileId, joinUrl, newFileId, pumpLimited, type FileStorage, type StoredFile } from './types';

export class LocalStorage implements FileStorage {
  readonly baseDir: string;
  readonly baseUrl: string;

  constructor(opts: { baseDir: string; baseUrl: string }) {
    this.baseDir = path.resolve(opts.baseDir);
    this.baseUrl = opts.baseUrl;
  }

  /** The absolute path of an id, or null when the id is invalid or would leave baseDir. */
  pathOf(id: string): string | null {
    if (!isValidFileId(id)) return null;
    const folder = folderOfId(id);
    const full = folder ? path.resolve(this.baseDir, folder, id) : path.resolve(this.baseDir, id);
    const rel = path.relative(this.baseDir, full);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
    return full;
  }

  async put(
    content: NodeJS.ReadableStream,
    info: { filename: string; mimeType: string; folder?: string; userId?: string },
    limits: { maxBytes: number },
  ): Promise<StoredFile> {
    const id = newFileId(info.filename, info.folder);
    const target = this.pathOf(id);
    if (!target) throw new Error('generated file id is not valid');
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const tmp = path.join(this.baseDir, `.upload-${randomUUID()}.tmp`);
    const out = createWriteStream(tmp, { flags: 'wx' });
    let outError: Error | undefined;
    out.on('error', (err) => {
      outError = err;
    });
    try {
      const size = await pumpLimited(content, limits.maxBytes, (chunk) => write(out, chunk));
      await end(out);
      if (outError) throw outError;
      await fsp.rename(tmp, target);
      return { id, size };
    } catch (err) {
      out.destroy();
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
  }

  async open(id: string, range?: { start: number; end: number }): Promise<NodeJS.ReadableStream | null> {
    const file = this.pathOf(id);
    if (!file) return null;
    const st = await fsp.stat(file).catch(() => null);
    if (!st || !st.isFile()) return null;
    const r = clampRange(range, st.size);
    if (!r) return Readable.from([]);
    return createReadStream(file, { start: r.start, end: r.end });
  }

  async stat(id: string): Promise<{ size: number; mtime: Date } | null> {
    const file = this.pathOf(id);
    if (!file) return null;
    const st = await fsp.stat(file).catch(() => null);
    return st && st.isFile() ? { size: st.size, mtime: st.mtime } : null;
  }

  async delete(id: string): Promise<boolean> {
    const file = this.pathOf(id);
    if (!file) return false;
    try {
      await fsp.unlink(file);
      return true;
    } catch {
      return false;
    }
  }

  getPublicUrl(id: string): string {
    return joinUrl(this.baseUrl, id);
  }
}

function write(out: WriteStream, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => out.write(chunk, (err) => (err ? reject(err) : resolve())));
}

function end(out: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    out.once('error', reject);
    out.end(() => resolve());
  });
}
