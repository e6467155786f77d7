/**
 * REST routes → engine operations and back: the spec's REST table (docs/spec.md, "REST style API"), its body checks and response
 * shapes. No HTTP here; index.ts binds it to routes and query.ts reads query strings.
 */
import { isPlainObject, ObjectQLError, type DataEngine, type DataRecord, type RequestContext } from '../../kernel';
import { ETAG_FIELDS, etagOf, ifUnchangedSinceOf } from '../../kernel/protocol';
import { assertNoQuery, parseListQuery, parseRecordQuery, type QueryPairs } from './query';

export const REST_ROUTES = ['list', 'get', 'create', 'update', 'delete', 'bulkUpdate', 'bulkDelete'] as const;
export type RestRoute = (typeof REST_ROUTES)[number];

export interface RestRequest {
  route: RestRoute;
  object: string;
  /** get, update, delete: the record id from the path. */
  id?: string;
  /** The decoded query string (a URLSearchParams will do). */
  query: QueryPairs;
  /** The parsed JSON body of create, update and the bulk routes. */
  body?: unknown;
  /** update, delete: the If-Match header (a list of ETags, or `*`), a precondition on the record's ETag. */
  ifMatch?: string;
}

export interface RestResponse {
  status: number;
  body: Record<string, unknown>;
  /** Set when one record was created: its id, for the Location header. */
  createdId?: string;
  /** Response headers: the record's ETag on get and update (when the caller sees a timestamp). */
  headers?: Record<string, string>;
}

/** Runs one request and returns the status and body of the spec's REST responses. */
export async function executeRest(engine: DataEngine, req: RestRequest, ctx: RequestContext): Promise<RestResponse> {
  // An unknown object is NOT_FOUND whatever else is wrong with the request.
  const repo = engine.repo(req.object, ctx);
  const type = { '@type': req.object };
  switch (req.route) {
    case 'list': {
      const result = await repo.find(parseListQuery(req.query, engine.limits));
      return ok({ items: result.items, meta: result.meta });
    }
    case 'get': {
      const id = requiredId(req.id);
      const options = parseRecordQuery(req.query, engine.limits);
      // The ETag's timestamps are read even when `fields` leaves them out (and then left out again).
      const strip: string[] = [];
      if (options.fields) {
        const readable = repo.permissions().readable;
        for (const f of ETAG_FIELDS) if (readable.has(f) && !options.fields.includes(f)) strip.push(f);
        if (strip.length) options.fields = [...options.fields, ...strip];
      }
      const record = Object.keys(options).length
        ? await repo.findOne({ ...options, filter: { field: 'id', op: 'eq', value: id } })
        : await repo.findOne(id);
      if (!record) throw new ObjectQLError('NOT_FOUND', `Record '${id}' of '${req.object}' not found`, { object: req.object, id });
      const etag = etagHeader(record);
      for (const f of strip) delete record[f];
      return { ...ok({ ...record, ...type }), ...etag };
    }
    case 'create': {
      assertNoQuery(req.query);
      if (Array.isArray(req.body)) {
        const items = req.body.map((item, index) => recordBody(item, req.object, `Item ${index} of the request body`));
        const result = await repo.createMany(items);
        return { status: result.count > 0 ? 201 : 200, body: { ...result, ...type } };
      }
      const created = await repo.create(recordBody(req.body, req.object, 'The request body', ' (or, to create many, an array of them)'));
      return { status: 201, body: { ...created, ...type }, createdId: created.id as string };
    }
    case 'update': {
      assertNoQuery(req.query);
      const id = requiredId(req.id);
      const data = recordBody(req.body, req.object, 'The request body');
      if ('id' in data) {
        if (data.id !== id)
          throw new ObjectQLError(
            'INVALID_REQUEST',
            `The body's id ${JSON.stringify(data.id)} differs from the id '${id}' in the path; a record's id cannot change`,
            { field: 'id' },
          );
        delete data.id;
      }
      const changed = await repo.update(id, data, ifUnchangedSinceOf(req.ifMatch));
      return { ...ok({ ...changed, ...type }), ...etagHeader(changed) };
    }
    case 'delete': {
      assertNoQuery(req.query);
      return ok({ ...(await repo.delete(requiredId(req.id), ifUnchangedSinceOf(req.ifMatch))), ...type });
    }
    case 'bulkUpdate': {
      assertNoQuery(req.query);
      const body = bulkBody(req.body, ['filters', 'data'], 'bulk-update');
      if (!isPlainObject(body.data))
        throw new ObjectQLError('INVALID_REQUEST', "bulk-update needs 'data', an object of field values", { field: 'data' });
      return ok({ ...(await repo.updateMany(body.filters, body.data)), ...type });
    }
    case 'bulkDelete': {
      assertNoQuery(req.query);
      const body = bulkBody(req.body, ['filters'], 'bulk-delete');
      return ok({ ...(await repo.deleteMany(body.filters)), ...type });
    }
  }
}

function ok(body: Record<string, unknown>): RestResponse {
  return { status: 200, body };
}

/** `{headers: {ETag}}` when the record (as the caller sees it) has a timestamp, else nothing. */
function etagHeader(record: DataRecord): Pick<RestResponse, 'headers'> {
  const etag = etagOf(record);
  return etag ? { headers: { ETag: etag } } : {};
}

function requiredId(id: string | undefined): string {
  if (typeof id !== 'string' || !id) throw new ObjectQLError('INVALID_REQUEST', 'A record id is required in the path');
  return id;
}

/**
 * A record's field values. An `@type` naming this object (as a record read from this API carries)
 * is dropped, so a record can be sent back as it was read; any other `@type` is an error.
 */
function recordBody(body: unknown, object: string, what: string, alternative = ''): DataRecord {
  if (!isPlainObject(body))
    throw new ObjectQLError('INVALID_REQUEST', `${what} must be a JSON object of field values${alternative}, got ${describe(body)}`);
  const { '@type': type, ...data } = body;
  if (type !== undefined && type !== object)
    throw new ObjectQLError('INVALID_REQUEST', `${what} has '@type' ${JSON.stringify(type)}, but the path names '${object}'`, {
      field: '@type',
    });
  return data;
}

/** `{filters, data?}`: exactly the keys of the route, `filters` required (use {} to match every record). */
function bulkBody(body: unknown, keys: string[], route: string): Record<string, unknown> {
  const shape = `{${keys.join(', ')}}`;
  if (!isPlainObject(body))
    throw new ObjectQLError('INVALID_REQUEST', `${route} needs a JSON object ${shape} as the request body, got ${describe(body)}`);
  for (const key of Object.keys(body)) {
    if (!keys.includes(key))
      throw new ObjectQLError('INVALID_REQUEST', `Unknown ${route} body field '${key}'; expected ${shape}`, { field: key });
  }
  const filters = body.filters;
  if (filters === undefined || filters === null || typeof filters !== 'object') {
    throw new ObjectQLError('INVALID_REQUEST', `${route} needs 'filters', a filter map or array (use {} to match every record)`, {
      field: 'filters',
    });
  }
  return body;
}

function describe(value: unknown): string {
  if (value === undefined) return 'no body';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
