/**
 * Attachment values: the spec's attachment object (docs/spec.md, "Attachment fields") built from what the plugin knows of a file, and
 * the stored files a record field's value refers to.
 */
import { isPlainObject, type FieldDefinition, type ObjectDefinition } from '../../kernel';
import type { FileRecord } from './file-records';
import { THUMBNAIL_SIZES } from './images';
import { isValidFileId, type FileStorage } from './storage/types';

export type ThumbnailName = keyof typeof THUMBNAIL_SIZES;
export const THUMBNAIL_NAMES = Object.keys(THUMBNAIL_SIZES) as ThumbnailName[];

export type Attachment = Record<string, unknown>;

/**
 * The spec's attachment for a stored file; images add width, height, thumbnail_url and variants,
 * except as the value of a `file` field (whose attachments have no image keys).
 */
export function toAttachment(record: FileRecord, storage: FileStorage, apiBase: string, fieldType?: string): Attachment {
  const base: Attachment = {
    id: record.id,
    name: record.name,
    url: storage.getPublicUrl(record.id),
    size: record.size,
    type: record.type,
    original_name: record.name,
    uploaded_at: record.uploaded_at,
    ...(record.uploaded_by !== undefined ? { uploaded_by: record.uploaded_by } : {}),
  };
  if (!record.type.startsWith('image/') || record.width === undefined || fieldType === 'file') return base;
  const thumb = (size: ThumbnailName) => `${apiBase}/${encodeURIComponent(record.id)}/thumbnail?size=${size}`;
  return {
    ...base,
    width: record.width,
    height: record.height,
    thumbnail_url: thumb('small'),
    variants: { small: thumb('small'), medium: thumb('medium'), large: thumb('large') },
  };
}

/** The file and image fields of an object. */
export function attachmentFields(def: ObjectDefinition): FieldDefinition[] {
  return Object.values(def.fields).filter((f) => f.type === 'file' || f.type === 'image');
}

/** The attachment objects of a field value (single, list, or null). */
export function attachmentsOf(value: unknown): Attachment[] {
  const list = Array.isArray(value) ? value : value == null ? [] : [value];
  return list.filter((a): a is Attachment => isPlainObject(a));
}

/**
 * The stored file an attachment refers to: its `id`, or, without one, the file whose public URL
 * its `url` is. Undefined for a link to anything else (kept as the client wrote it).
 */
export function storedFileId(attachment: Attachment, storage: FileStorage): string | undefined {
  if (typeof attachment.id === 'string') return attachment.id;
  if (typeof attachment.url !== 'string') return undefined;
  let last: string;
  try {
    last = decodeURIComponent(attachment.url.split(/[?#]/)[0].split('/').pop() ?? '');
  } catch {
    return undefined;
  }
  return isValidFileId(last) && storage.getPublicUrl(last) === attachment.url ? last : undefined;
}

/** The stored file ids a field value refers to. */
export function fileIdsOf(value: unknown, storage: FileStorage): Set<string> {
  const ids = new Set<string>();
  for (const a of attachmentsOf(value)) {
    const id = storedFileId(a, storage);
    if (id !== undefined) ids.add(id);
  }
  return ids;
}
