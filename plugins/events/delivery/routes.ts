/**
 * The deliveries admin API, for callers holding one of the config's admin roles (401 without an
 * identity, 403 otherwise), mounted at `path` (the plugin passes `${eventsPath}/deliveries`, already
 * under the instance's base path):
 *
 * - `GET path?status=&workflow=&limit=&after=` → `{items, next}`: newest first, over every outbox
 *   datasource; `next` is the cursor to pass as `after` for the following page (null at the end).
 * - `POST path/:id/retry`: a dead or discarded delivery becomes pending again (attempts 0, due now),
 *   then the dispatcher is woken → the delivery.
 * - `POST path/:id/discard`: a pending or dead delivery becomes discarded (never run) → the delivery.
 * - `GET path/backlog` → `{datasources: [{datasource, feed, fanout, behind}]}`: per outbox
 *   datasource, how many committed events the fan-out has not read yet (fanout.ts). Under load the
 *   backlog waits there, in the feed, rather than as pending deliveries.
 */
import type { Request, Response, Router } from 'express';
import type { Datasource, DbRecord, Filter, Kernel } from '../../../kernel';
import { ObjectQLError, isAnonymous } from '../../../kernel';
import type { Delivery, DeliveryStatus } from '../types';
import { fanOutBacklog } from './fanout';
import { DELIVERY_STATUSES, DELIVERY_TABLE, fromDeliveryRow } from './table';

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 500;

/** A delivery as the admin API shows it. */
export interface DeliveryItem {
  id: string;
  workflow: string;
  action: number;
  status: DeliveryStatus;
  attempts: number;
  next_at: string;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** The event it carries; null for a scheduled run (then `scheduled_at`). */
  event: { position: number; object: string; id: string; operation: string } | null;
  scheduled_at?: string;
}

export function toItem(d: Delivery): DeliveryItem {
  const e = d.payload.event;
  const item: DeliveryItem = {
    id: d.id,
    workflow: d.workflow,
    action: d.action,
    status: d.status,
    attempts: d.attempts,
    next_at: d.nextAt,
    last_error: d.lastError ?? null,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    event: e ? { position: e.position, object: e.object, id: e.recordId, operation: e.operation } : null,
  };
  if (d.payload.scheduledAt) item.scheduled_at = d.payload.scheduledAt;
  return item;
}

export interface ListParams {
  status?: DeliveryStatus;
  workflow?: string;
  limit: number;
  after?: { createdAt: string; id: string };
}

function bad(parameter: string, message: string): ObjectQLError {
  return new ObjectQLError('INVALID_REQUEST', `Parameter '${parameter}' ${message}`, { parameter });
}

/** The list's query parameters, checked: throws INVALID_REQUEST naming the parameter. */
export function parseListParams(query: Record<string, unknown>): ListParams {
  const one = (name: string): string | undefined => {
    const v = query[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw bad(name, 'must be given once');
    return v;
  };
  for (const key of Object.keys(query)) {
    if (!['status', 'workflow', 'limit', 'after'].includes(key)) throw bad(key, 'is not known (status, workflow, limit, after)');
  }
  const params: ListParams = { limit: DEFAULT_LIST_LIMIT };
  const status = one('status');
  if (status !== undefined) {
    if (!DELIVERY_STATUSES.includes(status as DeliveryStatus)) throw bad('status', `must be one of ${DELIVERY_STATUSES.join(', ')}`);
    params.status = status as DeliveryStatus;
  }
  const workflow = one('workflow');
  if (workflow !== undefined) {
    if (workflow === '') throw bad('workflow', 'must be a workflow name');
    params.workflow = workflow;
  }
  const limit = one('limit');
  if (limit !== undefined) {
    const n = Number(limit);
    if (!/^\d+$/.test(limit) || n < 1 || n > MAX_LIST_LIMIT) throw bad('limit', `must be a whole number from 1 to ${MAX_LIST_LIMIT}`);
    params.limit = n;
  }
  const after = one('after');
  if (after !== undefined) params.after = decodeCursor(after);
  return params;
}

export function encodeCursor(d: { createdAt: string; id: string }): string {
  return Buffer.from(JSON.stringify([d.createdAt, d.id])).toString('base64url');
}

function decodeCursor(text: string): { createdAt: string; id: string } {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString()) as unknown;
    if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string')) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    /* below */
  }
  throw bad('after', "must be the 'next' cursor of a previous page");
}

