import type { Logger } from 'pino';

/** The user context of the spec (docs/spec.md, "User context"): an id, roles and any further free keys. */
export interface User {
  id: string;
  roles: string[];
  /**
   * Set by an authentication plugin for a caller who presented no credential but is let in with
   * roles of its own: that caller counts as anonymous everywhere (401 on denial, no $current_user).
   */
  anonymous?: boolean;
  [key: string]: unknown;
}

/** No user at all, or a user an authentication plugin marked `anonymous: true`. */
export function isAnonymous(user: User | undefined): boolean {
  return !user || user.anonymous === true;
}

/** Who asks and on which request; every engine call carries one. */
export interface RequestContext {
  user?: User;
  requestId?: string;
  logger?: Logger;
  /** Skips every permission check: for the kernel's own work (seeding data, cascading deletes). */
  system?: boolean;
}
