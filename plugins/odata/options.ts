/**
 * The OData plugin's options (`plugins.odata` in the config), checked with zod when the plugin is
 * created; a wrong value stops start-up with a message naming its key. Pure: no I/O.
 */
import { z } from 'zod';
import { parsePluginOptions } from '../../kernel';
import { portOption } from '../../kernel/protocol';

/** Plain path segments: '/odata', '/api/v1/odata' (no trailing slash, no parameters or patterns). */
const BASE_PATH = /^(\/[A-Za-z0-9_\-.~]+)+$/;

const flag = z.boolean({ error: 'must be true or false' });

const schema = z.strictObject(
  {
    port: portOption.optional(),
    basePath: z
      .string({ error: "must be a path such as '/odata'" })
      .regex(BASE_PATH, "must be a path of plain segments such as '/odata' (letters, digits, - . _ ~; no trailing slash)")
      .default('/odata'),
    maxExpandDepth: z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').default(3),
    enableBatch: flag.default(true),
    enableSearch: flag.default(true),
    enableETags: flag.default(true),
    /** Most entities (or $apply groups) in one response; more are behind @odata.nextLink. Default: the kernel's limits.maxTop. */
    maxPageSize: z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').optional(),
    /** Most characters of one $apply or $compute expression. */
    maxExpressionLength: z.number({ error: 'must be a number' }).int('must be a whole number').min(16, 'must be at least 16').default(4096),
  },
  {
    error:
      'must be an object {port?, basePath?, maxExpandDepth?, enableBatch?, enableSearch?, enableETags?, maxPageSize?, maxExpressionLength?}',
  },
);

export type ODataOptions = z.input<typeof schema>;
export type ODataSettings = z.output<typeof schema>;

/** The options with their defaults, or a PluginError naming every wrong key. */
export function parseOptions(options: unknown): ODataSettings {
  return parsePluginOptions('odata', schema, options);
}
