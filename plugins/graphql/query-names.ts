/**
 * The names of the typed query surface added beside the spec's (docs/graphql.md, "Typed filters,
 * sorting, counts, aggregates and pages"): for object `project` (type `Project`) the inputs
 * `ProjectFilter`, `ProjectRelationFilter` and `ProjectOrderBy`, the enum `ProjectField`, the types
 * `ProjectAggregateRow`, `ProjectAggregateValues`, `ProjectAggregateCounts`,
 * `ProjectAggregateNumbers` and `ProjectPage`, and the queries `projectCount`, `projectAggregate`
 * and `projectPage`; shared by every object: the operator inputs `StringFilter`, `FloatFilter`,
 * `IntFilter`, `BooleanFilter` and the enum `OrderDirection`.
 *
 * Checked like naming.ts checks the spec's names: a name another object (or the spec's surface)
 * maps to as well stops start-up with a PluginError naming both. Pure.
 */
import { PluginError, type ObjectDefinition } from '../../kernel';
import { RESERVED_TYPES, type ObjectNames } from './naming';

/** The operator inputs and the direction enum, one of each for the whole schema. */
export const SHARED_TYPES = ['StringFilter', 'FloatFilter', 'IntFilter', 'BooleanFilter', 'OrderDirection'] as const;

export interface QueryNames {
  object: string;
  type: string;
  filter: string;
  relationFilter: string;
  orderBy: string;
  field: string;
  aggregateRow: string;
  aggregateValues: string;
  aggregateCounts: string;
  aggregateNumbers: string;
  page: string;
  count: string;
  aggregate: string;
  pageQuery: string;
}

export function queryNames(names: ObjectNames): QueryNames {
  const t = names.type;
  return {
    object: names.object,
    type: t,
    filter: `${t}Filter`,
    relationFilter: `${t}RelationFilter`,
    orderBy: `${t}OrderBy`,
    field: `${t}Field`,
    aggregateRow: `${t}AggregateRow`,
    aggregateValues: `${t}AggregateValues`,
    aggregateCounts: `${t}AggregateCounts`,
    aggregateNumbers: `${t}AggregateNumbers`,
    page: `${t}Page`,
    count: `${names.object}Count`,
    aggregate: `${names.object}Aggregate`,
    pageQuery: `${names.object}Page`,
  };
}

type Claims = Map<string, string>;

function claim(map: Claims, name: string, owner: string, what: string): void {
  const other = map.get(name);
  if (other !== undefined)
    throw new PluginError(`Plugin 'graphql': ${owner} maps to the ${what} '${name}', which ${other} maps to as well; rename one of them`);
  map.set(name, owner);
}

/**
 * The typed names of every object (`names` from naming.ts's namesOf, same order), checked against
 * each other and against the spec's names: types and inputs (subscriptions' `<Type>Where`
 * included) and root fields.
 */
export function queryNamesOf(objects: ObjectDefinition[], names: ObjectNames[]): QueryNames[] {
  const types: Claims = new Map(RESERVED_TYPES.map((t) => [t, `the built-in type ${t}`]));
  for (const t of SHARED_TYPES) types.set(t, `the operator input ${t}`);
  const roots: Claims = new Map();
  objects.forEach((def, i) => {
    const n = names[i];
    const owner = `object '${def.name}'`;
    for (const t of [n.type, n.input, `${n.type}Where`]) claim(types, t, owner, 'type');
    for (const r of [n.one, n.list, n.create, n.update, n.delete]) claim(roots, r, owner, 'root field');
  });
  return objects.map((def, i) => {
    const q = queryNames(names[i]);
    const owner = `object '${def.name}'`;
    for (const t of [
      q.filter,
      q.relationFilter,
      q.orderBy,
      q.field,
      q.aggregateRow,
      q.aggregateValues,
      q.aggregateCounts,
      q.aggregateNumbers,
      q.page,
    ])
      claim(types, t, owner, 'type');
    for (const r of [q.count, q.aggregate, q.pageQuery]) claim(roots, r, owner, 'root field');
    return q;
  });
}

/** Input fields of one generated input type, checked: two that would share a name stop start-up naming both. */
export class InputFields {
  private readonly claimed: Claims = new Map();

  constructor(private readonly typeName: string) {}

  add(name: string, owner: string): void {
    const other = this.claimed.get(name);
    if (other !== undefined)
      throw new PluginError(
        `Plugin 'graphql': ${owner} maps to '${name}' of the input ${this.typeName}, which ${other} maps to as well; rename one of them`,
      );
    this.claimed.set(name, owner);
  }
}