function listFilter(params: ListParams): Filter | undefined {
  const parts: Filter[] = [];
  if (params.status) parts.push({ field: 'status', op: 'eq', value: params.status });
  if (params.workflow) parts.push({ field: 'workflow', op: 'eq', value: params.workflow });
  if (params.after) {
    const { createdAt, id } = params.after;
    parts.push({
      or: [
        { field: 'created_at', op: 'lt', value: createdAt },
        {
          and: [
            { field: 'created_at', op: 'eq', value: createdAt },
            { field: 'id', op: 'lt', value: id },
          ],
        },
      ],
    });
  }
  return parts.length ? { and: parts } : undefined;
}

function newestFirst(a: Delivery, b: Delivery): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** One page of deliveries over every datasource, newest first. */
export async function listDeliveries(
  datasources: Datasource[],
  params: ListParams,
): Promise<{ items: DeliveryItem[]; next: string | null }> {
  const filter = listFilter(params);
  const all: Delivery[] = [];
  for (const ds of datasources) {
    const rows = await ds.find(DELIVERY_TABLE, {
      ...(filter ? { filter } : {}),
      sort: [
        { field: 'created_at', dir: 'desc' },
        { field: 'id', dir: 'desc' },
      ],
      top: params.limit + 1,
    });
    all.push(...rows.map(fromDeliveryRow));
  }
  all.sort(newestFirst);
  const page = all.slice(0, params.limit);
  const next = all.length > params.limit ? encodeCursor(page[page.length - 1]) : null;
  return { items: page.map(toItem), next };
}

type Change = 'retry' | 'discard';

const ALLOWED: Record<Change, DeliveryStatus[]> = { retry: ['dead', 'discarded'], discard: ['pending', 'dead'] };

/** Retries or discards one delivery, under its row lock; throws NOT_FOUND or CONFLICT. */
export async function changeDelivery(datasources: Datasource[], id: string, change: Change): Promise<Delivery> {
  for (const ds of datasources) {
    const result = await ds.transaction(async (tx) => {
      const query = { filter: { field: 'id', op: 'eq', value: id } as Filter, top: 1 };
      const [row] = ds.lockRows ? await ds.lockRows(DELIVERY_TABLE, query, tx) : await ds.find(DELIVERY_TABLE, query, tx);
      if (!row) return undefined;
      const current = fromDeliveryRow(row);
      if (!ALLOWED[change].includes(current.status)) {
        throw new ObjectQLError(
          'CONFLICT',
          `Delivery '${id}' is ${current.status}: only ${ALLOWED[change].join(' or ')} deliveries can be ${change === 'retry' ? 'retried' : 'discarded'}`,
          { status: current.status },
        );
      }
      const now = new Date().toISOString();
      const data: DbRecord =
        change === 'retry'
          ? { status: 'pending', attempts: 0, next_at: now, claimed_by: null, claimed_until: null, updated_at: now }
          : { status: 'discarded', claimed_by: null, claimed_until: null, updated_at: now };
      const updated = await ds.update(DELIVERY_TABLE, id, data, tx);
      return updated ? fromDeliveryRow(updated) : undefined;
    });
    if (result) return result;
  }
  throw new ObjectQLError('NOT_FOUND', `Delivery '${id}' not found`);
}

/** Mounts the admin API at `path` (already under the base path). `wake` runs a dispatcher pass after a retry. */
export function mountDeliveryRoutes(router: Router, kernel: Kernel, path: string, datasources: Datasource[], wake?: () => void): void {
  const admin = (req: Request): void => {
    const user = kernel.http.context(req).user;
    if (!user || isAnonymous(user)) throw new ObjectQLError('UNAUTHORIZED', 'The deliveries API requires authentication');
    const roles = kernel.config.security.adminRoles;
    if (!user.roles.some((r) => roles.includes(r))) {
      throw new ObjectQLError('FORBIDDEN', 'The deliveries API is for administrators', { required_roles: roles });
    }
  };
  const handle = (fn: (req: Request) => Promise<unknown>) => (req: Request, res: Response) => {
    void (async () => {
      try {
        admin(req);
        res.json(await fn(req));
      } catch (err) {
        kernel.http.sendError(req, res, err);
      }
    })();
  };
  router.get(
    path,
    handle((req) => listDeliveries(datasources, parseListParams(req.query as Record<string, unknown>))),
  );
  router.get(
    `${path}/backlog`,
    handle(async () => ({ datasources: await Promise.all(datasources.map((ds) => fanOutBacklog(ds))) })),
  );
  for (const change of ['retry', 'discard'] as const) {
    router.post(
      `${path}/:id/${change}`,
      handle(async (req) => {
        const delivery = await changeDelivery(datasources, String(req.params.id), change);
        if (change === 'retry') wake?.();
        return toItem(delivery);
      }),
    );
  }
}
