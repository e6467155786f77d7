/**
 * Conditional and partial GETs of stored files: byte ranges (RFC 9110 §14), validators
 * (If-None-Match, If-Modified-Since, If-Range) and Content-Disposition with a UTF-8 file name.
 * Written by hand: express's `send` serves paths on disk, and files here come from any backend.
 */
import type { Request } from 'express';

/** One `bytes=` range (a multi-range is served whole); undefined when the header is to be ignored. */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return undefined;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}

export function notModified(req: Request, etag: string, mtime: Date): boolean {
  const inm = req.get('if-none-match');
  if (inm) return inm.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}` || t.trim() === '*');
  const ims = req.get('if-modified-since');
  if (ims) {
    const t = Date.parse(ims);
    return !Number.isNaN(t) && Math.floor(mtime.getTime() / 1000) <= Math.floor(t / 1000);
  }
  return false;
}

export function ifRangeMatches(req: Request, etag: string, mtime: Date): boolean {
  const ifRange = req.get('if-range');
  if (!ifRange) return true;
  if (ifRange.startsWith('"') || ifRange.startsWith('W/')) return ifRange === etag;
  const t = Date.parse(ifRange);
  return !Number.isNaN(t) && Math.floor(mtime.getTime() / 1000) <= Math.floor(t / 1000);
}

export function disposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
