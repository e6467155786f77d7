/**
 * The GraphQL plugin (docs/spec.md, "GraphQL API"): one schema built from the metadata (schema.ts, cached
 * per registry revision in cache.ts), served over HTTP at `path` under the instance's base path
 * (execute.ts), with GraphiQL for browsers (graphiql.ts), subscriptions over graphql-ws at the
 * same address (subscriptions/, handed a GraphQLPluginApi from api.ts), or all of it on a port of
 * its own (own-port.ts). Errors answered on the endpoint are GraphQL responses, whoever raises
 * them (kernel.http.errorFormat).
 */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request, Response } from 'express';
import { definePlugin, toObjectQLError, type Kernel, type ObjectDefinition } from '../../kernel';
import type { GraphQLPluginApi, SubscriptionsModule } from './api';
import { batchProblem, executeBatch, type BatchResponse } from './batch';
import { SchemaCache } from './cache';
import { contextFor } from './context';
import { kernelErrorBody } from './errors';
import { executeHttp, refusal, type GraphQLHttpResponse } from './execute';
import { mountGraphiQL } from './graphiql';
import { parseOptions, type GraphQLOptions } from './options';
import { queryLimits } from './limits';
import { listenOnGraphQLPort, STANDALONE_PATH, type OwnPort } from './own-port';
import { persistedQueries } from './persisted-queries';
import { buildSchema, loadSubgraphBuilder, type SchemaContributor, type SubgraphBuilder } from './schema';
import { createSubscriptions } from './subscriptions';

export type { GraphQLPluginApi, SubscriptionsModule } from './api';
export { contextFor, type GraphQLContext } from './context';
export { DOCUMENT_CODES } from './errors';
export type { GraphQLOptions, GraphQLSettings } from './options';
export { typeName, objectNames, type ObjectNames } from './naming';
export { STANDALONE_PATH } from './own-port';
export {
  buildSchema,
  type BuildOptions,
  type BuiltSchema,
  type ResolverMap,
  type SchemaContribution,
  type SchemaContributor,
} from './schema';

/** What the plugin tells an operator (and a test) about its subscriptions, as the kernel service `graphqlSubscriptions`. */
export interface SubscriptionsStatus {
  /** Subscriptions running now, on every socket of this kernel. */
  readonly open: number;
}

declare module '../../kernel' {
  interface KernelServices {
    /** Registered by the graphql plugin when `enableSubscriptions` is on. */
    graphqlSubscriptions: SubscriptionsStatus;
  }
}

