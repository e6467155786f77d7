/**
 * The realtime plugin: the spec's planned WebSocket API (docs/spec.md, "Planned WebSocket API") at ws://{host}{basePath}{path} (path
 * default /api/realtime). A client authenticates, subscribes to an object (optionally with a
 * filter in the spec's filter language) and receives every committed change it may read, as it
 * may read it. Fed by the kernel pubsub's
 * RECORD_CHANGED_CHANNEL, so with pubsub-redis a change made on any instance reaches subscribers
 * on every instance. See docs/realtime.md.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  definePlugin,
  RECORD_CHANGED_CHANNEL,
  toObjectQLError,
  type AuthRequest,
  type Kernel,
  type RecordChange,
  type User,
} from '../../kernel';
import { upgradeAuthRequest } from '../../kernel/protocol';
import { RealtimeConnection, type ConnectionDeps } from './connection';
import { parseRealtimeOptions, type RealtimeOptions } from './options';

export type { RealtimeOptions } from './options';

/** Headers of an upgrade request that carry a credential: without one, a refusal lets the socket open unauthenticated. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'cookie'] as const;

export default definePlugin((input: RealtimeOptions = {}) => {
  const settings = parseRealtimeOptions(input);
  let kernel: Kernel;
  let wss: WebSocketServer | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let unsubscribe: (() => Promise<void>) | undefined;
  const connections = new Set<RealtimeConnection>();
  let stopping = false;

  /** The `authenticate` hook for an upgrade request: its own headers, or `credentials` sent over the socket. */
  const authenticate = (req: IncomingMessage, credentials?: Record<string, string>) =>
    authenticateRequest(upgradeAuthRequest(req, log(), credentials));
  const authenticateRequest = async (request: AuthRequest): Promise<User | undefined> =>
    (await kernel.hooks.authenticate.promise(request)) ?? undefined;
  const log = () => kernel.logger.child({ realtime: true });

  /** Who the upgrade request is: its credentials, or none. Refused credentials refuse the upgrade. */
  async function identify(
    req: IncomingMessage,
  ): Promise<{ allowed: boolean; user?: User } | { status: number; headers: Headers; body: string }> {
    const request = upgradeAuthRequest(req, log());
    try {
      return { allowed: true, user: await authenticateRequest(request) };
    } catch (err) {
      const e = toObjectQLError(err);
      // No credentials where they are required: connect, but only `auth` and `ping` work until authenticated.
      if (e.code === 'UNAUTHORIZED' && !CREDENTIAL_HEADERS.some((name) => req.headers[name] !== undefined)) return { allowed: false };
      return { status: e.status, headers: request.responseHeaders, body: JSON.stringify(e.toBody()) };
    }
  }

  function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    identify(req)
      .then((who) => {
        if ('status' in who) {
          if (who.status === 401 && !who.headers.has('WWW-Authenticate')) who.headers.set('WWW-Authenticate', 'Bearer');
          const extra = [...who.headers].map(([name, value]) => `${name}: ${value}\r\n`).join('');
          socket.end(
            `HTTP/1.1 ${who.status} ${who.status === 401 ? 'Unauthorized' : 'Error'}\r\nContent-Type: application/json\r\n${extra}Connection: close\r\nContent-Length: ${Buffer.byteLength(who.body)}\r\n\r\n${who.body}`,
          );
          return;
        }
        if (stopping || !wss) {
          socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
          const deps: ConnectionDeps = {
            settings,
            engine: () => kernel.engine,
            authenticate: (credentials) => authenticate(req, credentials),
            logger: kernel.logger,
          };
          const connection = new RealtimeConnection(ws, who, deps);
          connections.add(connection);
          ws.on('close', () => connections.delete(connection));
          ws.on('error', (err) => kernel.logger.debug({ err }, 'realtime: socket error'));
        });
      })
      .catch((err: unknown) => {
        kernel.logger.error({ err }, 'realtime: upgrade failed');
        socket.destroy();
      });
  }

  async function closeAll(): Promise<void> {
    stopping = true;
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = undefined;
    const closed = [...connections].map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.ws.readyState === c.ws.CLOSED) return resolve();
          const timer = setTimeout(() => {
            c.ws.terminate();
            resolve();
          }, 1000);
          c.ws.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          c.close(1001, 'server stopping');
        }),
    );
    await Promise.all(closed);
    connections.clear();
    await unsubscribe?.().catch(() => undefined);
    unsubscribe = undefined;
    const server = wss;
    wss = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async function startListening(): Promise<void> {
    unsubscribe = await kernel.resolve('pubsub').subscribe(RECORD_CHANGED_CHANNEL, (message) => {
      const change = message as RecordChange;
      if (!change || typeof change.object !== 'string' || typeof change.id !== 'string') return;
      for (const c of connections) c.onChange(change);
    });
    heartbeat = setInterval(() => {
      for (const c of connections) {
        if (!c.alive) {
          c.ws.terminate();
          continue;
        }
        c.alive = false;
        c.ws.ping();
      }
    }, settings.heartbeatSeconds * 1000);
    heartbeat.unref();
  }

  return {
    name: 'realtime',
    register(k) {
      kernel = k;
      // A hard cap far above the limit: messages up to it get an error frame and the socket stays; beyond it ws closes the socket (1009).
      wss = new WebSocketServer({ noServer: true, maxPayload: settings.maxMessageBytes * 4 });
      const path = k.http.path(settings.path);
      // The kernel calls closeAll as soon as its server starts draining.
      k.http.upgrade(path, onUpgrade, closeAll);
      k.hooks.capabilities.tap('realtime', (list) => [...list, { plugin: 'realtime', protocol: 'websocket', routes: [path] }]);
      // Subscribed once every plugin has started: a pubsub that another plugin provides (pubsub-redis) is connected by then.
      k.hooks.start.tapPromise('realtime', startListening);
    },
    async stop() {
      await closeAll();
    },
  };
});
