/** What every resolver of the GraphQL schema receives as its context: who asks. */
import type { RequestContext, User } from '../../kernel';

export interface GraphQLContext {
  /** The caller, as the engine takes it: `engine.repo(object, context.request)`. */
  request: RequestContext;
}

/** The context of one operation run for `user` (undefined: anonymous); `extra` adds a request id or logger. */
export function contextFor(user?: User, extra: Partial<RequestContext> = {}): GraphQLContext {
  return { request: { ...extra, user } };
}
