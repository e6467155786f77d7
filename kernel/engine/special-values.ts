/**
 * Special values usable in filters, record_filters and default values: $current_user (the id),
 * $current_user.role (every role of the caller), $current_user.<key> (a free key of the user
 * context), $today (YYYY-MM-DD, UTC) and $now (ISO timestamp).
 */
import type { User } from '../context';
import { ObjectQLError } from '../errors';

export interface Specials {
  user?: User;
  now: Date;
}

export function isSpecial(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('$') && /^\$(current_user(\.[A-Za-z_]\w*)?|today|now)$/.test(value);
}

/**
 * Resolves one special value. `$current_user.role` resolves to the list of roles, which the caller
 * turns `=` into `in`. A special about the user when there is no user resolves to null, so a
 * record filter such as owner = $current_user matches nothing for an anonymous caller.
 */
export function resolveSpecial(value: string, specials: Specials): unknown {
  switch (value) {
    case '$now':
      return specials.now.toISOString();
    case '$today':
      return specials.now.toISOString().slice(0, 10);
    case '$current_user':
      return specials.user?.id ?? null;
    case '$current_user.role':
    case '$current_user.roles':
      return specials.user ? [...specials.user.roles] : null;
    default: {
      const key = value.slice('$current_user.'.length);
      // Own keys of the user context only: '$current_user.toString' is no key the caller has.
      if (!specials.user || !Object.prototype.hasOwnProperty.call(specials.user, key)) return null;
      const v = specials.user[key];
      if (v !== undefined && v !== null && typeof v === 'object' && !Array.isArray(v)) {
        throw new ObjectQLError('INVALID_REQUEST', `Special value ${value} is not a plain value`);
      }
      return v ?? null;
    }
  }
}
