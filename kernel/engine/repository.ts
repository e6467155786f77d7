/**
 * One object seen by one caller: the data path of docs/design.md §2. Reads live here; writes, bulk
 * operations, expand and actions are in files of their own and take this repository as their
 * context.
 */
import { isAnonymous, type RequestContext } from '../context';
import type { Transaction } from '../drivers';
import { ObjectQLError } from '../errors';
import type { AggregateSpec, Filter, Query, RequestFilter } from '../query/ast';
import { andFilters } from '../query/ast';
import { parseFilter } from '../query/parse-filter';
import { runAction } from './actions';
import { createMany, deleteMany, updateMany } from './bulk';
import type { CompiledObject, Engine } from './engine';
import { checkExpand, expandRecords, type CheckedExpand } from './expand';
import { checkAggregate } from './aggregate-check';
import { runDataHooks } from './hook-runner';
import { assertAllowed, type Access, type Operation as PermissionOperation } from './permissions';
import { checkFields, checkFilter, checkRequestFilter, checkSort, type CheckEnv } from './query-check';
import { relatedEnv, resolveRelations } from './relation-filter';
import { sortThrough } from './sort-through';
import type { Specials } from './special-values';
import type {
  ActionRequest,
  BulkCountResult,
  CountOptions,
  CreateManyResult,
  DataRecord,
  FindOptions,
  FindResult,
  HookContext,
  Operation,
  ReadBack,
  Repository,
  Visibility,
  CallerPermissions,
  WriteOptions,
} from './types';
import type { UnitOfWork } from './unit-of-work';
import type { HookEvent } from '../metadata/types';
import { evaluateFilter } from '../query/evaluate';
import { pagePerGroup } from '../query/per-group';
import { assertQueryDepth, assertSkip } from './query-bounds';
import { createRecord, deleteRecord, updateRecord } from './write-path';
import { observed } from './observe';

export interface CheckedQuery {
  fields?: string[];
  filter?: RequestFilter;
  sort: ReturnType<typeof checkSort>;
  top: number;
  skip: number;
  expand?: CheckedExpand;
  groupBy?: string[];
  aggregate?: AggregateSpec[];
}

interface InternalFind {
  /** Expand level of this find (0 for the caller's own query). */
  depth: number;
  /** Expand fetches exactly the ids it needs, however many. */
  unlimitedTop?: boolean;
  /** Expand reads records only: no count of them. */
  noCount?: boolean;
  /** One-to-many expand: at most `top` records (after `skip`) per value of `field`. */
  perGroup?: { field: string; top: number; skip: number };
}

export class ObjectRepository implements Repository {
  constructor(
    readonly engine: Engine,
    readonly compiled: CompiledObject,
    readonly request: RequestContext,
    readonly unit: UnitOfWork,
  ) {}

  get name(): string {
    return this.compiled.def.name;
  }
  get access(): Access {
    return this.compiled.permissions.access(this.request.user, this.request.system);
  }
  get tx(): Transaction | undefined {
    return this.unit.transactions.get(this.compiled.def.datasource);
  }
  /** An anonymous caller has no $current_user, whatever id an authentication plugin gave it. */
  specials(): Specials {
    const user = this.request.user;
    return { user: isAnonymous(user) ? undefined : user, now: new Date() };
  }
  env(access = this.access): CheckEnv {
    return {
      object: this.compiled.def,
      readable: access.readable,
      specials: this.specials(),
      limits: this.engine.limits,
      related: (name) => relatedEnv(this, name),
    };
  }

  /** The caller's record scope for `op` with special values resolved; record_filters may name any field. */
  scopeFilter(access = this.access, op: PermissionOperation = 'read'): Filter | undefined {
    const scope = access.scopes[op];
    if (!scope) return undefined;
    return checkFilter(scope, {
      object: this.compiled.def,
      readable: this.compiled.fieldNames,
      specials: this.specials(),
      limits: this.engine.limits,
    });
  }

  parseFilters(filters: unknown): Filter | undefined {
    const { maxFilterDepth, maxFilterConditions, maxJsonDepth } = this.engine.limits;
    assertQueryDepth({ filters }, maxJsonDepth);
    return parseFilter(filters, { maxDepth: maxFilterDepth, maxConditions: maxFilterConditions });
  }

  hookContext(event: HookContext['event'], operation: Operation, extra: Partial<HookContext> = {}): HookContext {
    return {
      object: this.name,
      event,
      operation,
      user: this.request.user,
      api: this.engine.api(this.request, this.unit),
      request: this.request,
      ...extra,
    };
  }

  runHooks(ctx: HookContext): Promise<void> {
    return runDataHooks(this.engine.deps.hooks, ctx, this.engine.deps.logger);
  }

  // ---- reads ---------------------------------------------------------------------------------

