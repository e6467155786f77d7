import type { Logger } from 'pino';

/** The user context of the spec: an id, roles and any further free keys. */
export interface User {
  id: string;
  roles: string[];
  [key: string]: unknown;
}

/** Who asks and on which request; every engine call carries one. */
export interface RequestContext {
  user?: User;
  requestId?: string;
  logger?: Logger;
  /** Skips every permission check: for the kernel's own work (seeding data, cascading deletes). */
  system?: boolean;
}
