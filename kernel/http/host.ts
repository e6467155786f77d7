import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { lazyChild } from '../logger';
import type { Kernel } from '../kernel';
import type { KernelHooks } from '../hooks';
import { traceRequests } from '../tracing';
import type { RouteKey } from '../config/schema';
import type { RequestContext, User } from '../context';
import { ObjectQLError, toObjectQLError } from '../errors';
import { applyResponseHeaders, httpAuthRequest } from './auth-request';
import { mountReadiness } from './readiness';
import { mountLanding } from './landing';
import { createLimitedServer, serverUrl, type LimitedServer } from './server-lifecycle';
import { bodyError, jsonBodyParser } from './json-body';
import { capResponses } from './response-cap';
import { securityMiddleware, withoutCredentials } from './security';
import { admitUpgrade, type UpgradeAdmission } from './upgrade-admission';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Who asks, set by the kernel before any plugin route runs. */
      objectql: RequestContext;
      /** This request's id (X-Request-Id). */
      id: string;
      /** A logger carrying the request id. */
      log: Logger;
    }
  }
}

/** A protocol's error response (kernel.http.errorFormat): status and headers default to the error's own. */
export interface RenderedError {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** Renders an error in a protocol's own format (OData's, GraphQL's) for the paths it serves. */
export type ErrorRenderer = (error: ObjectQLError, req: Request) => RenderedError;

/**
 * Takes over a WebSocket upgrade request (e.g. `wss.handleUpgrade`). `admission` is the request as
 * the kernel admitted it (its user, judged once); absent when a plugin's own server calls the handler.
 */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, admission?: UpgradeAdmission) => void;

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The kernel's HTTP server: health, discovery, identity, body parsing and the error format. */
export class HttpHost {
  private server?: Server;
  private limited?: LimitedServer;
  private draining = false;
  readonly app: Express = express();
  private readonly upgrades = new Map<string, UpgradeHandler>();
  /** Close the sockets of each upgrade owner when the server drains (Node's close() waits for them). */
  private readonly upgradeClosers: Array<() => void | Promise<void>> = [];
  private readonly upgradedSockets = new Set<Duplex>();
  /** Error formats by path prefix (lower case), longest first. */
  private errorFormats: Array<{ prefix: string; render: ErrorRenderer }> = [];

  /** The prefixes of the spec's four doors (docs/spec.md, "Route prefixes") as served (see route()). */
  private readonly served: Record<RouteKey, string>;

  constructor(private readonly kernel: Kernel) {
    const { routes } = kernel.config;
    this.served = {
      rpc: this.path(routes.rpc),
      data: this.path(routes.data),
      metadata: this.path(routes.metadata),
      files: this.path(routes.files),
    };
  }

  /** The instance's base path (config `basePath`), '' when it has none. */
  get basePath(): string {
    return this.kernel.config.basePath ?? '';
  }

  /** Where a door at `path` is served: under the instance's base path. Every plugin mounts its routes through this. */
  path(path: string): string {
    return this.basePath + path;
  }

  /**
   * The prefix of one of the spec's four doors (rpc, data, metadata, files) as served: `option` —
   * the serving plugin's own `path` — or else `routes.<key>`, under the base path. Call it from the
   * plugin's `register`; the discovery route and other plugins (`routes`) see what it returned.
   */
  route(key: RouteKey, option?: string): string {
    if (option !== undefined) this.served[key] = this.path(option);
    return this.served[key];
  }

  /** The prefixes of the spec's four doors as served; read once every plugin has registered. */
  get routes(): Readonly<Record<RouteKey, string>> {
    return { ...this.served };
  }

  /**
   * Routes WebSocket upgrade requests whose path is exactly `path` to `handler` (several plugins
   * can serve WebSockets on the one server). Register before the kernel listens; an upgrade to
   * any other path is refused with 404. `closeAll` is called when the server starts draining:
   * it should close the owner's sockets gracefully (e.g. 1001 Going Away); sockets still open when
   * it has finished are destroyed, so that stopping never waits on a WebSocket.
   */
  upgrade(path: string, handler: UpgradeHandler, closeAll?: () => void | Promise<void>): void {
    if (this.upgrades.has(path)) throw new Error(`A WebSocket handler is already registered for ${path}`);
    this.upgrades.set(path, handler);
    if (closeAll) this.upgradeClosers.push(closeAll);
  }

  /**
   * Errors answered for paths under `prefix` (the prefix itself, or below it; matched without
   * regard to case, as Express routes are) are rendered by `render` instead of the spec's
   * `{error: {code, message, details?}}` — whoever raised them: a route, the body parser,
   * authentication or a `request` tap such as the rate limiter. The longest matching prefix wins.
   * Register in `register` or `start`.
   */
  errorFormat(prefix: string, render: ErrorRenderer): void {
    const key = prefix.replace(/\/+$/, '').toLowerCase();
    if (this.errorFormats.some((f) => f.prefix === key)) throw new Error(`An error format is already registered for ${prefix}`);
    this.errorFormats = [...this.errorFormats, { prefix: key, render }].sort((a, b) => b.prefix.length - a.prefix.length);
  }

