/**
 * Entity ETags: weak, derived from the record's last change (`updated_at`, else `created_at`), as
 * `W/"<ISO 8601 timestamp>"`. Preconditions compare them weakly (RFC 9110 §8.8.3.2): OData
 * clients send the weak ETag they were given back in If-Match. Pure.
 */
import type { DataRecord } from '../../kernel';

/** The fields an ETag is derived from; fetched even when $select leaves them out. */
export const ETAG_FIELDS = ['updated_at', 'created_at'] as const;

/** The record's ETag, or undefined when the caller sees neither timestamp. */
export function etagOf(record: DataRecord): string | undefined {
  const stamp = record.updated_at ?? record.created_at;
  if (stamp === undefined || stamp === null) return undefined;
  const time =
    stamp instanceof Date ? stamp.getTime() : typeof stamp === 'string' || typeof stamp === 'number' ? Date.parse(String(stamp)) : NaN;
  return Number.isNaN(time) ? undefined : `W/"${new Date(time).toISOString()}"`;
}

/** `*`, or the opaque tags of a list of entity tags (weak or strong); undefined when the header is absent or unreadable. */
export function parseEntityTags(header: string | undefined): '*' | string[] | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return '*';
  // A malformed value has no tags and so matches nothing.
  return [...value.matchAll(/(?:W\/)?"([^"]*)"/g)].map((m) => m[1]);
}

/** Whether `current` (an ETag, or undefined for an entity without one) matches an If-Match / If-None-Match value. */
export function etagMatches(condition: '*' | string[], current: string | undefined): boolean {
  if (condition === '*') return true;
  if (current === undefined) return false;
  const opaque = current.replace(/^W\//, '').slice(1, -1);
  return condition.includes(opaque);
}
