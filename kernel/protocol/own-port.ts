/**
 * A plugin served on a port of its own (OData's and GraphQL's `port` option): a node:http server
 * with the plugin's own request handler (which routes into the kernel's express app), listening
 * on the kernel's host, with the kernel's connection limits and timeouts (pass
 * `kernel.config.server`; their defaults otherwise), and drained on close the way the kernel's
 * own server is.
 */
import type { RequestListener, Server } from 'node:http';
import { createLimitedServer, defaultServerSettings, listen, serverUrl, type ServerSettings } from '../http/server-lifecycle';

export interface OwnPortServer {
  readonly server: Server;
  /** `http://host:port` where it listens (the loopback address when it listens on every one). */
  readonly url: string;
  /** Stops accepting, lets responses in flight finish (up to `server.shutdownTimeoutMs`), then closes what is left. */
  close(): Promise<void>;
}

export async function listenOnOwnPort(
  port: number,
  host: string,
  handler: RequestListener,
  settings: ServerSettings = defaultServerSettings(),
): Promise<OwnPortServer> {
  const limited = createLimitedServer(handler, settings);
  await listen(limited.server, port, host);
  return { server: limited.server, url: serverUrl(limited.server), close: () => limited.drain() };
}
