/**
 * GraphQL subscriptions (docs/spec.md, "Record subscriptions (GraphQL)"; "Authentication").
 *
 * - Schema: `type Subscription` with `<object>Created / Updated / Deleted(where: <Type>Where)`
 *   per object (sdl.ts), contributed to the plugin's schema.
 * - Transport: graphql-ws (protocol `graphql-transport-ws`) on a `ws` server without a server of
 *   its own, at the endpoint's path on the kernel's HTTP server (`kernel.http.upgrade(api.path)`,
 *   the base path included), i.e. the HTTP address with the ws scheme; the client must send
 *   connection_init within 3 s. Queries and mutations are served on the socket too, with the
 *   same schema and checks as over HTTP (introspection setting included).
 * - Limits: the kernel's WebSocket limits (`limits.websocket`, kernel/protocol/ws-socket.ts) hold
 *   through each socket's guard: the upgrade is admitted by the kernel (Origin, rate limit,
 *   connections per address), the connection counts against its user once connection_init names
 *   it (too many: closed with 4429), each subscription against the connection and the user (too
 *   many: an error message for that subscription id), and message rate, outgoing buffer and
 *   heartbeat as for every WebSocket (socket.ts).
 * - Identity: the credentials of the connection_init payload (`authorization`, `x-api-key`, any
 *   letter case), else those of the upgrade request (Authorization, X-API-Key, Cookie), go through
 *   the kernel's `authenticate` hook as headers (credentials.ts). A credential
 *   that is refused, or none where authentication is required, closes the socket with 4403
 *   Forbidden (graphql-ws's code for a refused connection_init); it counts against the caller's
 *   rate limit like a failed login over HTTP, and once that is spent the socket is closed with
 *   4429 instead.
 * - Events: the kernel's pubsub channel RECORD_CHANGED_CHANNEL (or `settings.pubsub`), so changes
 *   made through any protocol and on any instance sharing the pubsub are heard; each subscriber
 *   gets only what the engine lets them read (feed.ts).
 * - Stop: every socket is closed (1001 Going Away) and the pubsub subscription ends.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, OperationTypeNode, type ExecutionArgs, type GraphQLFormattedError, type GraphQLResolveInfo } from 'graphql';
import { CloseCode, handleProtocols, makeServer } from 'graphql-ws';
import { WebSocketServer } from 'ws';
import {
  noChangeFeed,
  ObjectQLError,
  RECORD_CHANGED_CHANNEL,
  type Kernel,
  type ObjectDefinition,
  type PubSub,
  type UpgradeAdmission,
  type UpgradeHandler,
  type User,
} from '../../../kernel';
import { admitUpgrade, authenticateSocket, webSockets, type GuardedSocket } from '../../../kernel/protocol';
import type { GraphQLPluginApi, SubscriptionsModule } from '../api';
import type { GraphQLContext } from '../context';
import { operationOf } from '../document';
import { formatError } from '../errors';
import type { ResolverMap, SchemaContribution } from '../schema';
import { selectedFields } from '../selection';
import { connectionCredentials } from './credentials';
import { RecordFeed, type Delivered } from './feed';
import { EVENT_KINDS, subscriptionNames, subscriptionSdl } from './sdl';
import { serveSocket, type SocketExtra } from './socket';

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

/**
 * The change feed position of the event an operation's context is delivering: set when the
 * subscription field resolves an event, read when graphql-ws sends its result (graphql-js runs one
 * event at a time per subscription, each with the operation's context).
 */
const positions = new WeakMap<object, number | undefined>();

