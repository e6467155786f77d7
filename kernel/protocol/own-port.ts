/**
 * A plugin served on a port of its own (OData's and GraphQL's `port` option): a node:http server
 * with the plugin's own request handler (which routes into the kernel's express app), listening
 * on the kernel's host, and drained on close the way the kernel's own server is.
 */
import { createServer, type RequestListener, type Server } from 'node:http';

const DRAIN_TIMEOUT_MS = 10_000;

export interface OwnPortServer {
  readonly server: Server;
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
  return {
    server,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
      await closed;
      clearTimeout(timer);
    },
  };
}
