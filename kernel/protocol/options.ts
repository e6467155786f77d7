/**
 * Option schemas more than one protocol plugin takes, for its zod options schema (checked with
 * the kernel's parsePluginOptions, which names the key that is wrong).
 */
import { z } from 'zod';
import { routePrefix } from '../config/schema';

/** `port`: a port of the plugin's own (0: any free one). */
export const portOption = z
  .number({ error: 'must be a port number' })
  .int('must be a whole number')
  .min(0, 'must be between 0 and 65535')
  .max(65535, 'must be between 0 and 65535');

/**
 * The options of a plugin whose one option is where it is served, `{path?}` (rpc, rest,
 * metadata-api): a route prefix under the instance's basePath; absent, the config's `routes.*`.
 */
export const routeOptions = z.strictObject({ path: routePrefix.optional() }, { error: 'must be an object {path?}' });

export type RouteOptions = z.input<typeof routeOptions>;
