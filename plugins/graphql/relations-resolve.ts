/**
 * The resolvers of the relation fields (relations-sdl.ts).
 *
 * `<lookup>_record(s)` answers what the root read expanded into its key (expand-from-selection.ts).
 * A record no root read planned it for (a subscription's, a batch loader's) reads the related
 * records by the ids the parent holds, through the request's batch loader: every parent of a level asks before the batch runs (once the promises under way have settled), so one
 * engine query per relation and level answers them all, and whatever the selection asks below is
 * read by that query (its reverse relations as `expand`). The lookup field itself stays the id,
 * also where the related record is out of the caller's sight (then `_record` is null).
 *
 * A reverse list or count reads what the root read expanded (expand-from-selection.ts) when the
 * record says it was expanded with this field's arguments. Otherwise — another alias's arguments,
 * a subscription's record — the parents asking the same thing are read again by id with that one
 * relation expanded, through the batch loader: one engine query per relation, arguments and level.
 *
 * The engine reads as the caller every time, and relations nest no deeper than
 * `limits.maxExpandDepth` counted from the root field (EXPAND_DEPTH_EXCEEDED).
 */
import type { GraphQLObjectType, GraphQLResolveInfo } from 'graphql';
import { ObjectQLError, type DataEngine, type DataRecord, type FindOptions, type RequestContext } from '../../kernel';
import type { GraphQLContext } from './context';
import {
  expandDepth,
  settle,
  settledOf,
  type RelationArgs,
  type SelectionPlanner,
  type SelectionRead,
  type SelectionScope,
} from './expand-from-selection';
import type { RelationField, RelationFields } from './relations-sdl';
import type { ResolverMap } from './schema';

type Resolver = (parent: DataRecord, args: RelationArgs, context: GraphQLContext, info: GraphQLResolveInfo) => unknown;

/** The resolvers of every relation field, by type name. */
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
  /** Refuses a read whose relations would reach deeper than limits.maxExpandDepth from the root. */
  const assertDepth = (depth: number, read: SelectionRead) => {
    const max = engine.limits.maxExpandDepth;
    if (depth + expandDepth(read.expand) > max)
      throw new ObjectQLError('EXPAND_DEPTH_EXCEEDED', `Expand depth exceeds the maximum of ${max}`, { max_depth: max });
  };
  const optionsOf = (read: SelectionRead): FindOptions => ({ fields: read.fields, ...(read.expand ? { expand: read.expand } : {}) });

  const forward = (field: RelationField): Resolver => {
    const lookup = field.relation.field;
    const planned = (parent: DataRecord, context: GraphQLContext, info: GraphQLResolveInfo) =>
      settledOf(parent).level.relations.get(lookup)?.forward === field.name ? parent[field.name] : loaded(parent, context, info);
    const loaded = async (parent: DataRecord, context: GraphQLContext, info: GraphQLResolveInfo) => {
      const settled = settledOf(parent);
      const loader = loaderOf(context);
      let value = parent[lookup];
      // A record read without its lookup field (a subscription's): read that field first.
      if (value === undefined && typeof parent.id === 'string')
        value = (await loader.load(field.object, { fields: ['id', lookup] }, parent.id))?.[lookup];
      const ids = (Array.isArray(value) ? value : value == null ? [] : [value]).filter((id): id is string => typeof id === 'string');
      // The same for every row of a level: graphql-js hands each row the same field nodes.
      const { read, options } = loader.memo(info.fieldNodes, () => {
        const planned = planner.read(scopeOf(info), targetType(info, field), info.fieldNodes);
        return { read: planned, options: optionsOf(planned) };
      });
      assertDepth(settled.depth + 1, read);
      const records = await Promise.all(ids.map((id) => loader.load(field.relation.target, options, id)));
      const found = records.filter((r): r is DataRecord => r !== null);
      settle(found, read.level, settled.depth + 1);
      return field.role === 'record' ? (records[0] ?? null) : found;
    };
    return (parent, _args, context, info) => planned(parent, context, info);
  };

  const reverse = (field: RelationField): Resolver => {
    const key = field.relation.name;
    return async (parent, args, context, info) => {
      const settled = settledOf(parent);
      const planned = settled.level.relations.get(key);
      if (planned) {
        const asked = loaderOf(context).memo(info.fieldNodes, () =>
          field.role === 'list' ? planner.reverseList(field, args).key : planner.reverseCount(field, args).key,
        );
        if ((field.role === 'list' ? planned.list : planned.count) === asked) return valueOf(field, parent);
      }
      const read = planner.readReverse(scopeOf(info), field, info.fieldNodes, args);
      assertDepth(settled.depth, read);
      const loaded = await loaderOf(context).load(field.object, optionsOf(read), String(parent.id));
      if (loaded) settle(loaded, read.level, settled.depth);
      return valueOf(field, loaded ?? {});
    };
  };

  const out: ResolverMap = {};
  for (const [type, fields] of relations) {
    const resolvers: Record<string, unknown> = {};
    for (const field of fields.values())
      resolvers[field.name] = field.role === 'record' || field.role === 'records' ? forward(field) : reverse(field);
    out[type] = resolvers;
  }
  return out;
}

function targetType(info: GraphQLResolveInfo, field: RelationField): GraphQLObjectType {
  return info.schema.getType(field.target.type) as GraphQLObjectType;
}

/** A reverse field's value on a record whose relation the engine expanded. */
function valueOf(field: RelationField, record: DataRecord): unknown {
  const name = field.relation.name;
  return field.role === 'count' ? (record[`${name}@count`] ?? 0) : (record[name] ?? []);
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
 * batch runs (once the promises under way have settled, after graphql-js has called the resolvers
 * of every row it has) is read in one engine query, `limits.maxTop` ids at a time.
 */
export class BatchLoader {
  private readonly batches = new Map<string, Batch>();
  private readonly memos = new WeakMap<object, unknown>();

  constructor(
    private readonly engine: DataEngine,
    private readonly request: RequestContext,
  ) {}

  /** What `make` answers, made once per request for `key` (a field's nodes: the same for every row). */
  memo<T>(key: object, make: () => T): T {
    if (!this.memos.has(key)) this.memos.set(key, make());
    return this.memos.get(key) as T;
  }

  load(object: string, options: FindOptions, id: string): Promise<DataRecord | null> {
    const key = `${object}\n${this.memo(options, () => JSON.stringify(options))}`;
    let batch = this.batches.get(key);
    if (!batch) {
      const created: Batch = { object, options, waiting: new Map() };
      this.batches.set(key, created);
      // After every promise already under way has settled (graphql-js reaches the rows of a level through promises), as DataLoader does.
      void Promise.resolve().then(() => process.nextTick(() => void this.run(key, created)));
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
