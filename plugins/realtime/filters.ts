/**
 * Deciding whether a deleted record reaches a subscriber. The record is gone from the store, so
 * the engine cannot re-read it as the subscriber: the subscriber's read scope (record_filters of
 * its permission entries, from the engine's compiled permissions) and the subscription's filter
 * are evaluated on the record as it was stored before the delete, with special values resolved
 * for the subscriber, by the kernel's own evaluator.
 */
import { evaluateFilter, isAnonymous, type DataRecord, type Filter, type User } from '../../kernel';

const SPECIAL = /^\$(current_user(\.[A-Za-z_]\w*)?|today|now)$/;

function resolve(value: string, user: User | undefined, now: Date): unknown {
  switch (value) {
    case '$now':
      return now.toISOString();
    case '$today':
      return now.toISOString().slice(0, 10);
    case '$current_user':
      return user?.id ?? null;
    case '$current_user.role':
    case '$current_user.roles':
      return user ? [...user.roles] : null;
    default: {
      const key = value.slice('$current_user.'.length);
      if (!user || !Object.prototype.hasOwnProperty.call(user, key)) return null;
      const v = user[key];
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? null : (v ?? null);
    }
  }
}

/** The filter with special values replaced for `user` (an anonymous user has no $current_user). */
export function withSpecials(filter: Filter, user: User | undefined, now = new Date()): Filter {
  const who = isAnonymous(user) ? undefined : user;
  const walk = (f: Filter): Filter => {
    if ('and' in f) return { and: f.and.map(walk) };
    if ('or' in f) return { or: f.or.map(walk) };
    if ('not' in f) return { not: walk(f.not) };
    if (!('value' in f)) return f;
    const v = f.value;
    const sub = (x: unknown) => (typeof x === 'string' && SPECIAL.test(x) ? resolve(x, who, now) : x);
    if (Array.isArray(v))
      return {
        ...f,
        value: v.flatMap((x) => {
          const r = sub(x);
          return Array.isArray(r) ? r : [r];
        }),
      };
    const r = sub(v);
    if (Array.isArray(r) && (f.op === 'eq' || f.op === 'ne')) return { ...f, op: f.op === 'eq' ? 'in' : 'nin', value: r } as Filter;
    return { ...f, value: r } as Filter;
  };
  return walk(filter);
}

export function matches(filter: Filter | undefined, record: DataRecord, user: User | undefined): boolean {
  return !filter || evaluateFilter(withSpecials(filter, user), record);
}
