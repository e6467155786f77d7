/**
 * The callers of the permission matrix: the sample application's users (test/helpers/server.ts),
 * a user holding two roles whose read and write scopes differ, and an anonymous caller.
 */
import type { User } from '../../kernel';
import { USERS } from '../helpers/server';

/** A matrix caller: `user` is undefined for the anonymous caller. */
export interface MatrixUser {
  name: string;
  user?: User;
}

function caller(name: string, user?: User): MatrixUser {
  return { name, user };
}

export const MATRIX_USERS = {
  /** member: her own projects (owner) and tasks (assignee); never actual_cost; budget read-only. */
  alice: caller('alice', USERS.alice),
  /** member: the same rules, his own records. */
  bob: caller('bob', USERS.bob),
  /** manager: everything on the objects with a permission file. */
  carol: caller('carol', USERS.carol),
  /** viewer: reads everything but note.secret, writes nothing guarded. */
  victor: caller('victor', USERS.viewer),
  /** admin: bypasses every check. */
  root: caller('root', USERS.admin),
  /** authenticated, no role: nothing guarded. */
  nobody: caller('nobody', USERS.nobody),
  /** alice as member and viewer: reads what a viewer reads, writes what a member writes. */
  aliceViewer: caller('aliceViewer', { id: 'alice', roles: ['member', 'viewer'] }),
  /** no credentials at all. */
  anonymous: caller('anonymous'),
} satisfies Record<string, MatrixUser>;

export type UserName = keyof typeof MATRIX_USERS;

export const USER_NAMES = Object.keys(MATRIX_USERS) as UserName[];

export function isAnonymousCaller(u: MatrixUser): boolean {
  return u.user === undefined || u.user.anonymous === true;
}
