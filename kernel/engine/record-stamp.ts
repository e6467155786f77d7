/**
 * A record's last-change stamp: `updated_at`, else `created_at`, as an ISO 8601 instant. The
 * optimistic-concurrency precondition of update and delete (`ifUnchangedSince`) compares it, and
 * the protocols' ETags are made of it. Drivers may return these fields as Date or string: both
 * (and epoch milliseconds) give the same instant. Pure.
 */
import type { DataRecord } from './types';

/** The fields a stamp is made of, in order of preference. */
export const STAMP_FIELDS = ['updated_at', 'created_at'] as const;

/** An instant (Date, ISO string or epoch milliseconds) in toISOString form; undefined when it is none. */
export function toInstant(value: unknown): string | undefined {
  const time =
    value instanceof Date ? value.getTime() : typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(time) ? new Date(time).toISOString() : undefined;
}

/**
 * The record's stamp as seen with `readable` fields (all when not given): `updated_at` when
 * readable and set, else `created_at`; undefined when there is neither.
 */
export function lastChangeStamp(record: DataRecord, readable?: ReadonlySet<string>): string | undefined {
  for (const field of STAMP_FIELDS) {
    if (readable && !readable.has(field)) continue;
    const value = record[field];
    if (value !== undefined && value !== null) return toInstant(value);
  }
  return undefined;
}
