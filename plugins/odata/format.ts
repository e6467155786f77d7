/**
 * Response format negotiation: JSON only, with `odata.metadata=minimal` (the default; `full` is
 * answered as minimal) or `none` (no control information but @odata.count and @odata.nextLink),
 * asked for in the Accept header or in $format (which wins). Pure.
 */
import { ObjectQLError } from '../../kernel';

export type MetadataLevel = 'minimal' | 'none';

export const ODATA_VERSION = '4.0';

export function jsonContentType(level: MetadataLevel): string {
  return `application/json;odata.metadata=${level}`;
}

/** The metadata level asked for; a $format other than JSON is INVALID_REQUEST. */
export function metadataLevel(accept: string | undefined, format: string | null): MetadataLevel {
  if (format !== null) {
    const [type, ...params] = format.split(';').map((s) => s.trim());
    if (!['json', 'application/json'].includes(type.toLowerCase())) {
      const message = `$format '${format}' is not supported: this service answers in JSON ($format=json)`;
      throw new ObjectQLError('INVALID_REQUEST', message, [{ code: 'INVALID_REQUEST', message, target: '$format' }]);
    }
    return levelOf(params);
  }
  for (const range of (accept ?? '').split(',')) {
    const [type, ...params] = range.split(';').map((s) => s.trim());
    if (/^(application\/json|application\/\*|\*\/\*)$/i.test(type)) {
      const level = levelOf(params);
      if (level === 'none' || params.some((p) => /^odata\.metadata\s*=/i.test(p))) return level;
    }
  }
  return 'minimal';
}

function levelOf(params: string[]): MetadataLevel {
  for (const p of params) {
    const [name, value] = p.split('=').map((s) => s.trim().toLowerCase());
    if (name === 'odata.metadata' && value === 'none') return 'none';
  }
  return 'minimal';
}
