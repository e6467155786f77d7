/**
 * The resolvers of the relation fields (relations-sdl.ts) and of the lookup fields beside them.
 *
 * A relation field reads what the root read expanded (expand-from-selection.ts) when the record
 * says it was expanded with this field's arguments. Otherwise — another alias's arguments, a
 * subscription's record, a record no root read settled — it goes through the request's batch
 * loader: the parents asking the same thing in the same tick are read again by id with that one
 * relation expanded, one engine query per relation, arguments and level. Either way the engine
 * reads as the caller, and a relation no deeper than `limits.maxExpandDepth` counted from the
 * root (EXPAND_DEPTH_EXCEEDED).
 *
 * The spec's lookup field stays its `String` id (a list of ids when multiple), also when the
 * engine has put the related record in its place.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { ObjectQLError, type DataEngine, type DataRecord, type FindOptions, type RequestContext } from '../../kernel';
import type { GraphQLContext } from './context';
import {
  expandDepth,
  reverseCountOptions,
  reverseListOptions,
  settle,
  settledOf,
  type SelectionPlanner,
  type SelectionScope,
} from './expand-from-selection';
import type { RelationField, RelationFields } from './relations-sdl';
import type { ListArgs } from './resolvers';
import type { ResolverMap } from './schema';

type Resolver = (parent: DataRecord, args: ListArgs, context: GraphQLContext, info: GraphQLResolveInfo) => unknown;

/** The resolvers of every relation field and every lookup field, by type name. */
export function relationResolvers(engine: DataEngine, relations: RelationFields, planner: SelectionPlanner): ResolverMap {
  const loaders = new WeakMap<GraphQLContext, BatchLoader>();
  const loaderOf = (context: GraphQLContext) => {
    let loader = loaders.get(context);
    if (!loader) {
      loader = new BatchLoader(engine, context.request);
      loaders.set(context, loader);
    }
    return loader;
  };

  const resolverOf = (field: RelationField): Resolver => {
    const key = field.relation.name;
    return async (parent, args, context, info) => {
      const settled = settledOf(parent);
      const expanded = expandedValue(field, parent, args, settled.level.relations.get(key), engine.limits.maxJsonDepth);
      if (expanded !== undefined) return expanded;
      const read = planner.readRelation(scopeOf(info), info.parentType, info.fieldName, info.fieldNodes, args);
      const max = engine.limits.maxExpandDepth;
      if (settled.depth + expandDepth(read.expand) > max)
        throw new ObjectQLError('EXPAND_DEPTH_EXCEEDED', `Expand depth exceeds the maximum of ${max}`, { max_depth: max });
      const loaded = await loaderOf(context).load(field.object, { fields: read.fields, expand: read.expand }, String(parent.id));
      if (loaded) settle(loaded, read.level, settled.depth);
      return valueOf(field, loaded ?? {});
    };
  };

  const out: ResolverMap = {};
  for (const [type, fields] of relations) {
    const resolvers: Record<string, unknown> = {};
    for (const field of fields.values()) {
      resolvers[field.name] = resolverOf(field);
      if (field.role === 'record') resolvers[field.relation.field] = (r: DataRecord) => idOf(r[field.relation.field]);
      if (field.role === 'records') {
        resolvers[field.relation.field] = (r: DataRecord) => {
          const value = r[field.relation.field];
          return Array.isArray(value) ? value.map(idOf) : value;
        };
      }
    }
    out[type] = resolvers;
  }
  return out;
}

/** The value the root read expanded for this field and these arguments, or undefined when it did not. */
function expandedValue(
  field: RelationField,
  parent: DataRecord,
  args: ListArgs,
  planned: { list?: string; count?: string } | undefined,
  maxJsonDepth: number,
): unknown {
  if (!planned) return undefined;
  const value = parent[field.relation.name];
  switch (field.role) {
    case 'record':
      return value === undefined || typeof value === 'object' ? (value ?? null) : undefined;
    case 'records':
      return value == null ? [] : Array.isArray(value) && value.every((v) => typeof v === 'object') ? value : undefined;
    case 'list':
      return planned.list === reverseListOptions(args, maxJsonDepth).key ? valueOf(field, parent) : undefined;
    case 'count':
      return planned.count === reverseCountOptions(args, maxJsonDepth).key ? valueOf(field, parent) : undefined;
  }
}

/** The field's value on a record whose relation the engine expanded. */
function valueOf(field: RelationField, record: DataRecord): unknown {
  const name = field.relation.name;
  if (field.role === 'record') return record[name] ?? null;
  if (field.role === 'count') return record[`${name}@count`] ?? 0;
  return record[name] ?? [];
}

function idOf(value: unknown): unknown {
  return value && typeof value === 'object' ? (value as DataRecord).id : value;
}

function scopeOf(info: GraphQLResolveInfo): SelectionScope {
  return { schema: info.schema, fragments: info.fragments, variableValues: info.variableValues };
}

interface Waiting {
  resolve: (record: DataRecord | null) => void;
  reject: (err: unknown) => void;
}

interface Batch {
  object: string;
  options: FindOptions;
  waiting: Map<string, Waiting[]>;
}

/**
 * Records by id, read in batches: every id asked with the same object and options before the
 * batch runs (the next turn of the event loop, after graphql-js has called the resolvers of every
 * row it has) is read in one engine query, `limits.maxTop` ids at a time.
 */
export class BatchLoader {
  private readonly batches = new Map<string, Batch>();

  constructor(
    private readonly engine: DataEngine,
    private readonly request: RequestContext,
  ) {}

  load(object: string, options: FindOptions, id: string): Promise<DataRecord | null> {
    const key = `${object}\n${JSON.stringify(options)}`;
    let batch = this.batches.get(key);
    if (!batch) {
      const created: Batch = { object, options, waiting: new Map() };
      this.batches.set(key, created);
      setImmediate(() => void this.run(key, created));
      batch = created;
    }
    const waiting = batch.waiting.get(id) ?? [];
    batch.waiting.set(id, waiting);
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  }

  private async run(key: string, batch: Batch): Promise<void> {
    this.batches.delete(key);
    const ids = [...batch.waiting.keys()];
    const size = this.engine.limits.maxTop;
    const found = new Map<string, DataRecord>();
    try {
      const repo = this.engine.repo(batch.object, this.request);
      for (let i = 0; i < ids.length; i += size) {
        const chunk = ids.slice(i, i + size);
        const { items } = await repo.find({ ...batch.options, filter: { field: 'id', op: 'in', value: chunk }, top: chunk.length });
        for (const record of items) found.set(String(record.id), record);
      }
    } catch (err) {
      for (const waiting of batch.waiting.values()) for (const w of waiting) w.reject(err);
      return;
    }
    for (const [id, waiting] of batch.waiting) for (const w of waiting) w.resolve(found.get(id) ?? null);
  }
}
