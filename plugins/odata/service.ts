/**
 * The OData service: one request (method, URL after the base path, headers, parsed JSON body) →
 * one response (status, headers, body), whatever carried it — an HTTP request (index.ts) or one
 * part of a $batch. Every failure becomes an OData error response; nothing is thrown. Data is
 * reached only through the `engine` given, so a batch changeset can hand in its transaction.
 */
import {
  andFilters,
  ObjectQLError,
  toObjectQLError,
  type DataRecord,
  type Filter,
  type FindOptions,
  type Kernel,
  type ObjectDefinition,
  type Repository,
  type RequestContext,
} from '../../kernel';
import { ETAG_FIELDS, etagMatches, etagOf, parseEntityTags } from '../../kernel/protocol';
import { fromEntity, toEntity, translateExpand, withoutNavigations, type ExpandPlan, type ExpandStep } from './entities';
import { odataErrorResponse } from './errors';
import { jsonContentType, metadataLevel, ODATA_VERSION, type MetadataLevel } from './format';
import { MetadataCache } from './metadata-cache';
import { ODataModel, type ModelSource, type Relation } from './model';
import type { ODataSettings } from './options';
import { DEFAULT_FILTER_LIMITS, parseODataQuery, type ODataQuerySettings } from './query';
import { parseApply, type ParsedApply } from './query/apply';
import { optionError } from './query/errors';
import { appliedList } from './apply-list';
import { computedMisuse, fetchComputedReads, readCompute, withComputed } from './computed';
import { csrfHeaders } from './csrf';
import { nextPageQuery, pagePlan, type PageLimits } from './paging';
import { replacement } from './replace';
import { allowMethods, jsonBody, MethodNotAllowed, noOptions, onlyOptions, prefersMinimal } from './request-checks';
import { parseUrl, quoteKey, type Resource } from './resource-path';

export interface ODataRequest {
  /** GET, POST, PATCH, DELETE (HEAD is answered as GET); any case. */
  method: string;
  /** The path after the base path, starting with '/', plus '?query': "/Project('p1')?$select=name". Percent-encoded as sent. */
  url: string;
  /** Header names in any case. */
  headers: Record<string, string>;
  /** The parsed JSON body, when there is one. */
  body?: unknown;
}

export interface ODataResponse {
  status: number;
  headers: Record<string, string>;
  /** A JSON value when Content-Type is JSON; a string otherwise ($metadata XML, $count text); undefined for no body. */
  body?: unknown;
}

/** What the service reaches data through: kernel.engine, or a batch changeset's transaction. */
export interface ODataEngine {
  repo(object: string, ctx: RequestContext): Repository;
}

/** One request, parsed. */
interface Call {
  method: string;
  headers: Record<string, string>;
  body: unknown;
  query: URLSearchParams;
  /** The query as sent ($format included), for @odata.nextLink. */
  rawQuery: string;
  ctx: RequestContext;
  engine: ODataEngine;
  level: MetadataLevel;
}

/** Cache-Control of entity responses: they depend on the caller, and are revalidated with their ETag. */
export const ENTITY_CACHE_CONTROL = 'private, max-age=0, must-revalidate';
/** Cache-Control of everything else. */
export const NO_CACHE = 'private, no-cache';

export class ODataService {
  readonly model: ODataModel;
  readonly metadata: MetadataCache;
  readonly basePath: string;

  /**
   * `basePath` is where the service is served, which every URL it writes starts with: the
   * plugin's basePath under the instance's (kernel.http.path) on the kernel's server, as is on a
   * port of its own.
   */
  constructor(
    private readonly kernel: Kernel,
    private readonly settings: ODataSettings,
    basePath = settings.basePath,
  ) {
    this.basePath = basePath;
    // Read when asked: the registry and the engine exist once the kernel has started.
    const source: ModelSource = {
      objects: () => kernel.registry.objects(),
      object: (name) => kernel.registry.object(name),
      revision: () => kernel.registry.revision,
      access: (object, user) => kernel.engine.repo(object, { user }).permissions(),
    };
    this.model = new ODataModel(source);
    this.metadata = new MetadataCache(this.model, settings);
  }

  private get querySettings(): ODataQuerySettings {
    return {
      maxExpandDepth: this.settings.maxExpandDepth,
      enableSearch: this.settings.enableSearch,
      maxTop: this.kernel.config.limits.maxTop,
    };
  }