export function createSubscriptions(api: GraphQLPluginApi): Subscriptions {
  let feed: RecordFeed | undefined;
  let wss: WebSocketServer | undefined;
  let serve: ((guard: GuardedSocket, request: IncomingMessage) => void) | undefined;
  const connections = new WeakMap<GuardedSocket, Connection>();

  /** The kernel's change feed (events plugin): subscriptions then take `after` (resume). */
  const changeFeed = () => (api.kernel.has('changeFeed') ? api.kernel.resolve('changeFeed') : undefined);

  const contributor = (objects: ObjectDefinition[]): SchemaContribution => ({
    typeDefs: subscriptionSdl(objects, { resume: changeFeed() !== undefined }),
    resolvers: subscriptionResolvers(objects),
  });

  function subscriptionResolvers(objects: ObjectDefinition[]): ResolverMap {
    const fields: Record<string, unknown> = {};
    for (const def of objects) {
      const names = subscriptionNames(def.name);
      for (const kind of EVENT_KINDS) {
        fields[names.fields[kind]] = {
          subscribe: (
            _parent: unknown,
            args: { where?: unknown; after?: number | null },
            context: GraphQLContext,
            info: GraphQLResolveInfo,
          ) => {
            if (!feed) throw new GraphQLError('Subscriptions are not running', { extensions: { code: 'SERVICE_UNAVAILABLE' } });
            const after = args.after ?? undefined;
            if (after !== undefined && after < 0)
              throw new ObjectQLError('INVALID_REQUEST', "'after' must be a change feed position: a whole number, at least 0", {
                parameter: 'after',
              });
            return feed.open({
              object: def.name,
              kind,
              where: args.where,
              request: context.request,
              fields: selectedFields(info, names.type),
              ...(after !== undefined ? { after, feed: changeFeed() ?? throwNoFeed(), maxReplay: api.settings.maxReplay } : {}),
            });
          },
          // The event's position goes to the result's extensions (onNext below).
          resolve: (payload: Delivered, _args: unknown, context: GraphQLContext) => {
            positions.set(context, payload.position);
            return payload.record;
          },
        };
      }
    }
    return { Subscription: fields };
  }

  const handleUpgrade: UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, admission?: UpgradeAdmission) => {
    void accept(req, socket, head, admission).catch((err: unknown) => {
      api.kernel.logger.error({ err }, 'GraphQL WebSocket upgrade failed');
      socket.destroy();
    });
  };

  /** On the kernel's server the kernel has admitted the upgrade; on the plugin's own port it is admitted here. */
  async function accept(req: IncomingMessage, socket: Duplex, head: Buffer, given?: UpgradeAdmission): Promise<void> {
    const admitted = given ?? (await admitUpgrade(api.kernel, req, socket));
    if (!admitted) return;
    const target = wss;
    const bind = serve;
    if (!target || !bind) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    target.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', (err) => api.kernel.logger.debug({ err }, 'GraphQL WebSocket error'));
      bind(webSockets(api.kernel).guard(ws, req.socket.remoteAddress), req);
    });
  }

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

      wss = new WebSocketServer({ noServer: true, maxPayload: kernel.config.limits.maxBodyBytes, handleProtocols });
      wss.on('error', (err) => kernel.logger.warn({ err }, 'GraphQL WebSocket server error'));
      const server = makeServer<Record<string, unknown> | undefined, SocketExtra>({
        onConnect: async (ctx) => {
          const { guard, request } = ctx.extra;
          const outcome = await authenticate(kernel, ctx.connectionParams, request);
          if ('refused' in outcome) {
            // A spent rate limit says so (4429); any other refusal is graphql-ws's 4403 Forbidden.
            if (outcome.refused.code === 'RATE_LIMIT_EXCEEDED')
              guard.close(CloseCode.TooManyInitialisationRequests, outcome.refused.message);
            return false;
          }
          const tooMany = guard.identify(outcome.user);
          if (tooMany) {
            guard.close(CloseCode.TooManyInitialisationRequests, tooMany.message);
            return false;
          }
          connections.set(guard, { user: outcome.user });
          return true;
        },
        // Checked as over HTTP: the same schema, the same cached documents, the same introspection rule.
        onSubscribe: (ctx, id, payload): ExecutionArgs | readonly GraphQLError[] => {
          const current = api.current();
          const checked = current.documents.check(payload.query);
          if ('errors' in checked) return checked.errors.map((e) => withCode(e, checked.code));
          const operationName = payload.operationName ?? undefined;
          const operation = operationOf(checked.document, operationName);
          if ('problem' in operation) return [new GraphQLError(operation.problem, { extensions: { code: 'INVALID_REQUEST' } })];
          const tooCostly = current.documents.costProblem(checked.document, operation, payload.variables ?? undefined);
          if (tooCostly) return [withCode(tooCostly, 'INVALID_REQUEST')];
          const { guard, running } = ctx.extra;
          if (operation.operation === OperationTypeNode.SUBSCRIPTION) {
            try {
              running.set(id, guard.addSubscription());
            } catch (err) {
              const e = err as ObjectQLError;
              return [new GraphQLError(e.message, { originalError: e })];
            }
          }
          const user = connections.get(guard)?.user;
          return {
            schema: current.schema,
            document: checked.document,
            operationName,
            variableValues: payload.variables ?? undefined,
            contextValue: api.contextFor(user, { logger: kernel.logger }),
          };
        },
        onComplete: (ctx, id) => {
          ctx.extra.running.get(id)?.();
          ctx.extra.running.delete(id);
        },
        onError: (_ctx, _id, _payload, errors) => format(errors),
        onNext: (_ctx, _id, _payload, args, result) => {
          const position = typeof args.contextValue === 'object' && args.contextValue ? positions.get(args.contextValue) : undefined;
          const withPosition = position === undefined ? result : { ...result, extensions: { ...result.extensions, position } };
          if (!result.errors?.length) return position === undefined ? undefined : withPosition;
          return { ...withPosition, errors: format(result.errors) };
        },
      });
      serve = (guard, request) => serveSocket(server, guard, request, (err) => kernel.logger.error({ err }, 'GraphQL WebSocket failed'));
      if (api.settings.port === undefined) {
        // The kernel closes these sockets (1001 Going Away) as soon as its server starts draining.
        kernel.http.upgrade(api.path, handleUpgrade, () => {
          for (const client of wss?.clients ?? []) client.close(1001, 'Going away');
        });
      }
    },

    async stop() {
      const w = wss;
      wss = undefined;
      serve = undefined;
      if (w) {
        for (const client of w.clients) client.close(1001, 'Going away');
        for (const client of w.clients) client.terminate();
        await new Promise<void>((resolve) => w.close(() => resolve()));
      }
      await feed?.stop();
      feed = undefined;
    },
  };
}

/**
 * The identity of a connection, from its connection parameters or else its upgrade request's
 * headers (credentials.ts), counted by the rate limiter like a login over HTTP; or the refusal.
 */
async function authenticate(
  kernel: Kernel,
  params: Readonly<Record<string, unknown>> | undefined,
  request: IncomingMessage,
): Promise<{ user: User | undefined } | { refused: ObjectQLError }> {
  const found = connectionCredentials(params, request);
  if ('problem' in found) return { refused: new ObjectQLError('UNAUTHORIZED', found.problem) };
  const outcome = await authenticateSocket(kernel, request, found.credentials);
  if ('refused' in outcome) kernel.logger.debug({ err: outcome.refused }, 'GraphQL WebSocket connection refused');
  return outcome;
}

function throwNoFeed(): never {
  throw noChangeFeed('after');
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
