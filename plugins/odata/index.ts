/**
 * The OData V4 plugin: the spec's OData routes (docs/spec.md, "OData V4 API") under `basePath` (default /odata) — service
 * document, $metadata, entity sets, entities, $count, $batch — on the kernel's server (under the
 * instance's base path), behind its authentication, permissions and rate limits; or, with `port`,
 * on a port of their own (the same request pipeline, only the OData paths). A thin HTTP binding:
 * what each request answers is ODataService's (service.ts), which $batch parts go through as
 * well; every error under the base path, the kernel's included, is rendered in OData's format
 * through the kernel's error formats.
 */
import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import { definePlugin, ObjectQLError, PluginError, type Kernel, type RequestContext } from '../../kernel';
import { isJsonContentType, listenOnOwnPort, type OwnPortServer } from '../../kernel/protocol';
import { DEFAULT_MAX_PARTS, executeBatch } from './batch';
import { odataErrorBody, odataErrorResponse } from './errors';
import { jsonContentType, ODATA_VERSION } from './format';
import { parseOptions, type ODataOptions, type ODataSettings } from './options';
import { ODataService, type ODataRequest, type ODataResponse } from './service';

export type { ODataOptions, ODataSettings } from './options';
export { ODataService, type ODataEngine, type ODataRequest, type ODataResponse } from './service';

export default definePlugin((options: ODataOptions = {}) => {
  const settings = parseOptions(options);
  let kernel: Kernel;
  /** Where OData is served: basePath under the instance's base path, or as is on a port of its own. */
  let base: string;
  let service: ODataService;
  let own: OwnPortServer | undefined;
  /** With `port`: the requests that came in on it (the main server does not serve OData then). */
  const ownPort = new WeakSet<IncomingMessage>();
  const served = (req: IncomingMessage) => settings.port === undefined || ownPort.has(req);

  async function serve(req: Request, res: Response): Promise<void> {
    try {
      const request = toODataRequest(req, base);
      const ctx = kernel.http.context(req);
      if (settings.enableBatch && req.method === 'POST' && isBatchPath(request.url)) {
        write(res, await batch(req, ctx));
        return;
      }
      write(res, await service.handle(request, ctx, kernel.engine));
    } catch (err) {
      kernel.http.sendError(req, res, err);
    }
  }

  /** POST {base}/$batch: the body as bytes (JSON is parsed already), every part through the service. */
  async function batch(req: Request, ctx: RequestContext): Promise<ODataResponse> {
    const maxBytes = kernel.config.limits.maxBodyBytes;
    const contentType = req.get('content-type');
    const body: unknown = isJsonContentType(contentType) ? req.body : await readBody(req, maxBytes);
    return executeBatch({
      contentType: contentType ?? '',
      body,
      ctx,
      dispatcher: service,
      engine: kernel.engine,
      logger: kernel.logger,
      basePath: base,
      limits: { maxParts: DEFAULT_MAX_PARTS, maxBytes },
      headers: req.headers,
    });
  }

  return {
    name: 'odata',
    register(k) {
      kernel = k;
      checkExpandDepth(settings, k);
      checkPageSize(settings, k);
      base = settings.port === undefined ? k.http.path(settings.basePath) : settings.basePath;
      service = new ODataService(k, settings, base);
      k.hooks.capabilities.tap('odata', (list) => [...list, capability(settings, base, own)]);
      // Every error answered under the base path — by the route, or before it (credentials
      // refused, a rate limit, a body that does not parse) — in OData's format. With a port of
      // its own, what the main server answers there is not OData's and keeps the kernel's format.
      k.http.errorFormat(base, (error, req) => (served(req) ? odataErrorResponse(error) : { body: error.toBody() }));
      k.hooks.routes.tap('odata', (router) => {
        // base is plain path segments (options.ts, the kernel's basePath): safe in an express path.
        router.use(base, (req, res, next) => {
          if (!served(req)) return next();
          void serve(req, res);
        });
      });
      if (settings.port !== undefined && k.serves) k.hooks.ready.tapPromise('odata', () => listen());
    },
    start() {
      // The doors' prefixes are final once every plugin has registered.
      if (settings.port === undefined) checkAgainstRoutes(settings, base, kernel);
    },
    async stop() {
      const o = own;
      own = undefined;
      await o?.close();
    },
  };

  /**
   * The port of its own, bound once the kernel is ready: its requests go through the kernel's
   * whole pipeline (security headers, identity, rate limits), and only OData paths (and /health)
   * are let in. OData is at its basePath there, not under the instance's base path, which moves
   * the kernel's server only.
   */
  async function listen(): Promise<void> {
    const app = kernel.http.app;
    own = await listenOnOwnPort(
      settings.port ?? 0,
      kernel.config.host,
      (req, res) => {
        const path = (req.url ?? '/').split('?')[0];
        if (path !== '/health' && !underBase(path, base)) {
          const error = new ObjectQLError('NOT_FOUND', `No route for ${req.method} ${path}: this port serves OData under ${base}`);
          res
            .writeHead(404, { 'Content-Type': jsonContentType('minimal'), 'OData-Version': ODATA_VERSION })
            .end(JSON.stringify(odataErrorBody(error)));
          return;
        }
        ownPort.add(req);
        void app(req, res);
      },
      kernel.config.server,
    );
    kernel.logger.info({ url: own.url + base }, 'OData listening on its own port');
  }
});

