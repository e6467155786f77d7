/**
 * The File API as the matrix speaks it, over real HTTP with the callers' credentials
 * (credentials.ts): multipart uploads, byte-exact downloads, and the files the seeded records
 * hold — made from the record id and the field, so that any download can be compared byte for
 * byte with what was uploaded, and a lost file can be uploaded again (server.ts).
 */
import sharp from 'sharp';
import type { DbRecord } from '../../kernel';
import { rpcAdapter } from './adapters/rpc';
import { credentials } from './credentials';
import { outcomeOf, type Client, type Outcome, type Rec } from './protocol';
import { FILE_FIELDS, FILE_OBJECT } from './table';
import { MATRIX_USERS, type MatrixUser } from './users';

export interface FileContent {
  name: string;
  bytes: Buffer;
}

/** A download: the Outcome (the error, on failure) plus the bytes and content type on success. */
export interface Download extends Outcome {
  bytes?: Buffer;
  type?: string;
}

/**
 * The records of FILE_OBJECT that a write deleted or gave other files (stored rows, before and
 * now): the files plugin deleted the files they held, which must be seeded again.
 */
export function lostFiles(before: DbRecord[], now: DbRecord[]): string[] {
  const current = new Map(now.map((r) => [r.id as string, r]));
  const changed = (row: DbRecord, have?: DbRecord) =>
    !have || Object.keys(FILE_FIELDS).some((f) => JSON.stringify(have[f]) !== JSON.stringify(row[f]));
  return before.filter((row) => changed(row, current.get(row.id as string))).map((row) => row.id as string);
}

/** The file a seeded record holds in a field: text for a file field, a real PNG for an image field. */
export async function seededContent(type: 'file' | 'image', record: string, field: string): Promise<FileContent> {
  if (type === 'file') return { name: `${record}-${field}.txt`, bytes: Buffer.from(`The ${field} of ${record}.\n`) };
  const n = [...record].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) % 251, 7);
  const png = sharp({ create: { width: 40 + (n % 16), height: 24, channels: 3, background: { r: n, g: 255 - n, b: 99 } } }).png();
  return { name: `${record}-${field}.png`, bytes: await png.toBuffer() };
}

/** The File API of the server `base` (http://host:port) whose routes `client` knows. */
export function filesApi(base: () => string, client: Client) {
  const url = (path: string) => `${base()}${client.routes.files}${path}`;
  return {
    /** POST /upload as `u`: parts `object`, `field`, then `file`. */
    async upload(u: MatrixUser, object: string, field: string, file: FileContent): Promise<Outcome> {
      const form = new FormData();
      form.append('object', object);
      form.append('field', field);
      form.append('file', new Blob([new Uint8Array(file.bytes)]), file.name);
      const res = await fetch(url('/upload'), { method: 'POST', body: form, headers: credentials(u) });
      const text = await res.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      const out = outcomeOf(res.status, body);
      if (res.status === 200) out.record = body?.data;
      return out;
    },

    /** GET /:id (path: '/:id' or '/:id/thumbnail?size=small') as `u`. */
    async download(u: MatrixUser, path: string): Promise<Download> {
      const res = await fetch(url(path), { headers: credentials(u) });
      const bytes = Buffer.from(await res.arrayBuffer());
      const type = res.headers.get('content-type') ?? undefined;
      if (res.status !== 200 || type?.startsWith('application/json')) {
        let body: unknown = bytes.toString('utf8');
        try {
          body = JSON.parse(body as string);
        } catch {
          /* not JSON: keep the text */
        }
        return { ...outcomeOf(res.status, body), type };
      }
      return { status: 200, raw: `${bytes.length} bytes of ${type}`, bytes, type };
    },

    /**
     * As root: uploads the files of these records of FILE_OBJECT (seededContent) and attaches them
     * with one update per record over JSON-RPC, the spec's upload-then-attach flow.
     */
    async seed(ids: string[]): Promise<void> {
      const root = MATRIX_USERS.root;
      const rpc = rpcAdapter.connect(client).data!;
      for (const id of ids) {
        const data: Rec = {};
        for (const [field, type] of Object.entries(FILE_FIELDS)) {
          const up = await this.upload(root, FILE_OBJECT, field, await seededContent(type, id, field));
          if (up.status !== 200) throw new Error(`seeding ${FILE_OBJECT} ${id}.${field}: ${JSON.stringify(up.raw)}`);
          data[field] = up.record;
        }
        const attached = await rpc.update(root, FILE_OBJECT, id, data);
        if (attached.status !== 200) throw new Error(`attaching the files of ${FILE_OBJECT} ${id}: ${JSON.stringify(attached.raw)}`);
      }
    },
  };
}

export type FilesApi = ReturnType<typeof filesApi>;