  /**
   * Answers a request with an error: anything thrown becomes the spec's error (unknown errors are
   * logged and become INTERNAL_ERROR), rendered in the format of the path's protocol, without the
   * request's own credentials in it; a 401 names the Bearer scheme unless a tap set another.
   */
  sendError(req: Request, res: Response, err: unknown): void {
    const error = toHttpError(err, req);
    if (error.status >= 500) (req.log ?? this.kernel.logger).error({ err }, error.message);
    if (res.headersSent) {
      res.end();
      return;
    }
    const rendered = this.formatFor(req)?.(error, req) ?? { body: error.toBody() };
    // RFC 9110: a 401 names the scheme to authenticate with (an auth plugin may have set a more precise one).
    if (error.status === 401 && !res.hasHeader('WWW-Authenticate')) res.setHeader('WWW-Authenticate', 'Bearer');
    if (error.status === 503 && !res.hasHeader('Retry-After'))
      res.setHeader('Retry-After', String(this.kernel.config.health.retryAfterSeconds));
    if (rendered.headers) res.set(rendered.headers);
    res.status(rendered.status ?? error.status).json(withoutCredentials(rendered.body, req));
  }

  private formatFor(req: Request): ErrorRenderer | undefined {
    if (!this.errorFormats.length) return undefined;
    const path = (req.originalUrl ?? req.url).split('?')[0].toLowerCase();
    return this.errorFormats.find((f) => path === f.prefix || path.startsWith(`${f.prefix}/`) || f.prefix === '')?.render;
  }

  get url(): string {
    if (!this.server) throw new Error('HTTP server is not listening');
    return serverUrl(this.server);
  }

  /** The request context of an incoming request (identity, request id, logger). */
  context(req: Request): RequestContext {
    return req.objectql;
  }

  async listen(): Promise<void> {
    const { config, hooks, logger } = this.kernel;
    const app = this.app;
    app.disable('x-powered-by');
    // Hashing every response body for a weak ETag costs more than it saves on an API; protocols
    // that promise ETags (OData) set their own.
    app.set('etag', false);
    app.set('trust proxy', false);
    if (config.tracing) app.use(traceRequests(routeOf));
    app.use(requestLogging(logger, hooks.responded));
    capResponses(app, config.limits.maxResponseBytes, (req, res, error) => this.sendError(req, res, error));
    // Before everything else: every response gets the headers, and CORS preflights need no credentials.
    for (const middleware of securityMiddleware(config.security)) app.use(middleware);
    const health = (_req: Request, res: Response) => {
      res.status(this.draining ? 503 : 200).json({ status: this.draining ? 'stopping' : 'ok' });
    };
    app.get('/health', health);
    if (this.basePath) app.get(this.path('/health'), health);
    mountReadiness(app, this.kernel, () => this.draining);
    app.get(this.path('/.well-known/objectql'), (_req, res) => {
      res.json({
        name: 'objectql',
        ...(this.basePath ? { basePath: this.basePath } : {}),
        routes: this.routes,
        capabilities: hooks.capabilities.call([]),
      });
    });
    // A body that does not parse is answered after the `request` hook, like a failed login: it
    // still counts against its caller's rate limit and carries the headers.
    const parseJson = jsonBodyParser(config.limits);
    const bodyErrors = new WeakMap<Request, unknown>();
    app.use((req: Request, res: Response, next: NextFunction) => {
      parseJson(req, res, (err?: unknown) => {
        if (err) bodyErrors.set(req, bodyError(err, req));
        next();
      });
    });
    const publicRouter = express.Router();
    await hooks.publicRoutes.promise(publicRouter);
    app.use(publicRouter);
    // Public, after the plugins' public routes: a plugin's own GET / (public, or listed in its capability) wins.
    mountLanding(app, this.kernel);
    app.use(async (req: Request, res: Response, next: NextFunction) => {
      let user: User | undefined;
      let failure = bodyErrors.get(req);
      // Hooks nobody tapped are not called: each call costs a promise and a tick per request.
      if (failure === undefined && hooks.authenticate.isUsed()) {
        const request = httpAuthRequest(req);
        try {
          user = (await hooks.authenticate.promise(request)) ?? undefined;
        } catch (err) {
          failure = err;
        }
        applyResponseHeaders(request, res);
      }
      req.objectql = { user, requestId: String(req.id), logger: req.log };
      try {
        // A failed authentication still counts against its caller's rate limit (and gets its headers).
        if (hooks.request.isUsed()) await hooks.request.promise(req, res);
        next(failure);
      } catch (err) {
        next(err);
      }
    });
    const router = express.Router();
    await hooks.routes.promise(router);
    app.use(router);
    app.use((req: Request, _res: Response, next: NextFunction) =>
      next(new ObjectQLError('NOT_FOUND', `No route for ${req.method} ${req.path}`)),
    );
    app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => this.sendError(req, res, err));