  async handle(req: ODataRequest, ctx: RequestContext, engine: ODataEngine): Promise<ODataResponse> {
    const headers = Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
    try {
      const url = req.url.startsWith('/') ? req.url : `/${req.url}`;
      const { resource, query } = parseUrl(url, this.basePath);
      const rawQuery = query.toString();
      const level = metadataLevel(headers.accept, query.get('$format'));
      query.delete('$format');
      const head = req.method.toUpperCase() === 'HEAD';
      const method = head ? 'GET' : req.method.toUpperCase();
      const response =
        head && resource.kind === 'batch' && this.settings.enableBatch
          ? batchProbe(query)
          : await this.dispatch(resource, { method, headers, body: req.body, query, rawQuery, ctx, engine, level });
      response.headers['OData-Version'] = ODATA_VERSION;
      return withCsrf(response, headers);
    } catch (err) {
      return withCsrf(this.errorResponse(err, ctx), headers);
    }
  }

  /** An error as an OData error response; errors without a spec code are logged and become INTERNAL_ERROR. */
  errorResponse(err: unknown, ctx: RequestContext): ODataResponse {
    const error = toObjectQLError(err);
    if (error.status >= 500) (ctx.logger ?? this.kernel.logger).error({ err }, error.message);
    const response: ODataResponse = odataErrorResponse(error);
    if (error.status === 401) response.headers['WWW-Authenticate'] = 'Bearer';
    return response;
  }

  private dispatch(resource: Resource, call: Call): Promise<ODataResponse> | ODataResponse {
    switch (resource.kind) {
      case 'serviceDocument':
        allowMethods(call.method, ['GET'], 'the service document');
        noOptions(call.query);
        return this.serviceDocument(call);
      case 'metadata':
        allowMethods(call.method, ['GET'], '$metadata');
        noOptions(call.query);
        return this.metadataDocument(call);
      case 'batch':
        // POST $batch is served by index.ts (executeBatch): here it is one inside a batch, or batches are off.
        if (!this.settings.enableBatch) throw new ObjectQLError('NOT_FOUND', `$batch is not enabled on ${this.basePath}`);
        if (call.method !== 'POST') throw new MethodNotAllowed(call.method, '$batch', ['POST', 'HEAD']);
        throw new ObjectQLError('INVALID_REQUEST', 'A $batch request cannot be nested inside a batch');
    }
    const def = this.entitySet(resource.set);
    switch (resource.kind) {
      case 'collection':
        allowMethods(call.method, ['GET', 'POST'], `the entity set ${def.name}`);
        return call.method === 'GET' ? this.list(def, call) : this.create(def, call);
      case 'count':
        allowMethods(call.method, ['GET'], `${def.name}/$count`);
        return this.count(def, call);
      case 'entity':
        allowMethods(call.method, ['GET', 'PATCH', 'PUT', 'DELETE'], `an entity of ${def.name}`);
        if (call.method === 'GET') return this.read(def, resource.key, call);
        if (call.method === 'PATCH' || call.method === 'PUT') return this.update(def, resource.key, call, call.method === 'PUT');
        return this.remove(def, resource.key, call);
      case 'property':
        allowMethods(call.method, ['GET'], `a property of ${def.name}`);
        return this.property(def, resource.key, resource.property, call);
    }
  }

  private entitySet(name: string): ObjectDefinition {
    const def = this.kernel.registry.object(name);
    if (!def) throw new ObjectQLError('NOT_FOUND', `Entity set '${name}' not found`, { object: name });
    return def;
  }

  // ---- service document and $metadata ---------------------------------------------------------

  private serviceDocument(call: Call): ODataResponse {
    const value = this.model.visibleObjects(call.ctx.user).map(({ def }) => ({ name: def.name, kind: 'EntitySet', url: def.name }));
    const body = call.level === 'none' ? { value } : { '@odata.context': `${this.basePath}/$metadata`, value };
    return json(200, body, call.level, { 'Cache-Control': NO_CACHE });
  }

