/**
 * The bare baseline of the files bench (bench/files.ts): node:http doing by hand the essential
 * work of the File API's routes, without a framework, metadata, upload records or access rules —
 * only the same API-key check (SHA-256 of the X-API-Key header against one digest).
 *
 * - `GET /files/:id`: stat + createReadStream of `<filesDir>/<id>`, with Content-Type (from the
 *   extension), Content-Length, ETag and Last-Modified.
 * - `GET /files/:id/thumbnail?size=small`: a precomputed buffer from a Map (`<thumbsDir>/<id>`, read at start).
 * - `POST /upload`: busboy streams the `file` part into a new file under `uploadDir`; answers a small JSON.
 */
import busboy from 'busboy';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';

export interface FilesBaselineOptions {
  filesDir: string;
  thumbsDir: string;
  uploadDir: string;
  /** SHA-256 of the accepted API key. */
  keyHash: Buffer;
}

const TYPES: Record<string, string> = { '.pdf': 'application/pdf', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg' };
const VALID_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

export async function startFilesBaseline(opts: FilesBaselineOptions): Promise<{ url: string; close(): Promise<void> }> {
  const thumbnails = new Map<string, Buffer>();
  for (const name of await readdir(opts.thumbsDir)) thumbnails.set(name, await readFile(join(opts.thumbsDir, name)));

  const authorized = (req: IncomingMessage) => {
    const key = req.headers['x-api-key'];
    return typeof key === 'string' && timingSafeEqual(createHash('sha256').update(key).digest(), opts.keyHash);
  };
  const json = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const download = async (id: string, res: ServerResponse) => {
    const file = join(opts.filesDir, id);
    const st = VALID_ID.test(id) ? await stat(file).catch(() => null) : null;
    if (!st?.isFile()) return json(res, 404, { error: { code: 'FILE_NOT_FOUND' } });
    res.writeHead(200, {
      'content-type': TYPES[extname(id).toLowerCase()] ?? 'application/octet-stream',
      'content-length': st.size,
      etag: `"${id}-${st.size}-${st.mtime.getTime().toString(36)}"`,
      'last-modified': st.mtime.toUTCString(),
    });
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  };

  const thumbnail = (id: string, res: ServerResponse) => {
    const data = thumbnails.get(id);
    if (!data) return json(res, 404, { error: { code: 'FILE_NOT_FOUND' } });
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': data.length, etag: `"${id}-thumbnail-small"` });
    res.end(data);
  };

  const upload = (req: IncomingMessage, res: ServerResponse) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { files: 1, fields: 10, fieldSize: 1024 } });
    } catch {
      return json(res, 400, { error: { code: 'INVALID_REQUEST' } });
    }
    let saved: Promise<{ id: string; name: string; size: number }> | undefined;
    bb.on('file', (_name, stream, info) => {
      const name = info.filename ?? 'file';
      const id = `${randomUUID()}${extname(name).toLowerCase()}`;
      let size = 0;
      stream.on('data', (chunk: Buffer) => (size += chunk.length));
      const done = pipeline(stream, createWriteStream(join(opts.uploadDir, id))).then(() => ({ id, name, size }));
      done.catch(() => undefined);
      saved = done;
    });
    bb.on('close', () => {
      if (!saved) return json(res, 400, { error: { code: 'INVALID_REQUEST' } });
      saved.then(
        (f) =>
          json(res, 200, {
            data: { id: f.id, name: f.name, size: f.size, type: TYPES[extname(f.id)] ?? 'application/octet-stream', url: `/files/${f.id}` },
          }),
        () => json(res, 500, { error: { code: 'UPLOAD_FAILED' } }),
      );
    });
    bb.on('error', () => json(res, 400, { error: { code: 'INVALID_REQUEST' } }));
    req.pipe(bb);
  };

  const server = createServer((req, res) => {
    if (!authorized(req)) {
      req.resume();
      return json(res, 401, { error: { code: 'UNAUTHORIZED' } });
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const parts = url.pathname.split('/');
    if (req.method === 'POST' && url.pathname === '/upload') return upload(req, res);
    if (req.method === 'GET' && parts[1] === 'files' && parts.length === 3) return void download(decodeURIComponent(parts[2]), res);
    if (
      req.method === 'GET' &&
      parts[1] === 'files' &&
      parts.length === 4 &&
      parts[3] === 'thumbnail' &&
      url.searchParams.get('size') === 'small'
    )
      return thumbnail(decodeURIComponent(parts[2]), res);
    req.resume();
    json(res, 404, { error: { code: 'NOT_FOUND' } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}
