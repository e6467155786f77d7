/**
 * The resource path of an OData URL (the part after the base path): the service document,
 * $metadata, $batch, an entity set, its $count, one entity by key, and one property (structural
 * or navigation) of an entity. Keys are Edm.String: `Set('id')` with '' for a quote inside, or
 * `Set(id='id')`. Pure: no metadata lookups here (service.ts decides what names mean).
 */
import { ObjectQLError } from '../../kernel';

export type Resource =
  | { kind: 'serviceDocument' }
  | { kind: 'metadata' }
  | { kind: 'batch' }
  | { kind: 'collection'; set: string }
  | { kind: 'count'; set: string }
  | { kind: 'entity'; set: string; key: string }
  | { kind: 'property'; set: string; key: string; property: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SEGMENT = /^([A-Za-z_][A-Za-z0-9_]*)\((.*)\)$/s;

/** Splits a request URL ('/Set('a')?$select=x', after the base path) into its resource and query. */
export function parseUrl(url: string, base = ''): { resource: Resource; query: URLSearchParams } {
  const mark = url.indexOf('?');
  const rawPath = mark < 0 ? url : url.slice(0, mark);
  const query = new URLSearchParams(mark < 0 ? '' : url.slice(mark + 1));
  return { resource: parsePath(rawPath, base), query };
}

/**
 * The resource a raw (percent-encoded) path after the base names; an unknown shape is NOT_FOUND,
 * a malformed key INVALID_REQUEST. `base` is only for messages.
 */
export function parsePath(rawPath: string, base = ''): Resource {
  const raw = rawPath.replace(/^\/+/, '').replace(/\/$/, '');
  if (raw === '') return { kind: 'serviceDocument' };
  const shown = base + rawPath;
  const segments = raw.split('/').map((s) => decodeSegment(s, shown));
  const [first, second, ...rest] = segments;
  if (first === '$metadata' || first === '$batch') {
    if (segments.length > 1) throw noResource(shown);
    return { kind: first === '$metadata' ? 'metadata' : 'batch' };
  }
  const { name: set, key } = parseSegment(first, shown);
  if (second === undefined) return key === undefined ? { kind: 'collection', set } : { kind: 'entity', set, key };
  if (rest.length > 0) throw noResource(shown);
  if (key === undefined) {
    if (second === '$count') return { kind: 'count', set };
    throw noResource(shown);
  }
  if (!NAME.test(second)) throw noResource(shown);
  return { kind: 'property', set, key, property: second };
}

function decodeSegment(segment: string, path: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ObjectQLError('INVALID_REQUEST', `Malformed percent-encoding in the path '${path}'`);
  }
}

/** `Name` or `Name(key)`. */
function parseSegment(segment: string, path: string): { name: string; key?: string } {
  if (NAME.test(segment)) return { name: segment };
  const m = SEGMENT.exec(segment);
  if (!m) {
    if (/^[A-Za-z_][A-Za-z0-9_]*\(/.test(segment)) throw badKey(segment.slice(0, segment.indexOf('(')), segment);
    throw noResource(path);
  }
  return { name: m[1], key: parseKey(m[1], m[2], segment) };
}

/** `'id'` or `id='id'`, with '' standing for one quote inside the string. */
function parseKey(set: string, text: string, segment: string): string {
  const body = text.trim().replace(/^id\s*=\s*/, '');
  if (body.length < 2 || !body.startsWith("'") || !body.endsWith("'")) throw badKey(set, segment);
  const inner = body.slice(1, -1);
  // Every quote inside comes in pairs.
  if (/'/.test(inner.replace(/''/g, ''))) throw badKey(set, segment);
  const key = inner.replace(/''/g, "'");
  if (key === '') throw badKey(set, segment);
  return key;
}

function badKey(set: string, segment: string): ObjectQLError {
  const message = `Malformed key in '${segment}': write the id as a quoted string, ${set}('<id>') or ${set}(id='<id>'), doubling any quote inside`;
  return new ObjectQLError('INVALID_REQUEST', message, [{ code: 'INVALID_KEY', message, target: segment }]);
}

function noResource(path: string): ObjectQLError {
  return new ObjectQLError('NOT_FOUND', `No OData resource at '${path}'`);
}

/** A key inside quotes: each quote doubled. */
export function quoteKey(key: string): string {
  return key.replace(/'/g, "''");
}