  private metadataDocument(call: Call): ODataResponse {
    const { xml, etag } = this.metadata.get(call.ctx.user);
    const headers = { ETag: etag, 'Cache-Control': NO_CACHE };
    const condition = parseEntityTags(call.headers['if-none-match']);
    if (condition && etagMatches(condition, etag)) return { status: 304, headers };
    return { status: 200, headers: { ...headers, 'Content-Type': 'application/xml' }, body: xml };
  }

  // ---- reads -----------------------------------------------------------------------------------

  /** A collection: the entity set, or (with `only`) the related entities of a collection-valued navigation property. */
  private async list(def: ObjectDefinition, call: Call, only?: Filter): Promise<ODataResponse> {
    const target = this.model.target(def, call.ctx.user);
    const apply = this.apply(call, target.object, only);
    if (apply?.aggregated) return this.appliedList(def, call, apply);
    const compute = readCompute(call.query, target.object, {
      maxLength: this.settings.maxExpressionLength,
      maxNodes: DEFAULT_FILTER_LIMITS.maxConditions,
    });
    let parsed;
    try {
      parsed = parseODataQuery(compute?.query ?? call.query, target, this.querySettings);
    } catch (err) {
      throw compute ? computedMisuse(err, compute) : err;
    }
    const { options, plan, strip } = this.findOptions(def, parsed.find, call);
    if (compute) fetchComputedReads(options, strip, compute);
    options.filter = andFilters(options.filter, only, ...(apply?.steps ?? []).map((s) => (s.kind === 'filter' ? s.filter : undefined)));
    const page = pagePlan(parsed.find.top, call.headers.prefer, this.pageLimits);
    options.top = page.top;
    const repo = call.engine.repo(def.name, call.ctx);
    const result = await repo.find(options);
    const keys = await this.lostKeys(repo, result.items, plan);
    const value = result.items.map((r) => this.entity(compute ? withComputed(r, compute) : r, def, plan, call, strip, keys));
    const body: Record<string, unknown> = {};
    if (call.level === 'minimal') body['@odata.context'] = this.contextUrl(def, compute?.select ?? parsed.select);
    if (parsed.count) body['@odata.count'] = result.meta.total;
    body.value = value;
    // The page cut what was asked: the client is told where the rest is.
    const next = only ? undefined : nextPageQuery(call.rawQuery, parsed.find, result.items.length, result.meta.total);
    if (next !== undefined) body['@odata.nextLink'] = `${this.basePath}/${def.name}?${next}`;
    return json(200, body, call.level, { 'Cache-Control': NO_CACHE, ...(page.applied ? { 'Preference-Applied': page.applied } : {}) });
  }

  /** Server-driven paging: limits.defaultTop without $top, and the plugin's maxPageSize (default limits.maxTop) as the cap. */
  get pageLimits(): PageLimits {
    const { defaultTop, maxTop } = this.kernel.config.limits;
    const cap = this.settings.maxPageSize ?? maxTop;
    return { defaultTop: Math.min(defaultTop, cap), cap };
  }

  /** $apply, parsed (apply-list.ts answers a grouping one; filter() alone narrows the entity set). */
  private apply(call: Call, object: ObjectDefinition, only: Filter | undefined): ParsedApply | undefined {
    const texts = call.query.getAll('$apply');
    if (texts.length === 0) return undefined;
    if (texts.length > 1) throw optionError('$apply', 'is given more than once; give it once');
    if (only) throw optionError('$apply', 'is supported on entity sets, not on navigation properties');
    return parseApply(texts[0], object, { ...DEFAULT_FILTER_LIMITS, maxLength: this.settings.maxExpressionLength });
  }

  private appliedList(def: ObjectDefinition, call: Call, apply: ParsedApply): Promise<ODataResponse> {
    return appliedList({
      def,
      apply,
      query: call.query,
      rawQuery: call.rawQuery,
      repo: call.engine.repo(def.name, call.ctx),
      prefer: call.headers.prefer,
      level: call.level,
      basePath: this.basePath,
      page: this.pageLimits,
      maxTop: this.kernel.config.limits.maxTop,
      filterLimits: DEFAULT_FILTER_LIMITS,
      cacheControl: NO_CACHE,
    });
  }

