/** What the kernel's server and a plugin's own-port server share: their address as a URL, and draining. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How long a stopping server lets requests in flight finish before it closes their connections. */
export const DRAIN_TIMEOUT_MS = 10_000;

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

/**
 * Stops accepting, closes idle connections, runs `beforeWait` (closing sockets that would keep the
 * server open), then lets requests in flight finish for up to DRAIN_TIMEOUT_MS before closing
 * what is left.
 */
export async function drainServer(server: Server, beforeWait?: () => Promise<void>): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await beforeWait?.();
  const timer = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
  await closed;
  clearTimeout(timer);
}
