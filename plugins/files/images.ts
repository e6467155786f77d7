/**
 * Image measurement and resizing with sharp.
 *
 * Thumbnails are square bounding boxes (the image is fitted inside, keeping its aspect ratio, and
 * never enlarged): small 64 px (lists, avatars), medium 256 px (cards, previews), large 1024 px
 * (detail views).
 *
 * sharp (libvips, ~20 MB resident) is loaded on the first image, not at start-up: a service that
 * never sees an image never pays for it.
 */
import type { Metadata, Sharp, SharpOptions } from 'sharp';
import { ObjectQLError } from '../../kernel';

async function sharp(input: Buffer | string, options?: SharpOptions): Promise<Sharp> {
  return (await import('sharp')).default(input, options);
}

export const THUMBNAIL_SIZES = { small: 64, medium: 256, large: 1024 } as const;

export type OutputFormat = 'png' | 'jpeg' | 'webp';

const CONTENT_TYPES: Record<OutputFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/**
 * Width, height (as displayed, i.e. after EXIF orientation; one frame of an animation) and sharp's
 * format name ('png', 'jpeg', 'gif', 'webp', 'svg', ...) of an image buffer or file path;
 * undefined when sharp cannot read it as an image.
 */
export async function imageSize(input: Buffer | string): Promise<{ width: number; height: number; format: string } | undefined> {
  try {
    const meta = await (await sharp(input)).metadata();
    if (!meta.width || !meta.height || !meta.format) return undefined;
    let width = meta.width;
    let height = meta.pageHeight && meta.pages && meta.pages > 1 ? meta.pageHeight : meta.height;
    if (meta.orientation && meta.orientation >= 5) [width, height] = [height, width];
    return { width, height, format: meta.format };
  } catch {
    return undefined;
  }
}

/**
 * Fits the image inside `box` (either side may be omitted; neither means the original size),
 * applying EXIF orientation and never enlarging. Output `format` defaults to the input's own when
 * that is png, jpeg or webp, else png. Rejects with FILE_VALIDATION_ERROR when the input is not an
 * image sharp reads. Bounds on the box (e.g. 1..4096) are the caller's to validate.
 */
export async function resizeImage(
  input: Buffer | string,
  box: { width?: number; height?: number },
  format?: OutputFormat,
): Promise<{ data: Buffer; contentType: string }> {
  let meta: Metadata;
  try {
    meta = await (await sharp(input)).metadata();
  } catch {
    throw new ObjectQLError('FILE_VALIDATION_ERROR', 'File is not a readable image');
  }
  const out: OutputFormat = format ?? (meta.format === 'png' || meta.format === 'jpeg' || meta.format === 'webp' ? meta.format : 'png');
  try {
    let pipeline = (await sharp(input)).rotate();
    if (box.width || box.height) {
      pipeline = pipeline.resize({
        width: box.width || undefined,
        height: box.height || undefined,
        fit: 'inside',
        withoutEnlargement: true,
      });
    }
    const data = await pipeline.toFormat(out).toBuffer();
    return { data, contentType: CONTENT_TYPES[out] };
  } catch {
    throw new ObjectQLError('FILE_VALIDATION_ERROR', 'File is not a readable image');
  }
}