  private async count(def: ObjectDefinition, call: Call): Promise<ODataResponse> {
    const parsed = parseODataQuery(
      onlyOptions(call.query, ['$filter', '$search'], `${def.name}/$count`),
      this.model.target(def, call.ctx.user),
      this.querySettings,
    );
    const n = await call.engine.repo(def.name, call.ctx).count({ filter: parsed.find.filter, filters: parsed.find.filters });
    return { status: 200, headers: { 'Content-Type': 'text/plain', 'Cache-Control': NO_CACHE }, body: String(n) };
  }

  private async read(def: ObjectDefinition, key: string, call: Call): Promise<ODataResponse> {
    const parsed = parseODataQuery(
      onlyOptions(call.query, ['$select', '$expand'], 'a single entity'),
      this.model.target(def, call.ctx.user),
      this.querySettings,
    );
    const { options, plan, strip } = this.findOptions(def, { fields: parsed.find.fields, expand: parsed.find.expand }, call);
    const repo = call.engine.repo(def.name, call.ctx);
    const record = await repo.findOne({ ...options, filter: { field: 'id', op: 'eq', value: key } });
    if (!record) throw notFound(def, key);
    const etag = this.settings.enableETags ? etagOf(record) : undefined;
    const condition = parseEntityTags(call.headers['if-none-match']);
    if (condition && etag && etagMatches(condition, etag))
      return { status: 304, headers: { ETag: etag, 'Cache-Control': ENTITY_CACHE_CONTROL } };
    const keys = await this.lostKeys(repo, [record], plan);
    return this.entityResponse(200, def, record, call, { plan, strip, keys, select: parsed.select });
  }

  /** `Set('id')/name`: a structural property as {value}, or a navigation property as the related entity (or entities). */
  private async property(def: ObjectDefinition, key: string, name: string, call: Call): Promise<ODataResponse> {
    const view = this.model.view(def, call.ctx.user);
    const relation = this.model.navigation(def, name);
    if ((!relation || (!relation.reverse && !view.fields[relation.field])) && !view.fields[name]) {
      const message = `'${name}' is not a property of ${def.name}`;
      throw new ObjectQLError('NOT_FOUND', message, [{ code: 'NOT_FOUND', message, target: name }]);
    }
    if (relation?.reverse) return this.related(def, key, relation, call);
    const field = relation ? relation.field : name;
    if (!relation) onlyOptions(call.query, [], 'a property');
    const record = await call.engine.repo(def.name, call.ctx).findOne({ fields: [field], filter: { field: 'id', op: 'eq', value: key } });
    if (!record) throw notFound(def, key);
    const value = record[field] ?? null;
    if (!relation) {
      const shaped = toEntity({ [field]: value }, def, new Map(), { etags: false })[field];
      const body =
        call.level === 'minimal'
          ? { '@odata.context': `${this.basePath}/$metadata#${def.name}('${quoteKey(key)}')/${name}`, value: shaped }
          : { value: shaped };
      return json(200, body, call.level, { 'Cache-Control': NO_CACHE });
    }
    const target = this.entitySet(relation.target);
    if (relation.multiple) {
      const ids = Array.isArray(value) ? value.map(String) : [];
      return this.list(target, call, { field: 'id', op: 'in', value: ids });
    }
    // A single relation holds the related record's id, or nothing.
    const id = typeof value === 'string' || typeof value === 'number' ? String(value) : null;
    if (id === null) return { status: 204, headers: { 'Cache-Control': NO_CACHE } };
    try {
      return await this.read(target, id, call);
    } catch (err) {
      // A reference to a record the caller may not see reads as no related entity, as in $expand.
      if (toObjectQLError(err).code === 'NOT_FOUND' && this.kernel.registry.object(relation.target))
        return { status: 204, headers: { 'Cache-Control': NO_CACHE } };
      throw err;
    }
  }

  /** `Set('id')/tasks`: the records of a one-to-many navigation property, as a collection with the query options. */
  private async related(def: ObjectDefinition, key: string, relation: Relation, call: Call): Promise<ODataResponse> {
    const parent = await call.engine.repo(def.name, call.ctx).findOne({ fields: ['id'], filter: { field: 'id', op: 'eq', value: key } });
    if (!parent) throw notFound(def, key);
    return this.list(this.entitySet(relation.target), call, { field: relation.field, op: 'eq', value: key });
  }

  // ---- writes ----------------------------------------------------------------------------------

