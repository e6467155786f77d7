/**
 * Identity, in ONE place: how a matrix caller proves who it is, and what the server needs to
 * understand that. Today: the test helper's X-Test-User header (a JSON user read by a test
 * authenticate hook). When the auth plugin lands, this file switches to real credentials (say
 * JWTs signed with a test secret, and the `auth` plugin in `serverConfig`) and nothing else in
 * test/matrix changes.
 */
import type { ObjectQLConfig } from '../../kernel';
import type { StartOptions } from '../helpers/server';
import type { MatrixUser } from './users';

/** The headers that carry `u`'s identity; none for the anonymous caller. */
export function credentials(u: MatrixUser): Record<string, string> {
  return u.user ? { 'x-test-user': JSON.stringify(u.user) } : {};
}

/** What the server needs to accept those credentials. */
export const identityServer: { config: Partial<ObjectQLConfig>; options: StartOptions } = {
  config: {},
  options: { identityFromHeader: true },
};
