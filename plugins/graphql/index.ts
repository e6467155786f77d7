/**
 * The GraphQL plugin (spec: GraphQL API).
 *
 * CONTRACT with plugins/graphql/subscriptions/ (written by another hand; this file only calls it):
 *
 *  - schema.ts exports
 *      interface SchemaContribution { typeDefs: string; resolvers: ResolverMap }
 *      type ResolverMap = Record<string, Record<string, unknown>>   // graphql-tools resolver map
 *      type SchemaContributor = (objects: ObjectDefinition[]) => SchemaContribution
 *      function buildSchema(objects, { federation?, serviceName?, contributors?: SchemaContributor[], engine })
 *    A contribution's typeDefs may declare `type Subscription { ... }` (and extra types/inputs);
 *    record types are the generated ones, named by `typeName(object)` from naming.ts
 *    (`project` → `Project`; list query `projectList`; input `ProjectInput`).
 *  - context.ts exports
 *      interface GraphQLContext { request: RequestContext }   // what every resolver receives
 *      function contextFor(user?: User, extra?: Partial<RequestContext>): GraphQLContext
 *  - index.ts, when `enableSubscriptions` is true, does
 *      import { createSubscriptions } from './subscriptions';
 *      const subs = createSubscriptions(api);   // api: GraphQLPluginApi (below, from ./api)
 *    and expects back { contributor: SchemaContributor; start?(): Promise<void>; stop?(): Promise<void> }.
 *    GraphQLPluginApi = { kernel: Kernel; settings: GraphQLSettings; path: string;
 *      getSchema(): GraphQLSchema /* current schema, rebuilt when metadata changes *\/;
 *      contextFor(user?: User, extra?: Partial<RequestContext>): GraphQLContext }
 *    The subscriptions module registers its WebSocket itself (kernel.http.upgrade(path, ...)) in
 *    its start(), and reads `settings.pubsub` when given.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request, Response } from 'express';
import { definePlugin, isErrorCode, ObjectQLError, type ErrorBody, type Kernel, type ObjectDefinition } from '../../kernel';
import { listenOnOwnPort, type OwnPortServer } from '../../kernel/protocol';
import type { GraphQLPluginApi, SubscriptionsModule } from './api';
import { SchemaCache } from './cache';
import { contextFor } from './context';
import { executeHttp, type GraphQLHttpResponse } from './execute';
import { mountGraphiQL } from './graphiql';
import { parseOptions, type GraphQLOptions } from './options';
import { buildSchema, type SchemaContributor } from './schema';
import { createSubscriptions } from './subscriptions';
import type { Duplex } from 'node:stream';

export type { GraphQLPluginApi, SubscriptionsModule } from './api';
export { contextFor, type GraphQLContext } from './context';
export { DOCUMENT_CODES } from './errors';
export type { GraphQLOptions, GraphQLSettings } from './options';
export { typeName, objectNames, type ObjectNames } from './naming';
export {
  buildSchema,
  type BuildOptions,
  type BuiltSchema,
  type ResolverMap,
  type SchemaContribution,
  type SchemaContributor,
} from './schema';

/** With `port`: the endpoint's path on that port (spec: GraphQL API). */
export const STANDALONE_PATH = '/graphql';