  find(options: FindOptions = {}): Promise<FindResult> {
    return this.observe('find', () => this.findWith(options, 'find', { depth: 0 }));
  }

  /** @internal */
  async findWith(options: FindOptions, operation: Operation, internal: InternalFind): Promise<FindResult> {
    const access = this.access;
    assertAllowed(access, 'read', this.name);
    const query = await this.prepareQuery(options, operation, access, internal);
    const filter = andFilters(await resolveRelations(this, query.filter), this.scopeFilter(access));
    if (query.aggregate || query.groupBy) {
      const items = await this.runAggregate(query, filter);
      // total counts every group, not only this page's: count them when top or skip cut the result.
      const cut = query.skip > 0 || items.length >= query.top;
      const total = !cut ? items.length : query.groupBy?.length ? await this.countGroups(query, filter) : 1;
      return { items, meta: pageMeta(total, query.skip, query.top, query.skip + items.length) };
    }

    // Forward relations are fields (fetched); one-to-many ones are not.
    const expanded = Object.keys(query.expand ?? {});
    const fetchFields = query.fields && [...new Set([...query.fields, ...expanded.filter((n) => !query.expand![n].reverse)])];
    const [rows, total] = await Promise.all([
      this.fetch({ fields: fetchFields, filter, sort: query.sort, top: query.top, skip: query.skip }, internal.perGroup),
      // findOne has no page to describe: no count.
      operation === 'findOne' || internal.noCount ? Promise.resolve(-1) : this.compiled.datasource.count(this.name, filter, this.tx),
    ]);
    if (query.expand) await expandRecords(this, rows, query.expand, internal.depth + 1);

    const after = this.hookContext('afterFind', operation, { query: options, result: rows });
    await this.runHooks(after);
    // Keys the mask would drop: one-to-many relations, and forward ones put `into` a key of their own.
    const ownKeys = expanded.map((n) => (query.expand![n].reverse ? n : query.expand![n].options.into)).filter((k) => k !== undefined);
    const keys = this.readableKeys(access, fetchFields);
    const items = (Array.isArray(after.result) ? after.result : rows).map((r) => {
      const masked = pick(r as DataRecord, keys);
      for (const key of ownKeys) keepExpanded(masked, r as DataRecord, key);
      return masked;
    });
    return { items, meta: pageMeta(total, query.skip, query.top, query.skip + rows.length) };
  }

  findOne(idOrOptions: string | FindOptions): Promise<DataRecord | null> {
    return this.observe('findOne', () => this.readOne(idOrOptions));
  }

  private async readOne(idOrOptions: string | FindOptions): Promise<DataRecord | null> {
    let options: FindOptions;
    if (typeof idOrOptions === 'string') {
      options = { filter: { field: 'id', op: 'eq', value: idOrOptions } };
    } else if (idOrOptions && typeof idOrOptions === 'object' && !Array.isArray(idOrOptions)) {
      options = { ...idOrOptions };
    } else {
      throw new ObjectQLError('INVALID_REQUEST', `findOne on '${this.name}' needs a record id or {filters}`);
    }
    const { items } = await this.findWith({ ...options, top: 1 }, 'findOne', { depth: 0 });
    return items[0] ?? null;
  }

  count(options: CountOptions = {}): Promise<number> {
    return this.observe('count', () => this.countWith(options));
  }

  private async countWith(options: CountOptions): Promise<number> {
    const access = this.access;
    assertAllowed(access, 'read', this.name);
    const env = this.env(access);
    const check = (q: CountOptions) => {
      const userFilter = andFilters<RequestFilter>(this.parseFilters(q.filters), q.filter);
      return userFilter && checkRequestFilter(userFilter, env);
    };
    // Field level before any hook runs, as for find; then again on what the hooks hand on.
    const checked = check(options);
    const before = this.hookContext('beforeFind', 'count', { query: { filters: options.filters, filter: options.filter } });
    await this.runHooks(before);
    const userFilter = await resolveRelations(this, this.tapped('beforeFind') ? check(before.query ?? {}) : checked);
    return this.compiled.datasource.count(this.name, andFilters(userFilter, this.scopeFilter(access)), this.tx);
  }

  aggregate(options: FindOptions): Promise<DataRecord[]> {
    return this.observe('aggregate', async () => {
      if (!options?.aggregate && !options?.groupBy) {
        throw new ObjectQLError('INVALID_REQUEST', `aggregate on '${this.name}' needs 'aggregate' and/or 'groupBy'`);
      }
      return (await this.findWith(options, 'aggregate', { depth: 0 })).items;
    });
  }

