/** The REST plugin's options (`plugins.rest` in the config), checked when the plugin is made: a wrong one stops start-up naming its key. */
import { z } from 'zod';
import { parsePluginOptions, routePrefix } from '../../kernel';

const schema = z.strictObject(
  {
    /** Where the routes are served (under the instance's basePath); default: config `routes.data`. */
    path: routePrefix.optional(),
  },
  { error: 'must be an object {path?}' },
);

export type RestOptions = z.input<typeof schema>;
export type RestSettings = z.output<typeof schema>;

export function parseRestOptions(input: unknown): RestSettings {
  return parsePluginOptions('rest', schema, input);
}
