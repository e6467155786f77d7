/**
 * Where Studio finds the service's public APIs, as this kernel serves them: the spec's four route
 * prefixes, and the realtime WebSocket and session routes when those plugins are enabled (from
 * their capabilities). The page carries them to the app: the console has no door of its own.
 */
import type { Capability, Kernel } from '../../kernel';

export interface StudioEndpoints {
  rpc: string;
  data: string;
  metadata: string;
  /** Absent without the files plugin: attachment fields are then shown, not uploaded. */
  files?: string;
  /** The realtime WebSocket's path; absent without the realtime plugin (no live updates). */
  realtime?: string;
  /** The auth plugin's session route; absent without sessions (the console then asks for no sign-in). */
  session?: string;
  /** Whether the auth plugin is enabled: without a session route the console cannot sign in. */
  auth: boolean;
}

function routeOf(capabilities: Capability[], plugin: string, match: (path: string, method?: string) => boolean): string | undefined {
  for (const c of capabilities) {
    if (c.plugin !== plugin || !Array.isArray(c.routes)) continue;
    for (const route of c.routes) {
      if (typeof route !== 'string') continue;
      const [first, second] = route.trim().split(/\s+/);
      const [method, path] = second === undefined ? [undefined, first] : [first, second];
      if (path && match(path, method)) return path;
    }
  }
  return undefined;
}

export function studioEndpoints(kernel: Kernel): StudioEndpoints {
  const capabilities = kernel.hooks.capabilities.call([]);
  const { rpc, data, metadata, files } = kernel.http.routes;
  const enabled = (plugin: string) => capabilities.some((c) => c.plugin === plugin);
  const realtime = routeOf(capabilities, 'realtime', (path) => path.startsWith('/'));
  const session = routeOf(capabilities, 'auth', (path, method) => method === 'POST' && path.endsWith('/session'));
  return {
    rpc,
    data,
    metadata,
    ...(enabled('files') ? { files } : {}),
    ...(realtime ? { realtime } : {}),
    ...(session ? { session } : {}),
    auth: enabled('auth'),
  };
}
