/**
 * A plugin served on a port of its own (OData's and GraphQL's `port` option): a node:http server
 * with the plugin's own request handler (which routes into the kernel's express app), listening
 * on the kernel's host, and drained on close the way the kernel's own server is.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { drainServer, serverUrl } from '../http/server-lifecycle';

export interface OwnPortServer {
  readonly server: Server;
  /** `http://host:port` where it listens (the loopback address when it listens on every one). */
  readonly url: string;
  /** Stops accepting, lets requests in flight finish (up to 10 s), then closes what is left. */
  close(): Promise<void>;
}

export async function listenOnOwnPort(port: number, host: string, handler: RequestListener): Promise<OwnPortServer> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, url: serverUrl(server), close: () => drainServer(server) };
}
