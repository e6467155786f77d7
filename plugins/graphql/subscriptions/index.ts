/**
 * GraphQL subscriptions (docs/spec.md, "Record subscriptions (GraphQL)"; "Authentication").
 *
 * - Schema: `type Subscription` with `<object>Created / Updated / Deleted(where: <Type>Where)`
 *   per object (sdl.ts), contributed to the plugin's schema.
 * - Transport: graphql-ws (protocol `graphql-transport-ws`) on a `ws` server without a server of
 *   its own, at the endpoint's path on the kernel's HTTP server (`kernel.http.upgrade(api.path)`,
 *   the base path included), i.e. the HTTP address with the ws scheme. Keep-alive: ws pings every 12 s (graphql-ws's
 *   default); the client must send connection_init within 3 s. Queries and mutations are served
 *   on the socket too, with the same schema and checks as over HTTP (introspection setting included).
 * - Identity: the `authorization` connection parameter ("Bearer <token>") goes through the
 *   kernel's `authenticate` hook as an Authorization header; nothing else of the upgrade request
 *   is used (no cookies: a page of another site could open the socket with them). A credential
 *   that is refused, or none where authentication is required, closes the socket with 4403
 *   Forbidden (graphql-ws's code for a refused connection_init).
 * - Events: the kernel's pubsub channel RECORD_CHANGED_CHANNEL (or `settings.pubsub`), so changes
 *   made through any protocol and on any instance sharing the pubsub are heard; each subscriber
 *   gets only what the engine lets them read (feed.ts).
 * - Stop: every socket is closed (1001 Going Away) and the pubsub subscription ends.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type ExecutionArgs, type GraphQLFormattedError, type GraphQLResolveInfo } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { RECORD_CHANGED_CHANNEL, type Kernel, type ObjectDefinition, type PubSub, type UpgradeHandler, type User } from '../../../kernel';
import { upgradeAuthRequest } from '../../../kernel/protocol';
import type { GraphQLPluginApi, SubscriptionsModule } from '../api';
import type { GraphQLContext } from '../context';
import { operationOf } from '../document';
import { formatError } from '../errors';
import type { ResolverMap, SchemaContribution } from '../schema';
import { selectedFields } from '../selection';
import { RecordFeed } from './feed';
import { EVENT_KINDS, subscriptionNames, subscriptionSdl } from './sdl';

export { subscriptionNames, subscriptionSdl, type EventKind } from './sdl';

/** The WebSocket subprotocol spoken (graphql-ws). */
export const GRAPHQL_WS_PROTOCOL = 'graphql-transport-ws';

export interface Subscriptions extends SubscriptionsModule {
  /**
   * Takes over a WebSocket upgrade request for the endpoint. start() registers it on the kernel's
   * server at `api.path`, unless the plugin has a port of its own (`settings.port`): then the
   * plugin's server must route upgrades of its endpoint path here.
   */
  handleUpgrade: UpgradeHandler;
  /** Open subscriptions (for tests and diagnostics). */
  readonly openSubscriptions: number;
}

interface Connection {
  user?: User;
}