export default definePlugin((options: GraphQLOptions = {}) => {
  const settings = parseOptions(options);
  const path = settings.path;
  let kernel: Kernel;
  let cache: SchemaCache;
  let server: Server | undefined;
  let own: OwnPortServer | undefined;
  const contributors: SchemaContributor[] = [];
  const modules: SubscriptionsModule[] = [];
  /** With `port`: the requests that came in on it (the kernel's own server does not serve GraphQL then). */
  const ownPort = new WeakSet<IncomingMessage>();
  const served = (req: IncomingMessage) => settings.port === undefined || ownPort.has(req);

  const api: GraphQLPluginApi = {
    get kernel() {
      return kernel;
    },
    settings,
    path,
    getSchema: () => cache.schema,
    contextFor,
  };
  const subscriptions = settings.enableSubscriptions ? createSubscriptions(api) : undefined;
  if (subscriptions) {
    modules.push(subscriptions);
    contributors.push(subscriptions.contributor);
  }

  async function serve(req: Request, res: Response): Promise<void> {
    let response: GraphQLHttpResponse;
    if (req.method !== 'GET' && req.method !== 'POST') {
      response = {
        status: 405,
        headers: { Allow: 'GET, POST' },
        body: {
          errors: [{ message: `${req.method} is not served here; use POST (or GET for queries)`, extensions: { code: 'INVALID_REQUEST' } }],
        },
      };
    } else if (req.method === 'POST' && req.is(['application/json', 'application/*+json']) === false) {
      response = {
        status: 415,
        body: {
          errors: [
            {
              message: `Content-Type must be application/json, got '${req.get('content-type') ?? 'none'}'`,
              extensions: { code: 'INVALID_REQUEST' },
            },
          ],
        },
      };
    } else {
      const current = cache.get();
      const ctx = kernel.http.context(req);
      response = await executeHttp(
        {
          schema: current.schema,
          documents: current.documents,
          introspection: settings.introspection,
          log: (err, message) => (req.log ?? kernel.logger).error({ err }, message),
        },
        { method: req.method, params: req.method === 'GET' ? req.query : req.body },
        contextFor(ctx.user, ctx),
      );
    }
    if (response.headers) res.set(response.headers);
    res.status(response.status).json(response.body);
  }

  return {
    name: 'graphql',
    register(k) {
      kernel = k;
      cache = new SchemaCache(
        () => k.registry.objects(),
        (objects: ObjectDefinition[]) => buildSchema(objects, { engine: k.engine, federation: settings.enableFederation, contributors }),
      );
      k.hooks.capabilities.tap('graphql', (list) => [
        ...list,
        {
          plugin: 'graphql',
          protocol: 'graphql',
          routes: settings.port === undefined ? [`GET ${path}`, `POST ${path}`] : [`GET ${STANDALONE_PATH}`, `POST ${STANDALONE_PATH}`],
          ...(server ? { port: (server.address() as AddressInfo).port } : {}),
          introspection: settings.introspection,
          subscriptions: settings.enableSubscriptions && modules.length > 0,
          federation: settings.enableFederation,
        },
      ]);
      // Failures answered before the route runs (credentials refused, rate limit, a body that is
      // not JSON) are rendered by the kernel: on the endpoint they are turned into GraphQL's
      // {errors: [{message, extensions: {code}}]} here, on this one response.
      k.hooks.request.tapPromise({ name: 'graphql', stage: -100 }, async (req, res) => {
        if (req.path !== path || !served(req)) return;
        const json = res.json.bind(res);
        res.json = ((body: unknown) => json(res.statusCode >= 400 ? asGraphQLErrorBody(body) : body)) as Response['json'];
      });
      // The IDE page needs no identity: on the public router, before the endpoint (it passes on
      // whatever is not a browser's GET).
      k.hooks.publicRoutes.tapPromise('graphql', async (router) => {
        if (settings.port === undefined) mountGraphiQL(router, path);
      });
      k.hooks.routes.tapPromise('graphql', async (router) => {
        // path is plain path segments (options.ts): safe in an express path.
        router.all(path, (req, res, next) => {
          if (!served(req)) return next();
          serve(req, res).catch(next);
        });
      });
      if (settings.port !== undefined) k.hooks.ready.tapPromise('graphql', () => listen());
    },
    async start() {
      // Build now, so a name clash stops start-up rather than the first request.
      cache.get();
      for (const m of modules) await m.start?.();
    },
    async stop() {
      for (const m of [...modules].reverse()) await m.stop?.();
      const o = own;
      own = undefined;
      server = undefined;
      await o?.close();
    },
  };

  /**
   * The port of its own, bound once the kernel is ready: `/graphql` there goes through the
   * kernel's whole pipeline (security headers, identity, rate limits) as `path`; only it and
   * /health are let in.
   */
  async function listen(): Promise<void> {
    const app = kernel.http.app;
    own = await listenOnOwnPort(settings.port ?? 0, kernel.config.host, (req, res) => {
      const url = req.url ?? '/';
      const mark = url.indexOf('?');
      const reqPath = mark < 0 ? url : url.slice(0, mark);
      if (reqPath === STANDALONE_PATH) {
        req.url = path + (mark < 0 ? '' : url.slice(mark));
        ownPort.add(req);
      } else if (reqPath !== '/health') {
        const body = {
          errors: [
            {
              message: `No route for ${req.method} ${reqPath}: this port serves GraphQL at ${STANDALONE_PATH}`,
              extensions: { code: 'NOT_FOUND' },
            },
          ],
        };
        res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
        return;
      }
      void app(req, res);
    });
    // Subscriptions on this port: graphql-ws at the same address with the ws scheme.
    own.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      if (subscriptions && (req.url ?? '/').split('?')[0] === STANDALONE_PATH) return subscriptions.handleUpgrade(req, socket, head);
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
    server = own.server;
  }
});

/** The kernel's {error: {code, message, details?}} as GraphQL's {errors: [{message, extensions: {code, details?}}]}. */
function asGraphQLErrorBody(body: unknown): unknown {
  const error = (body as Partial<ErrorBody> | undefined)?.error;
  if (!error || !isErrorCode(error.code)) return body;
  const e = new ObjectQLError(error.code, error.message, error.details);
  return {
    errors: [{ message: e.message, extensions: e.details === undefined ? { code: e.code } : { code: e.code, details: e.details } }],
  };
}
