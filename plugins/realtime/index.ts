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
  type Kernel,
  type RecordChange,
  type UpgradeAdmission,
  type User,
} from '../../kernel';
import { admitUpgrade, authenticateSocket, refuseUpgrade, webSockets } from '../../kernel/protocol';
import { RealtimeConnection, type ConnectionDeps } from './connection';
import { parseRealtimeOptions, type RealtimeOptions } from './options';

export type { RealtimeOptions } from './options';

/** Headers of an upgrade request that carry a credential: without one, a refusal lets the socket open unauthenticated. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'cookie'] as const;

export default definePlugin((input: RealtimeOptions = {}) => {
  const settings = parseRealtimeOptions(input);
  let kernel: Kernel;
  let wss: WebSocketServer | undefined;
  let unsubscribe: (() => Promise<void>) | undefined;
  const connections = new Set<RealtimeConnection>();
  let stopping = false;

  /** Who the upgrade request is (judged once, by the kernel's admission): its credentials, or none. */
  async function identify(
    req: IncomingMessage,
    admission: UpgradeAdmission,
  ): Promise<{ allowed: boolean; user?: User } | { refused: unknown }> {
    try {
      return { allowed: true, user: await admission.user() };
    } catch (err) {
      const e = toObjectQLError(err);
      // No credentials where they are required: connect, but only `auth` and `ping` work until authenticated.
      if (e.code === 'UNAUTHORIZED' && !CREDENTIAL_HEADERS.some((name) => req.headers[name] !== undefined)) return { allowed: false };
      return { refused: e };
    }
  }

  async function accept(req: IncomingMessage, socket: Duplex, head: Buffer, given?: UpgradeAdmission): Promise<void> {
    const admission = given ?? (await admitUpgrade(kernel, req, socket));
    if (!admission) return;
    const who = await identify(req, admission);
    if ('refused' in who) return refuseUpgrade(req, socket, toObjectQLError(who.refused), admission.request.responseHeaders);
    if (stopping || !wss) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      ws.on('error', (err) => kernel.logger.debug({ err }, 'realtime: socket error'));
      const registry = webSockets(kernel);
      const guard = registry.guard(ws, req.socket.remoteAddress, {
        heartbeatSeconds: settings.heartbeatSeconds,
        ...(settings.maxSubscriptions !== undefined
          ? { maxSubscriptions: { max: settings.maxSubscriptions, limit: 'plugins.realtime.maxSubscriptions' } }
          : {}),
      });
      const deps: ConnectionDeps = {
        settings,
        engine: () => kernel.engine,
        authenticate: (credentials) => authenticateSocket(kernel, req, credentials),
        authTimeoutSeconds: registry.limits.authTimeoutSeconds,
        changeFeed: () => (kernel.has('changeFeed') ? kernel.resolve('changeFeed') : undefined),
        logger: kernel.logger,
      };
      const tooMany = who.allowed ? guard.identify(who.user) : undefined;
      if (tooMany) {
        guard.send(JSON.stringify({ type: 'error', code: tooMany.code, message: tooMany.message, details: tooMany.details }));
        guard.close(1008, tooMany.message);
        return;
      }
      const connection = new RealtimeConnection(guard, who, deps);
      connections.add(connection);
      ws.once('close', () => connections.delete(connection));
    });
  }

  function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, admission?: UpgradeAdmission): void {
    accept(req, socket, head, admission).catch((err: unknown) => {
      kernel.logger.error({ err }, 'realtime: upgrade failed');
      socket.destroy();
    });
  }

  async function closeAll(): Promise<void> {
    stopping = true;
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
