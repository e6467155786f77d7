/**
 * The GraphQL plugin's options (`plugins.graphql` in the config), checked with zod when the plugin
 * is created; a wrong value stops start-up with a message naming its key. Pure: no I/O.
 */
import { z } from 'zod';
import { parsePluginOptions, routePrefix, type PubSub } from '../../kernel';
import { portOption } from '../../kernel/protocol';

/** A GraphQL name: what federationServiceName must be to name a subgraph. */
const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

const flag = z.boolean({ error: 'must be true or false' });

const isPubSub = (v: unknown): v is PubSub =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { publish?: unknown }).publish === 'function' &&
  typeof (v as { subscribe?: unknown }).subscribe === 'function';

const schema = z.strictObject(
  {
    /** The endpoint, under the instance's base path (config `basePath`). */
    path: routePrefix.default('/api/graphql'),
    port: portOption.optional(),
    introspection: flag.default(true),
    enableSubscriptions: flag.default(true),
    enableFederation: flag.default(false),
    federationServiceName: z
      .string({ error: 'must be a string' })
      .regex(NAME, 'must be a name of letters, digits, _ and -, not starting with a digit')
      .default('objectql'),
    /** A publish/subscribe instance of the caller's own, for subscriptions (default: the kernel's). */
    pubsub: z.custom<PubSub>(isPubSub, { error: 'must be a publish/subscribe instance with publish() and subscribe()' }).optional(),
  },
  { error: 'must be an object {path?, port?, introspection?, enableSubscriptions?, enableFederation?, federationServiceName?, pubsub?}' },
);

export type GraphQLOptions = z.input<typeof schema>;
export type GraphQLSettings = z.output<typeof schema>;

/** The options with their defaults, or a PluginError naming every wrong key. */
export function parseOptions(options: unknown): GraphQLSettings {
  return parsePluginOptions('graphql', schema, options);
}
