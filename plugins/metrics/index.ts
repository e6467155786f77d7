/**
 * The metrics plugin: Prometheus metrics of one instance at `path` (default /metrics, under the
 * base path), with prom-client. HTTP requests by door, route pattern, method and status; engine
 * operations by object, operation and outcome; datasource pools; WebSocket connections and
 * subscriptions; rate-limit refusals; the process's own metrics. It listens to the kernel's
 * `responded` and `operation` hooks, which time nothing while nobody taps them. Readable by a
 * scraper holding `token`, by an admin, or by anyone with `public: true`. See docs/metrics.md.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { definePlugin, describeServer, ObjectQLError, type Kernel } from '../../kernel';
import { webSockets } from '../../kernel/protocol';
import { Metrics } from './collectors';
import { doorFinder } from './doors';
import { parseOptions, type MetricsOptions } from './options';

export type { MetricsOptions } from './options';

export default definePlugin((options: MetricsOptions = {}) => {
  const settings = parseOptions(options);
  let kernel: Kernel;
  let metrics: Metrics | undefined;
  const tokenDigest = settings.token === undefined ? undefined : digest(settings.token);

  const serve = async (_req: Request, res: Response) => {
    if (!metrics) throw new ObjectQLError('SERVICE_UNAVAILABLE', 'Metrics are not collected yet: the server is starting');
    const text = await metrics.registry.metrics();
    res.type(metrics.registry.contentType).send(text);
  };
  const scraperToken = (req: Request) => {
    const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    return tokenDigest !== undefined && match !== null && timingSafeEqual(digest(match[1]), tokenDigest);
  };

  return {
    name: 'metrics',
    register(k) {
      kernel = k;
      const path = k.http.path(settings.path);
      k.hooks.responded.tap('metrics', (outcome) => metrics?.responded(outcome));
      k.hooks.operation.tap('metrics', (outcome) => metrics?.operation(outcome));
      k.hooks.capabilities.tap('metrics', (list) => [
        ...list,
        { plugin: 'metrics', protocol: 'prometheus', routes: [`GET ${path}`], access: settings.public ? 'public' : 'token or admin' },
      ]);
      // Before authentication: a scraper's token is not a credential the auth plugin knows.
      k.hooks.publicRoutes.tap('metrics', (router) => {
        router.get(path, (req, res, next) => (settings.public || scraperToken(req) ? serve(req, res) : next()));
      });
      k.hooks.routes.tap('metrics', (router) => {
        router.get(path, (req, res) => {
          const { user } = kernel.http.context(req);
          if (!user) throw new ObjectQLError('UNAUTHORIZED', 'Reading the metrics needs the scraper token or an admin');
          const admin = kernel.config.security.adminRoles;
          if (!(user.roles ?? []).some((role) => admin.includes(role)))
            throw new ObjectQLError('FORBIDDEN', 'Reading the metrics needs the scraper token or an admin role');
          return serve(req, res);
        });
      });
    },
    start() {
      metrics = new Metrics(settings, {
        door: doorFinder(describeServer(kernel, { development: false }).doors),
        datasources: () => {
          const open = kernel.resolve('datasources');
          return open.names().map((name) => [name, open.get(name)]);
        },
        webSockets: () => {
          const registry = webSockets(kernel);
          return { connections: registry.open, subscriptions: registry.subscriptions };
        },
      });
    },
    stop() {
      metrics?.registry.clear();
      metrics = undefined;
    },
  };
});

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
