/**
 * The events plugin's options, checked once when the plugin is made: a wrong value stops start-up
 * naming the option and what is wrong with it. One schema for the three parts of the plugin: the
 * outbox and change feed, the dispatcher of deliveries, and the actions it runs (webhooks, brokers).
 */
import { z } from 'zod';
import { parsePluginOptions, routePrefix } from '../../kernel';

const positiveInt = (what: string) =>
  z
    .number({ error: `must be a number of ${what}` })
    .int({ error: `must be a whole number of ${what}` })
    .positive({ error: 'must be above 0' });

const optionsSchema = z.strictObject(
  {
    /** Where the change feed is served, under the instance's base path. */
    path: routePrefix.default('/api/events'),
    /** Events older than this are deleted (hourly). */
    retentionHours: positiveInt('hours').default(168),
    /** The largest page of the change feed (`limit`); a page is 100 events unless asked. */
    feedMaxLimit: positiveInt('events').max(100_000, { error: 'may be at most 100000' }).default(1000),
    /**
     * The datasources that keep an outbox (and a change feed). Default: every datasource holding
     * at least one object. Each must support row locks (SQL, memory): MongoDB cannot keep one.
     */
    datasources: z
      .array(z.string({ error: 'must be a datasource name' }).min(1, { error: 'must be a datasource name' }), {
        error: 'must be a list of datasource names',
      })
      .optional(),
    /** The dispatcher: claims due deliveries and runs their actions after commit. */
    dispatcher: z
      .strictObject(
        {
          enabled: z.boolean({ error: 'must be true or false' }).default(true),
          /** How often due deliveries are looked for. */
          pollMs: positiveInt('milliseconds').default(1000),
          /** Deliveries claimed per poll. */
          batch: positiveInt('deliveries').default(50),
          /** How long a claim holds before another instance may take the delivery over. */
          leaseSeconds: positiveInt('seconds').default(60),
          /** Actions run at once, per instance. */
          concurrency: positiveInt('actions').default(8),
          /**
           * Make and run deliveries in a worker thread of this process (delivery/thread.ts), not on
           * the thread that serves requests. Not on in-memory datasources.
           */
          thread: z.boolean({ error: 'must be true or false' }).default(false),
        },
        { error: 'must be a map of options' },
      )
      .prefault({}),
    /** Retries of a failing action (a workflow's own `retry` overrides them). */
    retry: z
      .strictObject(
        {
          maxAttempts: positiveInt('attempts').default(10),
          initialDelayMs: positiveInt('milliseconds').default(1000),
          maxDelayMs: positiveInt('milliseconds').default(600_000),
        },
        { error: 'must be a map of options' },
      )
      .prefault({}),
    /** Webhook actions. */
    webhooks: z
      .strictObject(
        {
          /** A webhook's timeout unless its action sets one. */
          timeoutMs: positiveInt('milliseconds').default(10_000),
          /**
           * Hosts a webhook may call although they resolve to a private, loopback or link-local
           * address (refused otherwise). Empty: none.
           */
          allowHosts: z
            .array(z.string({ error: 'must be a host name' }).min(1, { error: 'must be a host name' }), {
              error: 'must be a list of host names',
            })
            .default([]),
          /** The largest request body a webhook sends. */
          maxBodyBytes: positiveInt('bytes').default(1_048_576),
        },
        { error: 'must be a map of options' },
      )
      .prefault({}),
    /** Brokers that `publish` actions name. */
    brokers: z
      .strictObject(
        {
          nats: z
            .strictObject(
              {
                servers: z.union(
                  [
                    z.string({ error: 'must be a NATS URL' }).min(1, { error: 'must be a NATS URL' }),
                    z.array(z.string().min(1, { error: 'must be a NATS URL' })).min(1, { error: 'must not be empty' }),
                  ],
                  { error: 'must be a NATS URL or a list of them' },
                ),
                /** The JetStream stream that must hold the subjects (checked at start when set). */
                stream: z.string({ error: 'must be a stream name' }).min(1, { error: 'must be a stream name' }).optional(),
              },
              { error: 'must be a map of options' },
            )
            .optional(),
          amqp: z
            .strictObject(
              { url: z.string({ error: 'must be an AMQP URL' }).min(1, { error: 'must be an AMQP URL' }) },
              { error: 'must be a map of options' },
            )
            .optional(),
        },
        { error: 'must be a map of options' },
      )
      .prefault({}),
  },
  { error: 'must be a map of options' },
);

/** The options as a config gives them. */
export type EventsOptions = z.input<typeof optionsSchema>;
/** The options with their defaults applied. */
export type EventsSettings = z.output<typeof optionsSchema>;

/** The plugin's settings: throws a PluginError naming every wrong option. */
export function parseOptions(options: unknown): EventsSettings {
  return parsePluginOptions('events', optionsSchema, options);
}

/** The default page of the change feed. */
export const DEFAULT_FEED_LIMIT = 100;
