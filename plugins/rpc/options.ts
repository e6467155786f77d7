/** The JSON-RPC plugin's options (`plugins.rpc` in the config), checked when the plugin is made: a wrong one stops start-up naming its key. */
import { z } from 'zod';
import { parsePluginOptions, routePrefix } from '../../kernel';

const schema = z.strictObject(
  {
    /** Where the route is served (under the instance's basePath); default: config `routes.rpc`. */
    path: routePrefix.optional(),
  },
  { error: 'must be an object {path?}' },
);

export type RpcOptions = z.input<typeof schema>;
export type RpcSettings = z.output<typeof schema>;

export function parseRpcOptions(input: unknown): RpcSettings {
  return parsePluginOptions('rpc', schema, input);
}
