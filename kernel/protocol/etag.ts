/**
 * Record ETags, shared by the protocols (OData, REST): weak, derived from the record's last change
 * (`updated_at`, else `created_at`), as `W/"<ISO 8601 timestamp>"`. Preconditions compare them
 * weakly (RFC 9110 §8.8.3.2): clients send the weak ETag they were given back in If-Match, and
 * the engine's `ifUnchangedSince` checks the timestamp inside the write (ifUnchangedSinceOf). Pure.
 */
import { lastChangeStamp, STAMP_FIELDS } from '../engine/record-stamp';
import type { DataRecord } from '../engine/types';

/** The fields an ETag is derived from; fetched even when a field selection leaves them out. */
export const ETAG_FIELDS = STAMP_FIELDS;

/** The record's ETag, or undefined when the record (as the caller sees it) has neither timestamp. */
export function etagOf(record: DataRecord): string | undefined {
  const stamp = lastChangeStamp(record);
  return stamp === undefined ? undefined : `W/"${stamp}"`;
}

/** `*`, or the opaque tags of a list of entity tags (weak or strong); undefined when the header is absent. */
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

/**
 * An If-Match header as the engine's write option: `{}` when absent or `*` (the write itself
 * requires the record to exist), else `{ ifUnchangedSince }` with the tags' timestamps (none for a
 * malformed header, which then matches nothing and fails the precondition).
 */
export function ifUnchangedSinceOf(ifMatch: string | undefined): { ifUnchangedSince?: string[] } {
  const condition = parseEntityTags(ifMatch);
  return condition === undefined || condition === '*' ? {} : { ifUnchangedSince: condition };
}