export default definePlugin((options: GraphQLOptions = {}) => {
  const settings = parseOptions(options);
  let kernel: Kernel;
  let cache: SchemaCache;
  /** @apollo/subgraph's builder, loaded at start when federation is on. */
  let subgraph: SubgraphBuilder | undefined;
  /** The endpoint on the kernel's server: `path` under the instance's base path (set in register). */
  let endpoint = settings.path;
  let own: OwnPort | undefined;
  const contributors: SchemaContributor[] = [];
  /** Apollo's persisted queries: this instance's store (one per kernel). */
  const persisted = persistedQueries(settings.persistedQueries);
  const modules: SubscriptionsModule[] = [];
  /** With `port`, only requests that came in on it are served (the kernel's own server does not serve GraphQL then). */
  const served = (req: IncomingMessage) => settings.port === undefined || own?.received(req) === true;

  const api: GraphQLPluginApi = {
    get kernel() {
      return kernel;
    },
    settings,
    get path() {
      return endpoint;
    },
    current: () => cache.get(),
    contextFor,
  };
  const subscriptions = settings.enableSubscriptions ? createSubscriptions(api) : undefined;
  if (subscriptions) {
    modules.push(subscriptions);
    contributors.push(subscriptions.contributor);
  }

  async function serve(req: Request, res: Response): Promise<void> {
    const refused = refusal(req.method, req.headers);
    const response: GraphQLHttpResponse | BatchResponse =
      refused ??
      (req.method === 'POST' && Array.isArray(req.body)
        ? await runBatch(req, res, req.body as unknown[])
        : await run(req, req.method === 'GET' ? req.query : req.body));
    if ('headers' in response && response.headers) res.set(response.headers);
    res.status(response.status).json(response.body);
  }

  function run(req: Request, params: unknown): Promise<GraphQLHttpResponse> {
    const current = cache.get();
    const ctx = kernel.http.context(req);
    return executeHttp(
      {
        schema: current.schema,
        documents: current.documents,
        log: (err, message) => (req.log ?? kernel.logger).error({ err }, message),
        persisted,
      },
      { method: req.method === 'GET' ? 'GET' : 'POST', params },
      contextFor(ctx.user, ctx),
    );
  }

  /** A batch: every operation after the first passes the kernel's `request` hook again (the rate limiter counts each). */
  async function runBatch(req: Request, res: Response, items: unknown[]): Promise<GraphQLHttpResponse | BatchResponse> {
    const problem = batchProblem(items, settings.batching);
    if (problem) return problem;
    return executeBatch(
      items,
      (item) => run(req, item),
      async () => {
        try {
          await kernel.hooks.request.promise(req, res);
          return undefined;
        } catch (err) {
          const error = toObjectQLError(err);
          if (error.code === 'INTERNAL_ERROR') (req.log ?? kernel.logger).error({ err }, 'GraphQL batch: the request hook failed');
          return { status: error.status, body: kernelErrorBody(error) };
        }
      },
    );
  }

  return {
    name: 'graphql',
    register(k) {
      kernel = k;
      endpoint = k.http.path(settings.path);
      if (subscriptions) {
        const running = subscriptions;
        k.provide('graphqlSubscriptions', {
          get open() {
            return running.openSubscriptions;
          },
        });
      }
      cache = new SchemaCache(
        () => k.registry,
        (objects: ObjectDefinition[]) => buildSchema(objects, { engine: k.engine, federation: subgraph, contributors }),
        settings.introspection,
        queryLimits(settings, k.config.limits),
        settings.jit,
      );
      k.hooks.capabilities.tap('graphql', (list) => {
        const at = settings.port === undefined ? endpoint : STANDALONE_PATH;
        return [
          ...list,
          {
            plugin: 'graphql',
            protocol: 'graphql',
            routes: [`GET ${at}`, `POST ${at}`],
            ...(own ? { port: (own.server.server.address() as AddressInfo).port } : {}),
            introspection: settings.introspection,
            subscriptions: settings.enableSubscriptions && modules.length > 0,
            federation: settings.enableFederation,
          },
        ];
      });
      // Every error answered on the endpoint — credentials refused, rate limit, a body that is not
      // JSON, a route that fails — as GraphQL's {errors: [...]}, with the error's status. With a
      // port of its own, the kernel's server does not serve the endpoint: its answers there keep
      // the kernel's format.
      k.http.errorFormat(endpoint, (error, req) => ({ body: served(req) ? kernelErrorBody(error) : error.toBody() }));
      // The IDE page needs no identity: on the public router, before the endpoint (it passes on
      // whatever is not a browser's GET).
      k.hooks.publicRoutes.tap('graphql', (router) => {
        if (settings.port === undefined) mountGraphiQL(router, endpoint, { subscriptions: settings.enableSubscriptions });
      });
      k.hooks.routes.tap('graphql', (router) => {
        // endpoint is plain path segments (routePrefix): safe in an express path.
        router.all(endpoint, (req, res, next) => {
          if (!served(req)) return next();
          serve(req, res).catch((err: unknown) => k.http.sendError(req, res, err));
        });
      });
      if (settings.port !== undefined && k.serves) {
        const port = settings.port;
        k.hooks.ready.tapPromise('graphql', async () => {
          own = await listenOnGraphQLPort({ kernel: k, port, endpoint, upgrade: subscriptions?.handleUpgrade });
        });
      }
    },
    async start() {
      if (settings.enableFederation) subgraph = await loadSubgraphBuilder();
      // Build now, so a name clash stops start-up rather than the first request.
      cache.get();
      for (const m of modules) await m.start?.();
    },
    async stop() {
      for (const m of [...modules].reverse()) await m.stop?.();
      const o = own;
      own = undefined;
      await o?.server.close();
    },
  };
});
