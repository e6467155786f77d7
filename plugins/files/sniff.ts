/**
 * Content sniffing: the MIME type a file's first bytes prove (magic numbers), the MIME type an
 * extension claims, and whether the two agree. Pass at least the first 4 KiB as `head`.
 */

export const EXTENSION_MIME: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.jfif': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.bmp': 'image/bmp',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.ico': 'image/x-icon',
  '.svg': 'image/svg+xml',
  '.avif': 'image/avif',
  '.heic': 'image/heic',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.odt': 'application/vnd.oasis.opendocument.text',
  '.ods': 'application/vnd.oasis.opendocument.spreadsheet',
  '.epub': 'application/epub+zip',
  '.doc': 'application/msword',
  '.xls': 'application/vnd.ms-excel',
  '.ppt': 'application/vnd.ms-powerpoint',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.yml': 'application/yaml',
  '.yaml': 'application/yaml',
  '.mp4': 'video/mp4',
  '.mp3': 'audio/mpeg',
};

/** Extensions whose content is a zip archive. */
const ZIP_BASED = new Set(['.zip', '.docx', '.xlsx', '.pptx', '.odt', '.ods', '.epub']);
/** Extensions whose content is an OLE compound file (legacy Office). */
const CFB_BASED = new Set(['.doc', '.xls', '.ppt']);
/** Extensions whose content is plain text of some kind. */
const TEXT_BASED = new Set(['.txt', '.csv', '.md', '.json', '.xml', '.html', '.htm', '.css', '.js', '.yml', '.yaml']);

function normaliseExt(ext: string): string {
  const e = (typeof ext === 'string' ? ext : '').trim().toLowerCase();
  return e.startsWith('.') ? e : `.${e}`;
}

/** The MIME type an extension ('.png' or 'png', any case) claims, if known. */
export function mimeForExtension(ext: string): string | undefined {
  const e = normaliseExt(ext);
  return Object.prototype.hasOwnProperty.call(EXTENSION_MIME, e) ? EXTENSION_MIME[e] : undefined;
}

const startsWith = (head: Buffer, bytes: number[], offset = 0): boolean =>
  head.length >= offset + bytes.length && bytes.every((b, i) => head[offset + i] === b);
const ascii = (head: Buffer, text: string, offset = 0): boolean =>
  head.length >= offset + text.length && head.toString('latin1', offset, offset + text.length) === text;

/**
 * The MIME type proven by a file's first bytes: image/png, image/jpeg, image/gif, image/webp,
 * image/bmp, image/tiff, image/x-icon, image/avif, image/heic, video/mp4, application/pdf,
 * application/zip (also docx/xlsx/...), application/x-cfb (legacy Office), application/gzip,
 * image/svg+xml (text starting with markup that contains '<svg'), text/plain (valid UTF-8 without
 * NUL or many control characters). Undefined for empty or unrecognised binary content.
 */
export function sniffMime(head: Buffer): string | undefined {
  if (!head || head.length === 0) return undefined;
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (ascii(head, 'GIF87a') || ascii(head, 'GIF89a')) return 'image/gif';
  if (ascii(head, 'RIFF') && ascii(head, 'WEBP', 8)) return 'image/webp';
  if (ascii(head, '%PDF-')) return 'application/pdf';
  if (
    startsWith(head, [0x50, 0x4b, 0x03, 0x04]) ||
    startsWith(head, [0x50, 0x4b, 0x05, 0x06]) ||
    startsWith(head, [0x50, 0x4b, 0x07, 0x08])
  )
    return 'application/zip';
  if (startsWith(head, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return 'application/x-cfb';
  if (startsWith(head, [0x1f, 0x8b])) return 'application/gzip';
  if (ascii(head, 'BM') && head.length >= 14 && head.readUInt32LE(10) < 1 << 20 && head[6] === 0 && head[7] === 0) return 'image/bmp';
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) return 'image/tiff';
  if (startsWith(head, [0x00, 0x00, 0x01, 0x00]) && head.length >= 6 && head.readUInt16LE(4) > 0) return 'image/x-icon';
  if (ascii(head, 'ftyp', 4) && head.length >= 12) {
    const brand = head.toString('latin1', 8, 12);
    if (brand === 'avif' || brand === 'avis') return 'image/avif';
    if (['heic', 'heix', 'mif1', 'msf1', 'hevc'].includes(brand)) return 'image/heic';
    return 'video/mp4';
  }
  return sniffText(head);
}

function sniffText(head: Buffer): string | undefined {
  let bytes = head.subarray(0, 8192);
  if (bytes.includes(0)) return undefined;
  // A head cut inside a multi-byte UTF-8 sequence: drop the incomplete tail before decoding.
  for (let i = 1; i <= 3 && i <= bytes.length; i++) {
    const b = bytes[bytes.length - i];
    if ((b & 0xc0) === 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      if (need > i) bytes = bytes.subarray(0, bytes.length - i);
      break;
    }
    if ((b & 0x80) === 0) break;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12 && c !== 27) control++;
  }
  if (text.length > 0 && control / text.length > 0.02) return undefined;
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (trimmed.startsWith('<') && /<svg[\s>]/i.test(trimmed)) {
    // Only comments, an XML declaration or a DOCTYPE may come before the root element.
    const beforeRoot = trimmed.slice(0, trimmed.search(/<svg[\s>]/i));
    const rest = beforeRoot
      .replace(/<\?xml[\s\S]*?\?>/gi, '')
      .replace(/<!--[\s\S]*?-->/g, '')
      .replace(/<!DOCTYPE[^>]*>/gi, '')
      .trim();
    if (rest === '') return 'image/svg+xml';
  }
  return 'text/plain';
}

/**
 * Whether content sniffed as `sniffed` may carry the extension `ext`: '.png' with image/png yes,
 * '.png' with application/pdf no; zip-based office formats accept application/zip, legacy office
 * application/x-cfb; text formats accept text/plain (and svg markup). An extension with a known
 * binary signature needs a sniffed type; text and unknown extensions accept unrecognised content.
 * Unknown extensions accept anything (the field's accept list decides those).
 */
export function extensionsCompatible(ext: string, sniffed: string | undefined): boolean {
  const e = normaliseExt(ext);
  const expected = mimeForExtension(e);
  if (!expected) return true;
  if (TEXT_BASED.has(e)) return sniffed === undefined ? false : sniffed === 'text/plain' || sniffed === 'image/svg+xml';
  if (sniffed === undefined) return false;
  if (sniffed === expected) return true;
  if (ZIP_BASED.has(e)) return sniffed === 'application/zip';
  if (CFB_BASED.has(e)) return sniffed === 'application/x-cfb';
  if (e === '.mp4') return sniffed === 'video/mp4';
  return false;
}
