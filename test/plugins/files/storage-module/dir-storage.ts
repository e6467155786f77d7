/**
 * A third-party storage backend as a user would ship one: a module whose default export is a
 * factory taking the config's `storage.options`, returning the spec's save/get/delete/getPublicUrl.
 * This one keeps files in a folder of its own under names it chooses.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export default function dirStorage(options: { dir: string; publicBase: string }) {
  return {
    async save(file: Buffer, filename: string, mimeType: string, meta: { folder?: string; userId?: string }) {
      const id = `${randomUUID()}${filename.endsWith('.txt') ? '.txt' : ''}`;
      await writeFile(join(options.dir, id), file);
      await writeFile(join(options.dir, `${id}.meta`), JSON.stringify({ filename, mimeType, ...meta }));
      return { id, url: `${options.publicBase}/${id}`, size: file.length };
    },
    async get(id: string) {
      return readFile(join(options.dir, id)).catch(() => null);
    },
    async delete(id: string) {
      await rm(join(options.dir, `${id}.meta`), { force: true });
      return rm(join(options.dir, id)).then(
        () => true,
        () => false,
      );
    },
    getPublicUrl: (id: string) => `${options.publicBase}/${id}`,
  };
}
