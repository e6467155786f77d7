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
const count = z
  .number({ error: 'must be a positive integer' })
  .int({ error: 'must be a positive integer' })
  .positive({ error: 'must be a positive integer' });

const PERSISTED_DEFAULTS = { maxEntries: 1000, maxQueryLength: 10_000 };
const BATCH_DEFAULTS = { maxBatchSize: 10 };

/** Apollo automatic persisted queries (persisted-queries.ts): on by default, a bounded store per kernel. */
const persistedQueries = z.union(
  [
    flag,
    z.strictObject(
      {
        /** Queries kept by hash; the least recently used goes first. */
        maxEntries: count.default(PERSISTED_DEFAULTS.maxEntries),
        /** Longer query texts run but are not kept. */
        maxQueryLength: count.default(PERSISTED_DEFAULTS.maxQueryLength),
      },
      { error: 'must be true, false or {maxEntries?, maxQueryLength?}' },
    ),
  ],
  { error: 'must be true, false or {maxEntries?, maxQueryLength?}' },
);

/** Array-batched requests (batch.ts): on by default, at most `maxBatchSize` operations per request. */
const batching = z.union(
  [flag, z.strictObject({ maxBatchSize: count.default(BATCH_DEFAULTS.maxBatchSize) }, { error: 'must be true, false or {maxBatchSize?}' })],
  {
    error: 'must be true, false or {maxBatchSize?}',
  },
);

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
    // Query limits (limits.ts, cost.ts): checked before anything runs; a document beyond one is 400 INVALID_REQUEST.
    /** Lexical tokens in a document (graphql-js counts them while parsing, so a huge document stops early). */
    maxTokens: count.default(1000),
    /** Nesting of fields (fragments flattened; introspection's `__schema` not counted). */
    maxDepth: count.default(10),
    /** Aliased fields in an operation (fragments included once per spread). */
    maxAliases: count.default(15),
    /** Directives in an operation. */
    maxDirectives: count.default(50),
    /** Selections (fields, fragment spreads, inline fragments) an operation makes, fragments expanded. */
    maxSelections: count.default(1000),
    /** The operation's estimated cost, a list's selections multiplied by its rows (top, or the kernel's defaultTop). */
    maxCost: count.default(50_000),
    persistedQueries: persistedQueries.default(true),
    batching: batching.default(true),
    /** The run of an operation from which it runs compiled by graphql-jit (document.ts); 0: never. */
    jit: z
      .number({ error: 'must be a whole number, 0 or more' })
      .int({ error: 'must be a whole number, 0 or more' })
      .min(0, { error: 'must be a whole number, 0 or more' })
      .default(2),
    /**
     * Changes of the object a resuming subscription (`after`) may replay from the change feed, at
     * most what one subscriber may have undelivered (1000): more is an error telling it to reload.
     */
    maxReplay: count.max(1000, { error: 'must be at most 1000' }).default(1000),
    pubsub: z.custom<PubSub>(isPubSub, { error: 'must be a publish/subscribe instance with publish() and subscribe()' }).optional(),
  },
  {
    error:
      'must be an object {path?, port?, introspection?, enableSubscriptions?, enableFederation?, federationServiceName?, ' +
      'maxTokens?, maxDepth?, maxAliases?, maxDirectives?, maxSelections?, maxCost?, persistedQueries?, batching?, jit?, maxReplay?, pubsub?}',
  },
);

export type GraphQLOptions = z.input<typeof schema>;
type Parsed = z.output<typeof schema>;

/** The persisted-query store's bounds; `false` when they are off. */
export type PersistedQuerySettings = false | { maxEntries: number; maxQueryLength: number };
/** The batch bound; `false` when batches are refused. */
export type BatchSettings = false | { maxBatchSize: number };

export interface GraphQLSettings extends Omit<Parsed, 'persistedQueries' | 'batching'> {
  persistedQueries: PersistedQuerySettings;
  batching: BatchSettings;
}

/** The options with their defaults (true: the defaults of an object), or a PluginError naming every wrong key. */
export function parseOptions(options: unknown): GraphQLSettings {
  const parsed = parsePluginOptions('graphql', schema, options);
  const { persistedQueries: pq, batching: b } = parsed;
  return {
    ...parsed,
    persistedQueries: pq === true ? { ...PERSISTED_DEFAULTS } : pq,
    batching: b === true ? { ...BATCH_DEFAULTS } : b,
  };
}
