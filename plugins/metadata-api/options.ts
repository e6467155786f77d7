/** Options of the metadata API plugin, checked when the plugin is made (a wrong value names its key). */
import { z } from 'zod';
import { parsePluginOptions, routePrefix } from '../../kernel';

const schema = z.strictObject({
  /** Route prefix of the metadata API (default: config `routes.metadata`, /api/metadata), under the instance's basePath. */
  path: routePrefix.optional(),
});

export type MetadataApiOptions = z.input<typeof schema>;
export type MetadataApiSettings = z.output<typeof schema>;

export function parseMetadataApiOptions(input: unknown): MetadataApiSettings {
  return parsePluginOptions('metadata-api', schema, input);
}
