/**
 * The typed query surface of every object, beside the spec's (docs/graphql.md): filter and sort
 * inputs (where-sdl.ts, order-by.ts), the `where` / `orderBy` arguments of `<object>List`,
 * `<object>Count`, `<object>Page` (page.ts) and `<object>Aggregate` (aggregate-sdl.ts,
 * aggregate.ts). schema.ts adds what this returns to the generated schema.
 */
import { relationsOf, type DataEngine, type ObjectDefinition } from '../../kernel';
import { aggregateResolver } from './aggregate';
import { aggregateSdl } from './aggregate-sdl';
import type { ObjectNames } from './naming';
import { ORDER_DIRECTION, orderBySdl, type OrderKey } from './order-by';
import { pageResolvers, pageSdl } from './page';
import { queryNamesOf, type QueryNames } from './query-names';
import type { ResolverFn } from './resolvers';
import { typedListArguments, type TypedQuery } from './typed-args';
import { relationFilterSdl, SCALAR_FILTERS, whereSdl, type WhereKey } from './where-sdl';

export interface TypedSchema {
  /** The typed names of each object, in the order of the objects. */
  names: QueryNames[];
  /** What `where` and `orderBy` compile against. */
  typed: TypedQuery;
  /** The `where` and `orderBy` arguments of each object's list, as SDL. */
  listArguments: string[];
  types: string[];
  queries: string[];
  /** Resolvers of the added root query fields. */
  query: Record<string, ResolverFn>;
}

export function typedSchema(objects: ObjectDefinition[], names: ObjectNames[], engine: DataEngine): TypedSchema {
  const q = queryNamesOf(objects, names);
  const byObject = new Map(q.map((n) => [n.object, n]));
  const namesOf = (object: string) => byObject.get(object);
  const relations = relationsOf(objects);
  const where = new Map<string, Map<string, WhereKey>>();
  const orderBy = new Map<string, Map<string, OrderKey>>();
  const types = [SCALAR_FILTERS, ORDER_DIRECTION];
  const queries: string[] = [];
  // Objects some relation reaches through several records: they need a <Type>RelationFilter.
  const reachedByMany = new Set<string>();
  objects.forEach((def, i) => {
    const own = relations.get(def.name) ?? [];
    for (const r of own) if (r.kind !== 'one') reachedByMany.add(r.target);
    const w = whereSdl(def, q[i], own, namesOf);
    const o = orderBySdl(def, q[i], own, namesOf);
    where.set(def.name, w.keys);
    orderBy.set(def.name, o.keys);
    const page = pageSdl(q[i]);
    const aggregate = aggregateSdl(def, q[i]);
    types.push(w.sdl, o.sdl, page.types, aggregate.types);
    queries.push(...page.queries, ...aggregate.queries);
  });
  for (const n of q) if (reachedByMany.has(n.object)) types.push(relationFilterSdl(n));
  const typed: TypedQuery = {
    where,
    orderBy,
    limits: { maxFilterDepth: engine.limits.maxFilterDepth, maxFilterConditions: engine.limits.maxFilterConditions },
  };
  const query: Record<string, ResolverFn> = {};
  for (const n of q) Object.assign(query, pageResolvers(engine, n, typed), { [n.aggregate]: aggregateResolver(engine, n, typed) });
  return { names: q, typed, listArguments: q.map((n) => typedListArguments(n.filter, n.orderBy)), types, queries, query };
}