  private async prepareQuery(options: FindOptions, operation: Operation, access: Access, internal: InternalFind): Promise<CheckedQuery> {
    if (!options || typeof options !== 'object' || Array.isArray(options)) {
      throw new ObjectQLError('INVALID_REQUEST', `Query on '${this.name}' must be an object`);
    }
    const checked = this.checkQuery(options, access, internal);
    const before = this.hookContext('beforeFind', operation, { query: { ...options } });
    await this.runHooks(before);
    // Hooks may have changed the query: check again what they hand on (cheap: no I/O).
    return before.query === undefined || !this.tapped('beforeFind') ? checked : this.checkQuery(before.query, access, internal);
  }

  /** Whether a hook of this object (or of every object) listens to `event`: one may have changed the query or the result. */
  private tapped(event: HookEvent): boolean {
    const hooks = this.engine.deps.hooks[event];
    return Boolean(hooks.get(this.name)?.isUsed() || hooks.get('*')?.isUsed());
  }

  private checkQuery(options: FindOptions, access: Access, internal: InternalFind): CheckedQuery {
    const env = this.env(access);
    const { defaultTop, maxTop } = this.engine.limits;
    const top = options.top === undefined || options.top === null ? (internal.unlimitedTop ? undefined : defaultTop) : options.top;
    if (top !== undefined && (!Number.isInteger(top) || top < 0))
      throw new ObjectQLError('INVALID_REQUEST', `'top' must be a non-negative integer, got ${JSON.stringify(top)}`, { parameter: 'top' });
    if (top !== undefined && top > maxTop && !internal.unlimitedTop)
      throw new ObjectQLError('INVALID_REQUEST', `'top' may be at most ${maxTop}, got ${top}`, { parameter: 'top' });
    const skip = options.skip ?? 0;
    if (!Number.isInteger(skip) || skip < 0)
      throw new ObjectQLError('INVALID_REQUEST', `'skip' must be a non-negative integer, got ${JSON.stringify(skip)}`, {
        parameter: 'skip',
      });
    assertSkip(skip, this.engine.limits.maxSkip);
    assertQueryDepth(options, this.engine.limits.maxJsonDepth);

    const userFilter = andFilters<RequestFilter>(this.parseFilters(options.filters), options.filter);
    const agg = options.aggregate || options.groupBy ? checkAggregate(options, env) : undefined;
    return {
      fields: checkFields(options.fields, env),
      filter: userFilter && checkRequestFilter(userFilter, env),
      // Aggregate rows sort by their aliases and group fields only; a find may sort through a relation.
      sort: checkSort(options.sort, env, agg?.aliases, agg ? undefined : (path, dir) => sortThrough(this, path, dir)),
      top: top ?? Number.MAX_SAFE_INTEGER,
      skip,
      expand: options.expand ? checkExpand(this, options.expand, internal.depth + 1) : undefined,
      groupBy: agg?.groupBy,
      aggregate: agg?.aggregate,
    };
  }

  private async runAggregate(query: CheckedQuery, filter: Filter | undefined): Promise<DataRecord[]> {
    const rows = await this.compiled.datasource.aggregate(
      this.name,
      {
        filter,
        groupBy: query.groupBy,
        aggregate: query.aggregate ?? [],
        sort: query.sort,
        top: query.top,
        skip: query.skip,
      },
      this.tx,
    );
    return rows;
  }

  private async countGroups(query: CheckedQuery, filter: Filter | undefined): Promise<number> {
    return (await this.compiled.datasource.aggregate(this.name, { filter, groupBy: query.groupBy, aggregate: [] }, this.tx)).length;
  }

  /**
   * Rows from the datasource; with `perGroup`, at most `top` per value of its field (after `skip`),
   * paged by the store when it can, else here from a bounded read.
   */
  private async fetch(query: Query, perGroup: InternalFind['perGroup']): Promise<DataRecord[]> {
    const ds = this.compiled.datasource;
    if (!perGroup || ds.capabilities.perGroupPaging) return ds.find(this.name, perGroup ? { ...query, perGroup } : query, this.tx);
    const max = this.engine.limits.maxRelatedRecords;
    const rows = await ds.find(this.name, { ...query, top: max + 1 }, this.tx);
    if (rows.length > max) {
      throw new ObjectQLError(
        'INVALID_REQUEST',
        `Expanding '${this.name}' reads more than ${max} records on a datasource that cannot page per record; add a filter (limits.maxRelatedRecords)`,
        { object: this.name, max },
      );
    }
    return pagePerGroup(rows, perGroup);
  }

  /** Only what the caller may read, and only the fields asked for. */
  mask(record: DataRecord, access: Access, fields?: readonly string[]): DataRecord {
    return pick(record, this.readableKeys(access, fields));
  }

  /** The keys a masked record keeps, worked out once for a page of records. */
  private readableKeys(access: Access, fields?: readonly string[]): string[] {
    const keep = fields ? ['id', ...fields] : Object.keys(this.compiled.def.fields);
    return keep.filter((key) => access.readable.has(key));
  }

