/**
 * GET {files}/:fileId/thumbnail?size=small|medium|large and /preview?width=&height=: the image
 * fitted in a box by sharp, generated once and then served from the per-kernel cache.
 */
import type { Request, Response } from 'express';
import { ObjectQLError } from '../../kernel';
import { THUMBNAIL_NAMES, type ThumbnailName } from './attachments';
import { notModified } from './http-cache';
import type { ImageCache } from './image-cache';
import { withImageInput } from './image-input';
import { THUMBNAIL_SIZES, resizeImage } from './images';
import type { FilesRuntime } from './runtime';
import { locate } from './stored-file';

export const MAX_PREVIEW_PX = 4096;

interface Box {
  width?: number;
  height?: number;
  key: string;
}

export async function imageRoute(
  rt: FilesRuntime,
  cache: ImageCache,
  kind: 'thumbnail' | 'preview',
  req: Request,
  res: Response,
): Promise<void> {
  try {
    const { record, id, size, mtime } = await locate(rt, req);
    if (!record.type.startsWith('image/')) {
      throw new ObjectQLError('FILE_TYPE_NOT_ALLOWED', `File '${record.name}' is not an image`, { file: record.name, type: record.type });
    }
    const box = kind === 'thumbnail' ? thumbnailBox(req.query.size) : previewBox(req.query.width, req.query.height);
    const etag = `"${id}-${kind}-${box.key}-${mtime.getTime().toString(36)}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Last-Modified', mtime.toUTCString());
    res.setHeader('Cache-Control', 'private, max-age=0, must-revalidate');
    if (notModified(req, etag, mtime)) {
      res.status(304).end();
      return;
    }
    const cacheKey = `${id}\n${etag}`;
    let out = cache.get(cacheKey);
    if (!out) {
      // The stored size bounds the copy read from an object store (it was checked at upload).
      const resized = await withImageInput(rt.storage, id, size, (input) =>
        resizeImage(input, box).catch(() => {
          throw new ObjectQLError('FILE_TYPE_NOT_ALLOWED', `File '${record.name}' is not a readable image`, { file: record.name });
        }),
      );
      if (!resized) throw new ObjectQLError('FILE_NOT_FOUND', `File '${id}' not found`, { file: id });
      out = resized;
      cache.set(cacheKey, out);
    }
    res.status(200).setHeader('Content-Type', out.contentType);
    res.setHeader('Content-Length', String(out.data.length));
    res.end(req.method === 'HEAD' ? undefined : out.data);
  } catch (err) {
    rt.kernel.http.sendError(req, res, err);
  }
}

function thumbnailBox(size: unknown = 'small'): Box {
  if (!THUMBNAIL_NAMES.includes(size as ThumbnailName))
    throw new ObjectQLError('INVALID_REQUEST', `size must be one of ${THUMBNAIL_NAMES.join(', ')}`);
  const px = THUMBNAIL_SIZES[size as ThumbnailName];
  return { width: px, height: px, key: String(size) };
}

function previewBox(w: unknown, h: unknown): Box {
  const width = dimension(w, 'width');
  const height = dimension(h, 'height');
  if (width === undefined && height === undefined) throw new ObjectQLError('INVALID_REQUEST', 'Give width, height or both');
  return { ...(width !== undefined ? { width } : {}), ...(height !== undefined ? { height } : {}), key: `${width ?? ''}x${height ?? ''}` };
}

function dimension(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PREVIEW_PX)
    throw new ObjectQLError('INVALID_REQUEST', `${name} must be an integer from 1 to ${MAX_PREVIEW_PX}`);
  return n;
}
