/**
 * A verified token's claims as the spec's user context (docs/spec.md, "User context"): `id` from `idClaim`, `roles` from
 * `rolesClaim` (a claim name, or a dotted path such as `realm_access.roles`; a list or a
 * space-separated string), every other claim kept as a free key except `anonymous`. Pure.
 */
import type { User } from '../../kernel';
import { CredentialRejected } from './rejection';

export function userFromClaims(claims: Record<string, unknown>, idClaim: string, rolesClaim: string): User {
  const id = claims[idClaim];
  if (typeof id !== 'string' || !id) throw new CredentialRejected('bearer', `its '${idClaim}' claim is missing or not a string`);
  const roles = parseRoles(readClaim(claims, rolesClaim), rolesClaim);
  const free: Record<string, unknown> = { ...claims };
  delete free[idClaim];
  // `anonymous: true` marks the caller who presented no credential (the kernel's isAnonymous): a token's user is never that.
  delete free.anonymous;
  if (Object.prototype.hasOwnProperty.call(claims, rolesClaim)) delete free[rolesClaim];
  return { ...free, id, roles };
}

/** A claim by its exact name (names like 'https://example.com/roles' hold dots), else by dotted path. */
function readClaim(claims: Record<string, unknown>, name: string): unknown {
  if (Object.prototype.hasOwnProperty.call(claims, name)) return claims[name];
  let value: unknown = claims;
  for (const part of name.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.prototype.hasOwnProperty.call(value, part))
      return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function parseRoles(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value) && value.every((r) => typeof r === 'string')) return [...value];
  throw new CredentialRejected('bearer', `its '${name}' claim is neither a list of strings nor a space-separated string`);
}
