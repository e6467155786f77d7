/**
 * A query's selection as one engine read: the record fields it selects become `fields`, and its
 * relation fields (relations-sdl.ts) the kernel's `expand` map, nested as deep as the selection
 * is, so the engine reads each relation of each level in one query whatever the number of parent
 * rows, as the caller, at every level. A `<lookup>_record` expands its lookup `into` a key of its
 * own (the field's name), so the spec's lookup field keeps answering the id even where the related
 * record is out of the caller's sight (then `_record` is null). Fragments, @skip and @include are graphql-js's own
 * (collectSubfields), as is reading arguments with their variables (getArgumentValues).
 *
 * One expand key per relation: the first argument set met for a reverse relation (in document
 * order) is the one expanded, and every selection of the relation with those arguments reads it;
 * a selection with other arguments (an alias with another `top`, a count with another filter) is
 * read by the field's resolver through the per-request batch loader (relations-resolve.ts). Which
 * is which is written on the records (`settle`), so the resolvers never guess.
 */
import { getArgumentValues, type FieldNode, type FragmentDefinitionNode, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { collectSubfields } from 'graphql/execution/collectFields';
import type { DataRecord, ExpandOptions } from '../../kernel';
import type { RelationField, RelationFields } from './relations-sdl';
import { listFindOptions, type ListArgs, type SelectionReader } from './resolvers';
import { withTypedArgs, type TypedArgs, type TypedQuery } from './typed-args';

/** The arguments of a reverse list or count field. */
export type RelationArgs = ListArgs & TypedArgs;

/** Expand options of a relation, reverse ones included (the kernel's contract: skip, count). */
export type RelationExpand = ExpandOptions & { skip?: number; count?: boolean; expand?: Record<string, RelationExpand> };

/** What a resolver knows of the query it runs in. */
export interface SelectionScope {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  variableValues: Record<string, unknown>;
}

/** What was expanded for the records of one level, by expand key (the relation's name). */
export interface PlanLevel {
  readonly relations: ReadonlyMap<string, PlannedRelation>;
}

export interface PlannedRelation {
  /** Forward relations: the key the related record was expanded into (the `_record(s)` field's name). */
  readonly forward?: string;
  /** The key of the list arguments expanded (reverse relations). */
  readonly list?: string;
  /** The key of the count filter expanded (reverse relations). */
  readonly count?: string;
  readonly child: PlanLevel;
}

/** What the engine read for a record: the plan of its level and how many relations deep it is. */
export interface Settled {
  level: PlanLevel;
  depth: number;
}

const SETTLED = Symbol('objectql.graphql.settled');

/** The read of one selection: engine options, and `settle` to apply to what the engine answers. */
export interface SelectionRead {
  fields: string[];
  expand?: Record<string, RelationExpand>;
  level: PlanLevel;
}

export interface ReverseOptions {
  /** Equal for two selections exactly when they ask the same rows. */
  key: string;
  options: RelationExpand;
  /** Fields named by the `fields` argument. */
  fields: string[];
}

interface Accumulated {
  fields: Set<string>;
  relations: Map<string, AccumulatedRelation>;
}

interface AccumulatedRelation {
  forward?: string;
  list?: ReverseOptions;
  count?: ReverseOptions;
  child: Accumulated;
}

/** The key a list's filter would have as a count: a list and a count share one expand when they filter alike. */
function filterKey(options: RelationExpand): string {
  const only: RelationExpand = {};
  if (options.filters !== undefined) only.filters = options.filters;
  if (options.filter !== undefined) only.filter = options.filter;
  return JSON.stringify(only);
}

export class SelectionPlanner {
  constructor(
    private readonly relations: RelationFields,
    private readonly maxJsonDepth: number,
    /** What typed `where` and `orderBy` arguments compile against (typed-schema.ts). */
    private readonly typed?: TypedQuery,
  ) {}

  /** The options a reverse list field's arguments ask for: the list query's own rules (listFindOptions, withTypedArgs). */
  reverseList(field: RelationField, args: RelationArgs): ReverseOptions {
    const listed = listFindOptions(args, [], this.maxJsonDepth);
    const find = this.typed ? withTypedArgs(field.relation.target, listed, args, this.typed) : listed;
    const options: RelationExpand = {};
    if (find.top !== undefined) options.top = find.top;
    if (find.skip !== undefined) options.skip = find.skip;
    if (find.filters !== undefined) options.filters = find.filters;
    if (find.filter !== undefined) options.filter = find.filter;
    if (find.sort !== undefined) options.sort = find.sort;
    return { key: JSON.stringify(options), options, fields: find.fields ?? [] };
  }

  /** The options a reverse count field's arguments ask for: the list's filter arguments. */
  reverseCount(field: RelationField, args: RelationArgs): ReverseOptions {
    const listed = listFindOptions({ filters: args.filters }, [], this.maxJsonDepth);
    const find = this.typed ? withTypedArgs(field.relation.target, listed, { where: args.where }, this.typed) : listed;
    const options: RelationExpand = {};
    if (find.filters !== undefined) options.filters = find.filters;
    if (find.filter !== undefined) options.filter = find.filter;
    return { key: JSON.stringify(options), options, fields: [] };
  }

  /** The read of what `nodes` select on `type`. */
  read(scope: SelectionScope, type: GraphQLObjectType, nodes: readonly FieldNode[]): SelectionRead {
    const top = this.accumulate(scope, type, nodes, { fields: new Set(['id']), relations: new Map() });
    return this.build(top);
  }

  /** The read of one reverse relation of a parent, as the batch loader makes it: the parent's id and that relation expanded. */
  readReverse(scope: SelectionScope, field: RelationField, nodes: readonly FieldNode[], args: RelationArgs): SelectionRead {
    const child: Accumulated = { fields: new Set(['id']), relations: new Map() };
    const planned: AccumulatedRelation = { child };
    if (field.role === 'count') planned.count = this.reverseCount(field, args);
    else {
      planned.list = this.reverseList(field, args);
      for (const f of planned.list.fields) child.fields.add(f);
      this.accumulate(scope, scope.schema.getType(field.target.type) as GraphQLObjectType, nodes, child);
    }
    return this.build({ fields: new Set(['id']), relations: new Map([[field.relation.name, planned]]) });
  }

  private accumulate(scope: SelectionScope, type: GraphQLObjectType, nodes: readonly FieldNode[], into: Accumulated): Accumulated {
    const own = this.relations.get(type.name);
    for (const group of collectSubfields(scope.schema, scope.fragments, scope.variableValues, type, nodes).values()) {
      const name = group[0].name.value;
      if (name.startsWith('__')) continue;
      const field = own?.get(name);
      if (!field) {
        into.fields.add(name);
        continue;
      }
      if (field.role === 'record' || field.role === 'records') {
        into.fields.add(field.relation.field);
        let planned = into.relations.get(field.relation.field);
        if (!planned) {
          planned = { forward: name, child: { fields: new Set(['id']), relations: new Map() } };
          into.relations.set(field.relation.field, planned);
        }
        this.accumulate(scope, scope.schema.getType(field.target.type) as GraphQLObjectType, group, planned.child);
        continue;
      }
      const target = scope.schema.getType(field.target.type) as GraphQLObjectType;
      const key = field.relation.name;
      let planned = into.relations.get(key);
      if (!planned) {
        planned = { child: { fields: new Set(['id']), relations: new Map() } };
        into.relations.set(key, planned);
      }
      const args = () => getArgumentValues(type.getFields()[name], group[0], scope.variableValues) as RelationArgs;
      if (field.role === 'list') {
        const list = this.reverseList(field, args());
        if (!planned.list && (!planned.count || planned.count.key === filterKey(list.options))) planned.list = list;
        // Another argument set: its resolver loads it on its own.
        if (planned.list?.key !== list.key) continue;
        for (const f of list.fields) planned.child.fields.add(f);
        this.accumulate(scope, target, group, planned.child);
      } else {
        const count = this.reverseCount(field, args());
        if (!planned.count && (!planned.list || filterKey(planned.list.options) === count.key)) planned.count = count;
      }
    }
    return into;
  }

  private build(level: Accumulated): SelectionRead {
    const expand: Record<string, RelationExpand> = {};
    const relations = new Map<string, PlannedRelation>();
    for (const [key, planned] of level.relations) {
      if (!planned.list && !planned.count && !planned.forward) continue;
      const child = this.build(planned.child);
      // The engine reads `id` of every related record anyway.
      const nested = { fields: child.fields.filter((f) => f !== 'id'), ...(child.expand ? { expand: child.expand } : {}) };
      if (planned.forward) {
        expand[key] = { ...nested, into: planned.forward };
        relations.set(key, { forward: planned.forward, child: child.level });
        continue;
      }
      if (planned.list) expand[key] = { ...planned.list.options, ...nested, ...(planned.count ? { count: true } : {}) };
      // Only counted: no rows.
      else expand[key] = { ...planned.count!.options, top: 0, count: true, fields: [] };
      relations.set(key, { list: planned.list?.key, count: planned.count?.key, child: child.level });
    }
    return {
      fields: [...level.fields],
      ...(Object.keys(expand).length ? { expand } : {}),
      level: { relations },
    };
  }
}

/**
 * Writes on each record what was expanded for it (its level of the plan) and how deep it is,
 * following the expanded relations down; answers `records` as they are.
 */
export function settle<T>(records: T, level: PlanLevel, depth = 0): T {
  const list: unknown[] = Array.isArray(records) ? records : [records];
  for (const record of list) {
    if (!record || typeof record !== 'object') continue;
    // One record object may answer several parents (the batch loader's): the deepest counts.
    const before = (record as Record<symbol, Settled | undefined>)[SETTLED];
    (record as Record<symbol, Settled>)[SETTLED] = { level, depth: Math.max(depth, before?.depth ?? 0) };
    for (const [key, planned] of level.relations) settle((record as DataRecord)[planned.forward ?? key], planned.child, depth + 1);
  }
  return records;
}

/** What `settle` wrote on a record; a record no root read settled (a subscription's) is at depth 0 with nothing expanded. */
export function settledOf(record: unknown): Settled {
  const found = record && typeof record === 'object' ? (record as Record<symbol, Settled | undefined>)[SETTLED] : undefined;
  return found ?? { level: { relations: new Map() }, depth: 0 };
}

/** How many relation levels an expand map reaches. */
export function expandDepth(expand: Record<string, RelationExpand> | undefined): number {
  let deepest = 0;
  for (const options of Object.values(expand ?? {})) deepest = Math.max(deepest, 1 + expandDepth(options.expand));
  return deepest;
}

/** The root resolvers' reader (resolvers.ts): the selection under `info` on `typeName` as fields and expand. */
export function selectionReader(planner: SelectionPlanner): SelectionReader {
  return (info, typeName) => {
    const scope = { schema: info.schema, fragments: info.fragments, variableValues: info.variableValues };
    const read = planner.read(scope, info.schema.getType(typeName) as GraphQLObjectType, info.fieldNodes);
    return {
      fields: read.fields,
      ...(read.expand ? { expand: read.expand } : {}),
      settle: (records) => settle(records, read.level),
    };
  };
}
