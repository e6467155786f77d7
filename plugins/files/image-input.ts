/**
 * What sharp reads a stored image from: its path when the backend keeps it on this machine's disk
 * (read in place), else a temporary copy on disk (an object store's file never held in memory
 * whole), at most `maxBytes` long and removed once `use` settles.
 */
import { createWriteStream, promises as fsp, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pumpLimited, type FileStorage } from './storage/types';

/** Undefined when the file is absent; rejects with FILE_TOO_LARGE when it is longer than `maxBytes`. */
export async function withImageInput<T>(
  storage: FileStorage,
  id: string,
  maxBytes: number,
  use: (input: string) => Promise<T>,
): Promise<T | undefined> {
  const path = storage.pathOf?.(id);
  if (path) return use(path);
  const stream = await storage.open(id);
  if (!stream) return undefined;
  const dir = await fsp.mkdtemp(join(tmpdir(), 'objectql-image-'));
  try {
    const copy = join(dir, 'image');
    const out = createWriteStream(copy, { flags: 'wx' });
    try {
      await pumpLimited(stream, maxBytes, (chunk) => write(out, chunk));
      await new Promise<void>((resolve, reject) => {
        out.once('error', reject);
        out.end(() => resolve());
      });
    } catch (err) {
      out.destroy();
      (stream as unknown as { destroy?: () => void }).destroy?.();
      throw err;
    }
    return await use(copy);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

function write(out: WriteStream, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => out.write(chunk, (err) => (err ? reject(err) : resolve())));
}
