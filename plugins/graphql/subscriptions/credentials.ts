/**
 * The credentials a graphql-ws connection is judged on, as the headers the kernel's `authenticate`
 * hook reads. Those of its connection_init payload when it carries any: `authorization` ("Bearer
 * <token>") and `x-api-key`, in any letter case, so the headers a client such as GraphiQL sends
 * over HTTP (`{"X-API-Key": "..."}`) work as connection parameters too. Otherwise those of the
 * upgrade request: its Authorization, X-API-Key and Cookie headers, as for a realtime socket (the
 * kernel has already refused a cookie-bearing upgrade from an origin it does not allow).
 */
import type { IncomingMessage } from 'node:http';

/** Connection parameters that carry a credential, by their header name in lower case. */
const PARAMETER_CREDENTIALS: ReadonlySet<string> = new Set(['authorization', 'x-api-key']);
/** Headers of the upgrade request that carry a credential. */
const UPGRADE_CREDENTIALS = ['authorization', 'x-api-key', 'cookie'] as const;

export type ConnectionCredentials = { credentials: Record<string, string> } | { problem: string };

export function connectionCredentials(
  params: Readonly<Record<string, unknown>> | undefined,
  request: IncomingMessage,
): ConnectionCredentials {
  const given: Record<string, string> = {};
  for (const [key, value] of Object.entries(params ?? {})) {
    const name = key.toLowerCase();
    if (!PARAMETER_CREDENTIALS.has(name) || value === undefined || value === null) continue;
    if (typeof value !== 'string') return { problem: `The '${key}' connection parameter must be a string` };
    if (given[name] !== undefined && given[name] !== value)
      return { problem: `The connection parameters name two different '${name}' values` };
    given[name] = value;
  }
  if (Object.keys(given).length) return { credentials: given };
  const own: Record<string, string> = {};
  for (const name of UPGRADE_CREDENTIALS) {
    const value = request.headers[name];
    if (typeof value === 'string') own[name] = value;
  }
  return { credentials: own };
}