  private async create(def: ObjectDefinition, call: Call): Promise<ODataResponse> {
    noOptions(call.query);
    const data = fromEntity(jsonBody(call.headers, call.body), def, this.model.view(def, call.ctx.user), this.model, this.basePath);
    const created = await call.engine.repo(def.name, call.ctx).create(data);
    const id = String(created.id);
    const location = `${this.basePath}/${def.name}('${encodeURIComponent(quoteKey(id))}')`;
    if (prefersMinimal(call.headers)) return this.minimal(204, created, { Location: location, 'OData-EntityId': location });
    const response = this.entityResponse(201, def, created, call, {});
    response.headers.Location = location;
    return response;
  }

  /** PATCH, or PUT (`replace`): the fields the body leaves out are reset (replace.ts). */
  private async update(def: ObjectDefinition, key: string, call: Call, replace = false): Promise<ODataResponse> {
    noOptions(call.query);
    let data = fromEntity(jsonBody(call.headers, call.body), def, this.model.view(def, call.ctx.user), this.model, this.basePath);
    if ('id' in data) {
      if (data.id !== key) {
        const message = `The body's id ${JSON.stringify(data.id)} differs from the key '${key}': an entity's id cannot change`;
        throw new ObjectQLError('INVALID_REQUEST', message, [{ code: 'INVALID_REQUEST', message, target: 'id' }]);
      }
      delete data.id;
    }
    const repo = call.engine.repo(def.name, call.ctx);
    if (replace) data = replacement(def, data, repo.permissions().editable, call.ctx.user);
    await this.checkIfMatch(def, key, repo, call, 'edit');
    const changed = await repo.update(key, data);
    // The whole entity as the caller now sees it (the update answers with the changed fields only).
    const record = (await repo.findOne(key)) ?? changed;
    if (prefersMinimal(call.headers)) return this.minimal(204, record, {});
    return this.entityResponse(200, def, record, call, {});
  }

  private async remove(def: ObjectDefinition, key: string, call: Call): Promise<ODataResponse> {
    noOptions(call.query);
    const repo = call.engine.repo(def.name, call.ctx);
    await this.checkIfMatch(def, key, repo, call, 'delete');
    await repo.delete(key);
    return { status: 204, headers: {} };
  }

  /**
   * If-Match on PATCH and DELETE: the entity's current ETag must match (any ETag for `*`), or the
   * answer is 412 PRECONDITION_FAILED. A precondition never hides another error (RFC 9110 §13.2.1):
   * a caller who may not change the object at all, or a record they cannot see, gets the answer the
   * write itself gives.
   */
  private async checkIfMatch(def: ObjectDefinition, key: string, repo: Repository, call: Call, op: 'edit' | 'delete'): Promise<void> {
    const condition = parseEntityTags(call.headers['if-match']);
    if (!condition || !this.settings.enableETags) return;
    const access = this.model.source.access(def.name, call.ctx.user);
    if (!(op === 'edit' ? access.canEdit : access.canDelete) || !access.canRead) return;
    const fields = ETAG_FIELDS.filter((f) => access.readable.has(f));
    const current = await repo.findOne({ fields, filter: { field: 'id', op: 'eq', value: key } });
    if (!current) return;
    if (!etagMatches(condition, etagOf(current))) {
      const message = `The entity ${def.name}('${key}') has changed: its ETag does not match If-Match`;
      throw new ObjectQLError('PRECONDITION_FAILED', message, [{ code: 'PRECONDITION_FAILED', message, target: 'If-Match' }]);
    }
  }

  // ---- shaping ---------------------------------------------------------------------------------

  /**
   * The parser's find options → the engine's: navigation properties in $expand become their
   * relation fields, in $select they go (an expanded one comes anyway), and with $select the
   * ETag's timestamps are fetched too (then stripped).
   */
  private findOptions(def: ObjectDefinition, find: FindOptions, call: Call): { options: FindOptions; plan: ExpandPlan; strip: string[] } {
    const fields = find.fields ? withoutNavigations(this.model, def, find.fields) : undefined;
    const options: FindOptions = { ...find, fields };
    let plan: ExpandPlan = new Map();
    if (find.expand) ({ expand: options.expand, plan } = translateExpand(this.model, def, find.expand, fields));
    const strip: string[] = [];
    if (fields && this.settings.enableETags && call.level === 'minimal') {
      const readable = this.model.source.access(def.name, call.ctx.user).readable;
      for (const f of ETAG_FIELDS) if (readable.has(f) && !fields.includes(f)) strip.push(f);
      if (strip.length) options.fields = [...fields, ...strip];
    }
    return { options, plan, strip };
  }

