/**
 * What the kernel's server and a plugin's own-port server share: connection limits and timeouts
 * (config `server`), their address as a URL, and draining.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serverSchema } from '../config/schema';
import { ConnectionGuard } from './connection-guard';
import { answerClientErrors } from './client-errors';

/** Config `server`, resolved. */
export type ServerSettings = ReturnType<typeof serverSchema.parse>;

/** The defaults of config `server`, for a server started without the kernel's config. */
export function defaultServerSettings(): ServerSettings {
  return serverSchema.parse({});
}

/** A node:http server with the limits of `settings`, and its stop. */
export interface LimitedServer {
  readonly server: Server;
  /** Open connections, in all. */
  readonly connections: () => number;
  /**
   * Stops accepting, closes idle connections, runs `beforeWait` (closing sockets that would keep
   * the server open, such as WebSockets), then lets responses in flight be written out, each
   * connection closing after its last one; whatever is still open after `shutdownTimeoutMs` is closed.
   */
  drain(beforeWait?: () => Promise<void>): Promise<void>;
}

export function createLimitedServer(handler: RequestListener, settings: ServerSettings): LimitedServer {
  const server: Server = createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      // How often the two timeouts above are checked (Node's default, 30 s, would let a slow
      // request live up to 30 s past them).
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(settings.headersTimeoutMs / 4))),
    },
    (req, res) => {
      if (guard.begin(req, res)) handler(req, res);
      else res.destroy();
    },
  );
  const guard = new ConnectionGuard(server, settings);
  answerClientErrors(server, settings, (socket) => guard.hasRequest(socket));
  return {
    server,
    connections: () => guard.size,
    drain: async (beforeWait) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      guard.stop();
      const timer = setTimeout(() => {
        server.closeAllConnections();
        guard.destroyAll();
      }, settings.shutdownTimeoutMs);
      try {
        await beforeWait?.();
        await closed;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** `http://host:port` of a listening server; an unspecified address reads as the loopback one. */
export function serverUrl(server: Server): string {
  const address = server.address() as AddressInfo | null;
  if (!address) throw new Error('HTTP server is not listening');
  const host =
    address.family === 'IPv6'
      ? `[${address.address === '::' ? '::1' : address.address}]`
      : address.address === '0.0.0.0'
        ? '127.0.0.1'
        : address.address;
  return `http://${host}:${address.port}`;
}

/** Listens on `port` and `host`; rejects when the address is taken. */
export async function listen(server: Server, port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
