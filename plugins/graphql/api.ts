/** What the GraphQL plugin hands to its subscriptions module (see the contract in index.ts). */
import type { GraphQLSchema } from 'graphql';
import type { Kernel, RequestContext, User } from '../../kernel';
import type { GraphQLContext } from './context';
import type { GraphQLSettings } from './options';
import type { SchemaContributor } from './schema';

export interface GraphQLPluginApi {
  kernel: Kernel;
  settings: GraphQLSettings;
  /** The endpoint's path on the kernel's server (the WebSocket address of subscriptions). */
  path: string;
  /** The current schema (subscriptions included), rebuilt when metadata changes. */
  getSchema(): GraphQLSchema;
  /** The context an operation of `user` runs with (undefined: anonymous). */
  contextFor(user?: User, extra?: Partial<RequestContext>): GraphQLContext;
}

/** What the subscriptions module gives back. */
export interface SubscriptionsModule {
  contributor: SchemaContributor;
  start?(): Promise<void>;
  stop?(): Promise<void>;
}
