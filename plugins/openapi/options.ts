/** Options of the openapi plugin, checked when the plugin is made (a wrong value names its key). */
import { z } from 'zod';
import { parsePluginOptions, routePrefix } from '../../kernel';

const PATH_RULE = 'must be a path of plain segments starting with "/", such as "/reference" (letters, digits, . _ ~ -), or "/"';

const schema = z.strictObject({
  /** Where the document is served; default `{routes.rpc}/openapi.json`. Under the instance's basePath. */
  documentPath: routePrefix.optional(),
  /** Where the API reference page is served ('/': the root); default `{routes.rpc}/docs`. Under the instance's basePath. */
  docsPath: z.union([z.literal('/'), routePrefix], { error: PATH_RULE }).optional(),
  /** `info.title` of the document and the page title; default 'ObjectQL API'. */
  title: z
    .string({ error: 'must be a non-empty string' })
    .refine((t) => t.trim() !== '', { error: 'must be a non-empty string' })
    .optional(),
  /** `info.license` of the document; default: the application's package.json `license` (an SPDX id, linked to spdx.org). */
  license: z
    .strictObject({
      name: z.string().min(1, { error: 'must be a non-empty string' }),
      url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    })
    .optional(),
});

export type OpenApiOptions = z.input<typeof schema>;
export type OpenApiSettings = z.output<typeof schema>;

export function parseOpenApiOptions(input: unknown): OpenApiSettings {
  return parsePluginOptions('openapi', schema, input);
}
