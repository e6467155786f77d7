/**
 * GraphQL on a port of its own (option `port`; docs/spec.md, "GraphQL API"): a server of the plugin's own,
 * serving `/graphql` and `/health` only. `/graphql` is handed to the kernel's app as the
 * endpoint's path, so it goes through the kernel's whole pipeline (security headers, identity,
 * rate limits, the endpoint's error format); WebSocket upgrades of `/graphql` go to
 * subscriptions. The address is the port's own: the instance's base path does not move it.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { ObjectQLError, type Kernel, type UpgradeHandler } from '../../kernel';
import { listenOnOwnPort, type OwnPortServer } from '../../kernel/protocol';
import { kernelErrorBody } from './errors';

/** The endpoint's path on its own port. */
export const STANDALONE_PATH = '/graphql';

export interface OwnPortOptions {
  kernel: Kernel;
  port: number;
  /** The endpoint's path on the kernel's server: where `/graphql` is handed on. */
  endpoint: string;
  /** Subscriptions' upgrade handler, when they are on. */
  upgrade?: UpgradeHandler;
}

export interface OwnPort {
  server: OwnPortServer;
  /** Whether the request came in on this port (the kernel's own server does not serve GraphQL then). */
  received(req: IncomingMessage): boolean;
}

export async function listenOnGraphQLPort(options: OwnPortOptions): Promise<OwnPort> {
  const { kernel, endpoint, upgrade } = options;
  const app = kernel.http.app;
  const received = new WeakSet<IncomingMessage>();
  const server = await listenOnOwnPort(
    options.port,
    kernel.config.host,
    (req, res) => {
      const url = req.url ?? '/';
      const mark = url.indexOf('?');
      const path = mark < 0 ? url : url.slice(0, mark);
      if (path === STANDALONE_PATH) {
        req.url = endpoint + (mark < 0 ? '' : url.slice(mark));
        received.add(req);
      } else if (path !== '/health') {
        // Not the kernel's app (which would serve every other door here): its 404, in GraphQL's format.
        const error = new ObjectQLError('NOT_FOUND', `No route for ${req.method} ${path}: this port serves GraphQL at ${STANDALONE_PATH}`);
        res.writeHead(error.status, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(kernelErrorBody(error)));
        return;
      }
      void app(req, res);
    },
    kernel.config.server,
  );
  // Subscriptions on this port: graphql-ws at the same address with the ws scheme.
  server.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (upgrade && (req.url ?? '/').split('?')[0] === STANDALONE_PATH) return upgrade(req, socket, head);
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  return { server, received: (req) => received.has(req) };
}