  /**
   * An expanded relation the caller may not see comes back null from the engine (and a
   * collection without the records out of scope), which loses the foreign key the entity shows
   * without $expand: it is read back, by id, for the records that need it.
   */
  private async lostKeys(repo: Repository, records: DataRecord[], plan: ExpandPlan): Promise<Map<string, DataRecord>> {
    const lost = [...plan.values()].filter((s) => s.byNav && s.keepKey).map((s) => s.relation);
    const ids = lost.length
      ? records.filter((r) => lost.some((rel) => rel.multiple || r[rel.field] === null)).map((r) => String(r.id))
      : [];
    if (!ids.length) return new Map();
    const { items } = await repo.find({ fields: lost.map((r) => r.field), filter: { field: 'id', op: 'in', value: ids }, top: ids.length });
    return new Map(items.map((k) => [String(k.id), k]));
  }

  /** A record as an entity, with the foreign keys read back by lostKeys. */
  private entity(
    record: DataRecord,
    def: ObjectDefinition,
    plan: ExpandPlan,
    call: Call,
    strip: string[],
    keys: Map<string, DataRecord>,
  ): DataRecord {
    const entity = toEntity(record, def, plan, { etags: this.settings.enableETags && call.level === 'minimal', strip });
    const stored = keys.get(String(record.id));
    if (stored)
      for (const step of plan.values()) if (step.byNav && step.keepKey) entity[step.relation.field] = stored[step.relation.field] ?? null;
    return entity;
  }

  private contextUrl(def: ObjectDefinition, select: string[] | undefined, suffix = ''): string {
    return `${this.basePath}/$metadata#${def.name}${select?.length ? `(${select.join(',')})` : ''}${suffix}`;
  }

  /** One entity with its context URL, ETag header and caching headers. */
  private entityResponse(
    status: number,
    def: ObjectDefinition,
    record: DataRecord,
    call: Call,
    opts: { plan?: ExpandPlan; strip?: string[]; keys?: Map<string, DataRecord>; select?: string[] },
  ): ODataResponse {
    const entity = this.entity(
      record,
      def,
      opts.plan ?? new Map<string, ExpandStep>(),
      call,
      opts.strip ?? [],
      opts.keys ?? new Map<string, DataRecord>(),
    );
    const body = call.level === 'minimal' ? { '@odata.context': this.contextUrl(def, opts.select, '/$entity'), ...entity } : entity;
    const headers: Record<string, string> = { 'Cache-Control': ENTITY_CACHE_CONTROL };
    const etag = this.settings.enableETags ? etagOf(record) : undefined;
    if (etag) headers.ETag = etag;
    return json(status, body, call.level, headers);
  }

  /** `Prefer: return=minimal`: no body, the ETag and the given headers. */
  private minimal(status: number, record: DataRecord, headers: Record<string, string>): ODataResponse {
    const etag = this.settings.enableETags ? etagOf(record) : undefined;
    return { status, headers: { ...headers, ...(etag ? { ETag: etag } : {}), 'Preference-Applied': 'return=minimal' } };
  }
}

function json(status: number, body: unknown, level: MetadataLevel, headers: Record<string, string>): ODataResponse {
  return { status, headers: { 'Content-Type': jsonContentType(level), ...headers }, body };
}

/** HEAD $batch (a CSRF token fetch, the SAP Cloud SDK's before a batch): 200 without a body. */
function batchProbe(query: URLSearchParams): ODataResponse {
  noOptions(query);
  return { status: 200, headers: { 'Cache-Control': NO_CACHE } };
}

function withCsrf(response: ODataResponse, headers: Record<string, string>): ODataResponse {
  Object.assign(response.headers, csrfHeaders(headers));
  return response;
}

function notFound(def: ObjectDefinition, key: string): ObjectQLError {
  // Worded as the engine words a record that is not there (or not in the caller's scope).
  return new ObjectQLError('NOT_FOUND', `Record '${key}' of '${def.name}' not found`, { object: def.name, id: key });
}