export function createSubscriptions(api: GraphQLPluginApi): Subscriptions {
  let feed: RecordFeed | undefined;
  let wss: WebSocketServer | undefined;
  let server: { dispose(): void | Promise<void> } | undefined;
  const connections = new WeakMap<WebSocket, Connection>();

  const contributor = (objects: ObjectDefinition[]): SchemaContribution => ({
    typeDefs: subscriptionSdl(objects),
    resolvers: subscriptionResolvers(objects),
  });

  function subscriptionResolvers(objects: ObjectDefinition[]): ResolverMap {
    const fields: Record<string, unknown> = {};
    for (const def of objects) {
      const names = subscriptionNames(def.name);
      for (const kind of EVENT_KINDS) {
        fields[names.fields[kind]] = {
          subscribe: (_parent: unknown, args: { where?: unknown }, context: GraphQLContext, info: GraphQLResolveInfo) => {
            if (!feed) throw new GraphQLError('Subscriptions are not running', { extensions: { code: 'SERVICE_UNAVAILABLE' } });
            return feed.open({
              object: def.name,
              kind,
              where: args.where,
              request: context.request,
              fields: selectedFields(info, names.type),
            });
          },
          resolve: (payload: unknown) => payload,
        };
      }
    }
    return { Subscription: fields };
  }

  const handleUpgrade: UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const target = wss;
    if (!target) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    target.handleUpgrade(req, socket, head, (ws) => target.emit('connection', ws, req));
  };

  return {
    contributor,
    handleUpgrade,
    get openSubscriptions() {
      return feed?.size ?? 0;
    },

    async start() {
      const kernel = api.kernel;
      const own = kernel.resolve('pubsub');
      const pubsub: PubSub = api.settings.pubsub ?? own;
      if (pubsub !== own) {
        // A pubsub of the caller's own: the kernel publishes on its own one; carry changes there too.
        kernel.hooks.recordChanged.tapPromise('graphql:subscriptions', (change) => pubsub.publish(RECORD_CHANGED_CHANNEL, change));
      }
      feed = new RecordFeed(kernel);
      await feed.start(pubsub);
      const log = (err: unknown, message: string) => kernel.logger.error({ err }, message);
      const format = (errors: readonly GraphQLError[], code?: string): GraphQLFormattedError[] =>
        errors.map((e) => formatError(e, log, code));

      wss = new WebSocketServer({ noServer: true, maxPayload: kernel.config.limits.maxBodyBytes });
      wss.on('error', (err) => kernel.logger.warn({ err }, 'GraphQL WebSocket server error'));
      wss.on('connection', (socket) => socket.on('error', (err) => kernel.logger.debug({ err }, 'GraphQL WebSocket error')));
      server = useServer(
        {
          onConnect: async (ctx) => {
            const connection = await authenticate(kernel, ctx.connectionParams, ctx.extra.request);
            if (!connection) return false;
            connections.set(ctx.extra.socket, connection);
            return true;
          },
          // Checked as over HTTP: the same schema, the same cached documents, the same introspection rule.
          onSubscribe: (ctx, _id, payload): ExecutionArgs | readonly GraphQLError[] => {
            const current = api.current();
            const checked = current.documents.check(payload.query);
            if ('errors' in checked) return checked.errors.map((e) => withCode(e, checked.code));
            const operationName = payload.operationName ?? undefined;
            const operation = operationOf(checked.document, operationName);
            if ('problem' in operation) return [new GraphQLError(operation.problem, { extensions: { code: 'INVALID_REQUEST' } })];
            const user = connections.get(ctx.extra.socket)?.user;
            return {
              schema: current.schema,
              document: checked.document,
              operationName,
              variableValues: payload.variables ?? undefined,
              contextValue: api.contextFor(user, { logger: kernel.logger }),
            };
          },
          onError: (_ctx, _id, _payload, errors) => format(errors),
          onNext: (_ctx, _id, _payload, _args, result) => {
            if (!result.errors?.length) return undefined;
            return { ...result, errors: format(result.errors) };
          },
        },
        wss,
      );
      if (api.settings.port === undefined) {
        // The kernel closes these sockets (1001 Going Away) as soon as its server starts draining.
        kernel.http.upgrade(api.path, handleUpgrade, () => {
          for (const client of wss?.clients ?? []) client.close(1001, 'Going away');
        });
      }
    },

    async stop() {
      const s = server;
      const w = wss;
      server = undefined;
      wss = undefined;
      if (w) for (const client of w.clients) client.close(1001, 'Going away');
      await s?.dispose();
      if (w) {
        for (const client of w.clients) client.terminate();
        await new Promise<void>((resolve) => w.close(() => resolve()));
      }
      await feed?.stop();
      feed = undefined;
    },
  };
}

/**
 * The identity of a connection, from its `authorization` connection parameter only (not the
 * upgrade request's headers); false when it is refused.
 */
async function authenticate(
  kernel: Kernel,
  params: Readonly<Record<string, unknown>> | undefined,
  request: IncomingMessage,
): Promise<Connection | false> {
  const authorization = params?.authorization ?? params?.Authorization;
  if (authorization !== undefined && authorization !== null && typeof authorization !== 'string') return false;
  // Only the connection parameter is a credential here, not the upgrade request's headers.
  const credentials: Record<string, string> = typeof authorization === 'string' ? { authorization } : {};
  try {
    const user = (await kernel.hooks.authenticate.promise(upgradeAuthRequest(request, kernel.logger, credentials))) ?? undefined;
    return { user };
  } catch (err) {
    kernel.logger.debug({ err }, 'GraphQL WebSocket connection refused');
    return false;
  }
}

/** A document error carrying its code (formatError gives it to the client). */
function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code },
  });
}
