/**
 * The attachment value of `file` and `image` fields: the metadata an upload returns, stored as the
 * field's value. Checked against the field's accept, size and (images) dimension bounds.
 */
import type { FieldDefinition } from '../metadata/types';
import { isPlainObject } from '../util/objects';
import type { Checked } from './scalar-values';

export const IMAGE_DEFAULT_ACCEPT: readonly string[] = ['.jpg', '.jpeg', '.png', '.gif', '.webp'];

const FILE_KEYS = new Set(['id', 'name', 'url', 'size', 'type', 'original_name', 'uploaded_at', 'uploaded_by']);
const IMAGE_KEYS = new Set([...FILE_KEYS, 'width', 'height', 'thumbnail_url', 'variants']);
const VARIANT_KEYS = new Set(['small', 'medium', 'large']);
const MIME_RE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9!#$&^_.+*-]+(\s*;.*)?$/i;

const isString = (v: unknown): v is string => typeof v === 'string';
const isNonNegative = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** '.PDF', 'pdf' → '.pdf'; MIME patterns ('image/*') are kept as written, lower-cased. */
function normalizeAccept(entry: string): string {
  const e = entry.trim().toLowerCase();
  return e.includes('/') || e.startsWith('.') ? e : `.${e}`;
}

/** The extension of a file name, lower-cased with its dot ('' when it has none). */
export function fileExtension(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

/** Whether a file name / MIME type passes an accept list (extensions, or MIME patterns like 'image/*'). */
export function isAccepted(accept: readonly string[], name: string, mime: string): boolean {
  const ext = fileExtension(name);
  const type = mime.split(';')[0].trim().toLowerCase();
  return accept.map(normalizeAccept).some((a) => {
    if (!a.includes('/')) return a === ext;
    return a.endsWith('/*') ? type.startsWith(a.slice(0, -1)) : a === type;
  });
}

const LINK_RULE = 'must be an http(s) URL or a relative path';
const SCHEME_RE = /^([a-z][a-z0-9+.-]*):/i;

/**
 * A link a client may follow or embed: http(s), or relative (no scheme). `javascript:`, `data:`
 * and the like are refused; so is any whitespace or control character, which browsers strip or
 * skip while reading a scheme (`java\tscript:`, ` javascript:`).
 */
function isSafeLink(url: string): boolean {
  if (/[\s\p{Cc}]/u.test(url)) return false;
  const scheme = SCHEME_RE.exec(url)?.[1].toLowerCase();
  if (scheme === undefined) return true;
  if (scheme !== 'http' && scheme !== 'https') return false;
  try {
    return new URL(url).hostname !== '';
  } catch {
    return false;
  }
}

function checkShape(isImage: boolean, v: Record<string, unknown>): string | undefined {
  const allowed = isImage ? IMAGE_KEYS : FILE_KEYS;
  const unknown = Object.keys(v).filter((k) => !allowed.has(k));
  if (unknown.length) return `has unknown key${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`;
  for (const key of ['name', 'url'] as const) {
    if (!isString(v[key]) || v[key] === '') return `${key} is required (a non-empty string)`;
  }
  for (const key of ['url', 'thumbnail_url'] as const) {
    if (isString(v[key]) && !isSafeLink(v[key])) return `${key} ${LINK_RULE}`;
  }
  if (!isNonNegative(v.size)) return 'size is required (a non-negative number of bytes)';
  if (!isString(v.type) || !MIME_RE.test(v.type)) return 'type is required (a MIME type such as image/png)';
  for (const key of ['id', 'original_name', 'uploaded_by', 'thumbnail_url'] as const) {
    if (v[key] !== undefined && v[key] !== null && !isString(v[key])) return `${key} must be a string`;
  }
  if (v.uploaded_at !== undefined && v.uploaded_at !== null && !(isString(v.uploaded_at) && !Number.isNaN(Date.parse(v.uploaded_at)))) {
    return 'uploaded_at must be an ISO 8601 timestamp';
  }
  for (const key of ['width', 'height'] as const) {
    if (v[key] !== undefined && v[key] !== null && !isNonNegative(v[key])) return `${key} must be a non-negative number`;
  }
  if (v.variants !== undefined && v.variants !== null) {
    if (!isPlainObject(v.variants)) return 'variants must be an object with small, medium, large URLs';
    for (const [k, url] of Object.entries(v.variants)) {
      if (!VARIANT_KEYS.has(k)) return `variants has unknown key: ${k}`;
      if (url !== undefined && url !== null && !isString(url)) return `variants.${k} must be a string`;
      if (isString(url) && !isSafeLink(url)) return `variants.${k} ${LINK_RULE}`;
    }
  }
  return undefined;
}

function checkBounds(field: FieldDefinition, v: Record<string, unknown>): string | undefined {
  const isImage = field.type === 'image';
  const accept = field.accept && field.accept.length ? field.accept : isImage ? IMAGE_DEFAULT_ACCEPT : undefined;
  if (accept && !isAccepted(accept, v.name as string, v.type as string)) {
    const ext = fileExtension(v.name as string) || 'without an extension';
    return `file type ${ext} is not allowed (allowed: ${accept.map(normalizeAccept).join(', ')})`;
  }
  const size = v.size as number;
  if (field.max_size !== undefined && size > field.max_size) return `file size must be at most ${field.max_size} bytes`;
  if (field.min_size !== undefined && size < field.min_size) return `file size must be at least ${field.min_size} bytes`;
  if (!isImage) return undefined;
  const dims = [
    ['width', field.min_width, field.max_width],
    ['height', field.min_height, field.max_height],
  ] as const;
  for (const [key, min, max] of dims) {
    const n = v[key];
    if (typeof n !== 'number') continue;
    if (min !== undefined && n < min) return `image ${key} must be at least ${min} px`;
    if (max !== undefined && n > max) return `image ${key} must be at most ${max} px`;
  }
  return undefined;
}

/** One attachment object for a file / image field. The value is returned as given (a shallow copy). */
export function checkAttachment(field: FieldDefinition, value: unknown): Checked {
  if (!isPlainObject(value)) return { error: 'must be an attachment object {name, url, size, type}' };
  const error = checkShape(field.type === 'image', value) ?? checkBounds(field, value);
  return error ? { error } : { value: { ...value } };
}