  // ---- what the caller may see and do --------------------------------------------------------

  visibility(): Visibility {
    const access = this.access;
    if (!access.allowed.read) return NOTHING_VISIBLE;
    const mask = (record: DataRecord, fields?: readonly string[]) => this.mask(record, access, fields);
    return {
      canRead: true,
      readable: access.readable,
      matches: (record, filters) => {
        // The caller's filter is checked first, whatever the record: a bad one is refused as a query's would be.
        const parsed = filters === undefined || filters === null ? undefined : this.parseFilters(filters);
        const checked = parsed && checkFilter(parsed, this.env(access));
        if (!evaluateFilter(this.scopeFilter(access, 'read'), record)) return false;
        return !checked || evaluateFilter(checked, mask(record));
      },
      mask,
    };
  }

  permissions(): CallerPermissions {
    const { allowed, readable, editable } = this.access;
    return { canRead: allowed.read, canCreate: allowed.create, canEdit: allowed.edit, canDelete: allowed.delete, readable, editable };
  }

  // ---- writes (see write-path.ts and bulk.ts) -------------------------------------------------

  create(data: DataRecord): Promise<DataRecord> {
    return this.observe('create', () => createRecord(this, data));
  }
  update(id: string, data: DataRecord, options?: WriteOptions): Promise<DataRecord> {
    return this.observe('update', () => updateRecord(this, id, data, options));
  }
  async createAndRead(data: DataRecord, read: ReadBack = {}): Promise<DataRecord> {
    // What create returns is what the read would show when nothing can tell them apart: no relation
    // to read, every field readable (else the read fails and must undo the write), no hook that
    // changes a find or the create's result. The record scope does not matter: out of it, the
    // answer is what create returned anyway.
    const access = this.access;
    const plain =
      !read.expand &&
      (read.fields ?? []).every((f) => access.readable.has(f)) &&
      !this.tapped('beforeFind') &&
      !this.tapped('afterFind') &&
      !this.tapped('afterCreate');
    if (plain) return this.mask(await this.create(data), access, read.fields ?? undefined);
    return this.writeAndRead(read, (repo) => repo.create(data));
  }
  updateAndRead(id: string, data: DataRecord, read: ReadBack = {}): Promise<DataRecord> {
    return this.writeAndRead(read, (repo) => repo.update(id, data));
  }

  private writeAndRead(read: ReadBack, write: (repo: Repository) => Promise<DataRecord>): Promise<DataRecord> {
    return this.engine.transaction(this.request, async (api) => {
      const repo = api.repo(this.name);
      const written = await write(repo);
      const filter: RequestFilter = { field: 'id', op: 'eq', value: written.id };
      return (await repo.findOne({ fields: read.fields, ...(read.expand ? { expand: read.expand } : {}), filter })) ?? written;
    });
  }
  delete(id: string, options?: WriteOptions): Promise<{ id: string; deleted: true }> {
    return this.observe('delete', () => deleteRecord(this, id, options));
  }
  createMany(items: DataRecord[]): Promise<CreateManyResult> {
    return this.observe('createMany', () => createMany(this, items));
  }
  updateMany(filters: unknown, data: DataRecord): Promise<BulkCountResult> {
    return this.observe('updateMany', () => updateMany(this, filters, data));
  }
  deleteMany(filters: unknown): Promise<BulkCountResult> {
    return this.observe('deleteMany', () => deleteMany(this, filters));
  }
  action(name: string, request: ActionRequest = {}): Promise<unknown> {
    return this.observe('action', () => runAction(this, name, request));
  }

  private observe<T>(operation: string, run: () => Promise<T>): Promise<T> {
    const { hooks, logger, config } = this.engine.deps;
    return observed(hooks, logger, config.tracing, this.name, operation, run);
  }
}

const NOTHING_VISIBLE: Visibility = Object.freeze({
  canRead: false,
  readable: new Set<string>(),
  matches: () => false,
  mask: () => ({}),
});

/** Expanded records under a key of their own (and a count, when asked) pass the mask: they were read as the caller. */
function keepExpanded(masked: DataRecord, row: DataRecord, name: string): void {
  masked[name] = row[name] ?? null;
  const count = `${name}@count`;
  if (count in row) masked[count] = row[count];
}

function pageMeta(total: number, skip: number, top: number, seen: number) {
  const size = top === Number.MAX_SAFE_INTEGER ? Math.max(total, 0) : top;
  return {
    total,
    page: size > 0 ? Math.floor(skip / size) + 1 : 1,
    size,
    pages: size > 0 ? Math.ceil(total / size) : 0,
    has_next: seen < total,
  };
}

function pick(record: DataRecord, keys: readonly string[]): DataRecord {
  const out: DataRecord = {};
  for (const key of keys) out[key] = record[key] ?? null;
  return out;
}