function checkExpandDepth(settings: ODataSettings, k: Kernel): void {
  const max = k.config.limits.maxExpandDepth;
  if (settings.maxExpandDepth > max) {
    throw new PluginError(
      `Plugin 'odata': maxExpandDepth ${settings.maxExpandDepth} is above the kernel's limits.maxExpandDepth ${max}; raise that limit too, or lower maxExpandDepth`,
    );
  }
}

function checkPageSize(settings: ODataSettings, k: Kernel): void {
  const max = k.config.limits.maxTop;
  if (settings.maxPageSize !== undefined && settings.maxPageSize > max) {
    throw new PluginError(
      `Plugin 'odata': maxPageSize ${settings.maxPageSize} is above the kernel's limits.maxTop ${max}; raise that limit too, or lower maxPageSize`,
    );
  }
}

/** OData's base may not be, contain or lie under the prefix of one of the spec's doors (both as served). */
function checkAgainstRoutes(settings: ODataSettings, base: string, k: Kernel): void {
  const b = base.toLowerCase();
  for (const [key, served] of Object.entries(k.http.routes)) {
    const prefix = served.toLowerCase();
    if (prefix === b || prefix.startsWith(`${b}/`) || b.startsWith(`${prefix}/`)) {
      const at = base === settings.basePath ? '' : ` (served at '${base}')`;
      throw new PluginError(
        `Plugin 'odata': basePath '${settings.basePath}'${at} overlaps the ${key} route '${served}' (routes.${key} or the path option of the plugin serving it); choose another basePath`,
      );
    }
  }
}

function capability(settings: ODataSettings, base: string, own: OwnPortServer | undefined) {
  const routes = [
    `GET ${base}`,
    `GET ${base}/$metadata`,
    `GET ${base}/{EntitySet}`,
    `GET ${base}/{EntitySet}/$count`,
    `POST ${base}/{EntitySet}`,
    `GET ${base}/{EntitySet}('{id}')`,
    `PATCH ${base}/{EntitySet}('{id}')`,
    `PUT ${base}/{EntitySet}('{id}')`,
    `DELETE ${base}/{EntitySet}('{id}')`,
    `GET ${base}/{EntitySet}('{id}')/{property}`,
  ];
  if (settings.enableBatch) routes.push(`POST ${base}/$batch`);
  return {
    plugin: 'odata',
    protocol: 'odata',
    version: ODATA_VERSION,
    routes,
    basePath: base,
    metadata: `${base}/$metadata`,
    ...(settings.port !== undefined ? { port: settings.port, url: own ? own.url + base : undefined } : {}),
    maxExpandDepth: settings.maxExpandDepth,
    batch: settings.enableBatch,
    search: settings.enableSearch,
    etags: settings.enableETags,
  };
}

/** Whether a path is the base path or under it (express matches paths case-insensitively). */
function underBase(path: string, base: string): boolean {
  const p = path.toLowerCase();
  const b = base.toLowerCase();
  return p === b || p.startsWith(`${b}/`);
}

function toODataRequest(req: Request, base: string): ODataRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const rest = req.originalUrl.slice(base.length);
  return { method: req.method, url: rest.startsWith('/') ? rest : `/${rest}`, headers, body: req.body };
}

function isBatchPath(url: string): boolean {
  const path = url.split('?')[0];
  return path === '/$batch' || path.toLowerCase() === '/%24batch';
}

/** The raw body, up to `limit` bytes (INVALID_REQUEST beyond, as the kernel's body parser answers). */
async function readBody(req: Request, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ObjectQLError('INVALID_REQUEST', `Request body is larger than the limit of ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function write(res: Response, response: ODataResponse): void {
  res.status(response.status);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  if (response.body === undefined) {
    res.end();
    return;
  }
  const body = response.body;
  res.send(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
}
