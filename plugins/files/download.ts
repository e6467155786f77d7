/** GET {files}/:fileId — the file, streamed from storage, with validators and byte ranges. */
import type { Request, Response } from 'express';
import { ObjectQLError } from '../../kernel';
import { disposition, ifRangeMatches, notModified, parseRange } from './http-cache';
import type { FilesRuntime } from './runtime';
import { locate } from './stored-file';

export async function download(rt: FilesRuntime, req: Request, res: Response): Promise<void> {
  try {
    const { record, id, size, mtime } = await locate(rt, req);
    const etag = `"${id}-${size}-${mtime.getTime().toString(36)}"`;
    const { type, name } = record;
    res.setHeader('ETag', etag);
    res.setHeader('Last-Modified', mtime.toUTCString());
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Cache-Control', 'private, max-age=0, must-revalidate');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader(
      'Content-Disposition',
      disposition(type.startsWith('image/') && type !== 'image/svg+xml' ? 'inline' : 'attachment', name),
    );
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
        res.status(416).end();
        return;
      }
      range = parsed;
    }
    const stream = await rt.storage.open(id, range);
    if (!stream) throw new ObjectQLError('FILE_NOT_FOUND', `File '${id}' not found`, { file: id });
    res.setHeader('Content-Type', type);
    res.status(range ? 206 : 200);
    if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
    res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : size));
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
    rt.kernel.http.sendError(req, res, err);
  }
}
