/** What the GraphQL plugin hands to its subscriptions module (see index.ts). */
import type { Kernel, RequestContext, User } from '../../kernel';
import type { CurrentSchema } from './cache';
import type { GraphQLContext } from './context';
import type { GraphQLSettings } from './options';
import type { SchemaContributor } from './schema';

export interface GraphQLPluginApi {
  kernel: Kernel;
  settings: GraphQLSettings;
  /**
   * The endpoint's path on the kernel's server, under the instance's base path (the WebSocket
   * address of subscriptions). Known once the plugin is registered.
   */
  readonly path: string;
  /** The current schema (subscriptions included) and the documents checked against it; rebuilt when metadata changes. */
  current(): CurrentSchema;
  /** The context an operation of `user` runs with (undefined: anonymous). */
  contextFor(user?: User, extra?: Partial<RequestContext>): GraphQLContext;
}

/** What the subscriptions module gives back. */
export interface SubscriptionsModule {
  contributor: SchemaContributor;
  start?(): Promise<void>;
  stop?(): Promise<void>;
}