    this.limited = createLimitedServer(app, config.server);
    this.server = this.limited.server;
    const server = this.server;
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      let path: string;
      try {
        path = new URL(req.url ?? '/', 'http://localhost').pathname;
      } catch {
        path = '';
      }
      const handler = this.draining ? undefined : this.upgrades.get(path);
      if (handler) {
        this.upgradedSockets.add(socket);
        socket.once('close', () => this.upgradedSockets.delete(socket));
        // Origin, the `upgrade` hook (rate limits) and connections per address, before the handshake.
        admitUpgrade(this.kernel, req, socket).then(
          (admission) => admission && handler(req, socket, head, admission),
          (err: unknown) => {
            logger.error({ err }, 'WebSocket upgrade failed');
            socket.destroy();
          },
        );
        return;
      }
      socket.end(
        `HTTP/1.1 ${this.draining ? '503 Service Unavailable' : '404 Not Found'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  }

  /** Stops accepting connections, lets requests in flight finish, then closes what is left. */
  async close(): Promise<void> {
    const limited = this.limited;
    if (!limited) return;
    this.draining = true;
    this.server = undefined;
    this.limited = undefined;
    await limited.drain(async () => {
      await Promise.allSettled(this.upgradeClosers.map(async (closeAll) => closeAll()));
      for (const socket of this.upgradedSockets) socket.destroy();
    });
  }
}

/**
 * A request id per request (the caller's X-Request-Id when it is sane), echoed in the response,
 * and a child logger carrying it. Written by hand rather than with pino-http: that one builds a
 * child logger and serializes the request on every request even when nothing is logged; here the
 * child is made on first use and the completion line only when its level is enabled. The
 * `responded` hook hears of each response when something taps it.
 */
function requestLogging(logger: Logger, responded: KernelHooks['responded']) {
  const observed = responded.isUsed();
  return (req: Request, res: Response, next: NextFunction) => {
    const logging = logger.isLevelEnabled('info');
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', id);
    Object.defineProperty(req, 'id', { value: id, configurable: true });
    Object.defineProperty(req, 'log', { value: lazyChild(logger, { reqId: id }), configurable: true });
    if (logging || observed) {
      const start = process.hrtime.bigint();
      const seconds = () => Number(process.hrtime.bigint() - start) / 1e9;
      if (logging) {
        res.once('finish', () => {
          const level = res.statusCode >= 500 ? 'error' : 'info';
          req.log[level](
            {
              req: { method: req.method, url: req.originalUrl },
              res: { statusCode: res.statusCode },
              responseTime: Math.round(seconds() * 1e4) / 10,
            },
            'request completed',
          );
        });
      }
      if (observed) res.once('close', () => report(req, res, seconds(), responded));
    }
    next();
  };
}

/** The route pattern that answered (`/api/data/:object/:id`), once a route has; undefined when none did. */
function routeOf(req: Request): string | undefined {
  const pattern = (req.route as { path?: unknown } | undefined)?.path;
  return pattern === undefined ? undefined : `${req.baseUrl ?? ''}${patternText(pattern)}`;
}

function report(req: Request, res: Response, seconds: number, responded: KernelHooks['responded']): void {
  try {
    responded.call({
      method: req.method,
      route: routeOf(req),
      path: (req.originalUrl ?? req.url).split('?')[0],
      status: res.writableFinished ? res.statusCode : 499,
      seconds,
    });
  } catch (err) {
    req.log.error({ err }, 'an observer of responses failed');
  }
}

/** An express route's path as written: a string, a RegExp or a list of them. */
function patternText(pattern: unknown): string {
  if (Array.isArray(pattern)) return pattern.map(patternText).join(',');
  return pattern instanceof RegExp ? pattern.source : typeof pattern === 'string' ? pattern : '(pattern)';
}

/** Maps framework errors onto the spec's codes (body parser errors: json-body.ts). */
function toHttpError(err: unknown, req?: Request): ObjectQLError {
  // express fails to decode a malformed %-escape in a path parameter: the client's mistake.
  if (err instanceof URIError)
    return new ObjectQLError(
      'INVALID_REQUEST',
      `Malformed percent-encoding in the path${req ? ` '${req.originalUrl.split('?')[0]}'` : ''}`,
    );
  return toObjectQLError(err);
}
