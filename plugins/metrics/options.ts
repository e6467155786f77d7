/**
 * The metrics plugin's options, checked once when the plugin is made: a wrong value stops start-up
 * naming the option and what is wrong with it.
 */
import { z } from 'zod';
import { parsePluginOptions, routePrefix } from '../../kernel';

const DEFAULT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const optionsSchema = z.strictObject(
  {
    /** Where the metrics are served, under the instance's base path. */
    path: routePrefix.optional(),
    /**
     * A secret a scraper sends as `Authorization: Bearer <token>`. Without it, only a caller with
     * one of `security.adminRoles` reads the metrics.
     */
    token: z.string({ error: 'must be a string' }).min(16, { error: 'must be at least 16 characters long' }).optional(),
    /** Serve the metrics to anyone who can reach the path (a scrape on a private network). */
    public: z.boolean({ error: 'must be true or false' }).optional(),
    /** Every metric's name starts with this. */
    prefix: z
      .string({ error: 'must be a string' })
      .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, { error: 'must be a Prometheus name: letters, digits and _' })
      .optional(),
    /** The process's own metrics (CPU, memory, event loop delay, garbage collection), from prom-client. */
    processMetrics: z.boolean({ error: 'must be true or false' }).optional(),
    /** Upper bounds, in seconds, of the duration histograms' buckets. */
    buckets: z
      .array(z.number({ error: 'must be a number of seconds' }).positive({ error: 'must be above 0' }), {
        error: 'must be a list of seconds',
      })
      .min(1, { error: 'must not be empty' })
      .max(30, { error: 'may hold at most 30 bounds' })
      .optional(),
  },
  { error: 'must be a map of options' },
);

export type MetricsOptions = z.input<typeof optionsSchema>;

export interface MetricsSettings {
  path: string;
  token?: string;
  public: boolean;
  prefix: string;
  processMetrics: boolean;
  buckets: number[];
}

export function parseOptions(options: unknown): MetricsSettings {
  const o = parsePluginOptions('metrics', optionsSchema, options);
  return {
    path: o.path ?? '/metrics',
    token: o.token,
    public: o.public ?? false,
    prefix: o.prefix ?? 'objectql_',
    processMetrics: o.processMetrics ?? true,
    buckets: [...new Set(o.buckets ?? DEFAULT_BUCKETS)].sort((a, b) => a - b),
  };
}
