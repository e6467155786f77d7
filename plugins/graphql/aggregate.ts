/**
 * `<object>Aggregate` (aggregate-sdl.ts): the aggregates a query selects on the rows — `count`,
 * `sum { budget }`, `min { due_at }`, ... — become the engine's aggregate entries, run through
 * `repo.aggregate` as the caller, so JSON-RPC's rules apply (a group or aggregate on a field the
 * caller may not read is refused as an unknown field; sum and avg need numeric fields), and the
 * rows come back shaped as selected.
 */
import { ObjectQLError, type AggregateFunc, type AggregateSpec, type DataEngine, type DataRecord } from '../../kernel';
import type { QueryNames } from './query-names';
import { listFindOptions, type ResolverFn } from './resolvers';
import { subSelections } from './sub-selection';
import { withTypedArgs, type TypedArgs, type TypedQuery } from './typed-args';

/** The row parts that hold one value per field. */
const PER_FIELD: readonly AggregateFunc[] = ['countdistinct', 'sum', 'avg', 'min', 'max'];

interface AggregateArgs extends TypedArgs {
  filters?: string | null;
  groupBy?: string[] | null;
  top?: number | null;
  skip?: number | null;
}

export function aggregateResolver(engine: DataEngine, q: QueryNames, typed: TypedQuery): ResolverFn {
  const depth = engine.limits.maxJsonDepth;
  return async (_p, raw, context, info) => {
    const args = raw as AggregateArgs;
    const groupBy = [...new Set(args.groupBy ?? [])];
    const selected = subSelections(info.fieldNodes, info);
    // Aliases of the engine's rows: never a groupBy field's name, which holds the group's value.
    let n = 0;
    const alias = (): string => {
      let a: string;
      do a = `agg_${n++}`;
      while (groupBy.includes(a));
      return a;
    };
    const specs: AggregateSpec[] = [];
    const countAlias = selected.has('count') ? alias() : undefined;
    if (countAlias) specs.push({ func: 'count', alias: countAlias });
    for (const func of PER_FIELD) {
      const nodes = selected.get(func);
      if (!nodes) continue;
      for (const field of subSelections(nodes, info).keys()) specs.push({ func, field, alias: alias() });
    }
    // Nothing to compute and nothing to group by: the rows still have a count.
    if (!specs.length && !groupBy.length) specs.push({ func: 'count', alias: alias() });

    const base = listFindOptions({ filters: args.filters, top: args.top, skip: args.skip }, [], depth);
    const options = withTypedArgs(q.object, base, args, typed);
    for (const key of Array.isArray(options.sort) ? options.sort : []) {
      const field = typeof key === 'object' && !Array.isArray(key) ? key.field : undefined;
      if (field !== undefined && !groupBy.includes(field))
        throw new ObjectQLError('INVALID_REQUEST', `orderBy of ${q.aggregate} may name groupBy fields only, not '${field}'`, {
          parameter: 'orderBy',
          field,
        });
    }
    const rows = await engine.repo(q.object, context.request).aggregate({
      filters: options.filters,
      filter: options.filter,
      sort: options.sort,
      top: options.top,
      skip: options.skip,
      groupBy,
      aggregate: specs,
    });
    return rows.map((row) => shape(row, groupBy, specs, countAlias));
  };
}

/** One engine row as the GraphQL row: {group, count, sum: {field: value}, ...}. */
function shape(row: DataRecord, groupBy: string[], specs: AggregateSpec[], countAlias: string | undefined): DataRecord {
  const out: Record<string, unknown> = { group: Object.fromEntries(groupBy.map((f) => [f, row[f]])) };
  if (countAlias) out.count = row[countAlias];
  for (const func of PER_FIELD) out[func] = {};
  for (const spec of specs) {
    if (spec.field !== undefined) (out[spec.func] as DataRecord)[spec.field] = row[spec.alias];
  }
  return out;
}
