/**
 * Paging per group (Query.perGroup), the reference semantics: rows already in sort order are
 * numbered within each value of `field` (null a group of its own; JSON values compared as text),
 * and only those after the first `skip` and within `top` of their group are kept. The memory
 * driver pages with it, and so does the engine for a store that cannot page per group.
 */
import type { DbRecord } from '../drivers';
import type { Query } from './ast';

export function pagePerGroup<R extends DbRecord>(rows: readonly R[], group: NonNullable<Query['perGroup']>): R[] {
  const skip = Math.max(0, group.skip ?? 0);
  const end = group.top === undefined ? Infinity : skip + Math.max(0, group.top);
  const seen = new Map<unknown, number>();
  return rows.filter((row) => {
    const raw = row[group.field] ?? null;
    const key = raw !== null && typeof raw === 'object' ? JSON.stringify(raw) : raw;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n > skip && n <= end;
  });
}
