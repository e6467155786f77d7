/**
 * `GET {path}?after=&limit=&datasource=&object=`: one page of the change feed as the caller sees
 * it, `{events, next}`. Mounted on the `routes` hook: authenticated like any data route.
 */
import type { Request, Response, Router } from 'express';
import { ObjectQLError, type Kernel } from '../../kernel';
import { invalid, type EventFeed, type FeedRequest } from './feed';

export function mountFeedRoutes(router: Router, kernel: Kernel, path: string, feed: () => EventFeed | undefined): void {
  router.get(path, async (req: Request, res: Response) => {
    const current = feed();
    if (!current) {
      kernel.http.sendError(req, res, new ObjectQLError('SERVICE_UNAVAILABLE', 'The change feed is not started yet'));
      return;
    }
    try {
      const request = parseFeedQuery(req.query, current.maxLimit);
      res.json(await current.read(kernel.http.context(req).user, request));
    } catch (err) {
      kernel.http.sendError(req, res, err);
    }
  });
}

const KNOWN = new Set(['after', 'limit', 'datasource', 'object']);

/** The route's query string, checked: a wrong parameter is INVALID_REQUEST naming it. */
export function parseFeedQuery(query: Request['query'], maxLimit: number): FeedRequest {
  for (const key of Object.keys(query)) {
    if (!KNOWN.has(key)) throw invalid(key, `Unknown parameter '${key}': the change feed takes after, limit, datasource and object`);
  }
  const text = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw invalid(name, `Parameter '${name}' must be given once, as a plain value`);
    return value;
  };
  const count = (name: string, min: number): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    if (!/^\d{1,15}$/.test(value) || Number(value) < min)
      throw invalid(name, `Parameter '${name}' must be a whole number of at least ${min}`);
    return Number(value);
  };
  const out: FeedRequest = {};
  const after = count('after', 0);
  if (after !== undefined) out.after = after;
  const limit = count('limit', 1);
  if (limit !== undefined) out.limit = Math.min(limit, maxLimit);
  const datasource = text('datasource');
  if (datasource !== undefined) {
    if (!datasource) throw invalid('datasource', "Parameter 'datasource' must name a datasource");
    out.datasource = datasource;
  }
  const object = text('object');
  if (object !== undefined) {
    if (!object) throw invalid('object', "Parameter 'object' must name an object");
    out.object = object;
  }
  return out;
}
