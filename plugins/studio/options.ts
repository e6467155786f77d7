/** Studio's options, checked once when the plugin is made: a wrong value stops start-up naming it. */
import { z } from 'zod';
import { parsePluginOptions, routePrefix } from '../../kernel';

const optionsSchema = z.strictObject(
  {
    /** Where the console is served, under the instance's base path. */
    path: routePrefix.optional(),
    /** The name in the page's title and header. */
    title: z
      .string({ error: 'must be a string' })
      .min(1, { error: 'must not be empty' })
      .max(80, { error: 'must be at most 80 characters' })
      .optional(),
  },
  { error: 'must be a map of options' },
);

export type StudioOptions = z.input<typeof optionsSchema>;

export interface StudioSettings {
  path: string;
  title: string;
}

export function parseStudioOptions(input: unknown): StudioSettings {
  const parsed = parsePluginOptions('studio', optionsSchema, input);
  return { path: parsed.path ?? '/studio', title: parsed.title ?? 'ObjectQL Studio' };
}
