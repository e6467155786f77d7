/**
 * The typed arguments `where` and `orderBy` beside the spec's JSON `filters` and `sort`
 * (docs/graphql.md, "Typed filters" and "Typed sorting"): `where` is and-ed with `filters`;
 * `orderBy` stands for `sort`, and both given is INVALID_REQUEST (which would come first is not
 * obvious). One rule for `<object>List`, `<object>Page`, `<object>Count` and `<object>Aggregate`.
 */
import { andFilters, ObjectQLError, type FindOptions, type RequestFilter } from '../../kernel';
import { compileOrderBy, type OrderShapes } from './order-by';
import { compileWhere, type WhereLimits, type WhereShapes } from './where';

/** What the typed arguments of every object compile against. */
export interface TypedQuery {
  where: WhereShapes;
  orderBy: OrderShapes;
  limits: WhereLimits;
}

export interface TypedArgs {
  where?: unknown;
  orderBy?: unknown;
  sort?: unknown;
}

/** The typed list arguments as SDL, to follow `filters` and `sort`. */
export function typedListArguments(filter: string, orderBy: string): string {
  return `where: ${filter}, orderBy: [${orderBy}!]`;
}

/** `options` (from the JSON arguments) with `where` and `orderBy` of `args` added. */
export function withTypedArgs(object: string, options: FindOptions, args: TypedArgs, typed: TypedQuery): FindOptions {
  const where = compileWhere(object, args.where, typed.where, typed.limits);
  const sort = compileOrderBy(object, args.orderBy, typed.orderBy);
  if (sort !== undefined && args.sort !== undefined && args.sort !== null)
    throw new ObjectQLError('INVALID_REQUEST', "Give 'sort' or 'orderBy', not both", { parameter: 'orderBy' });
  const out: FindOptions = { ...options };
  if (where !== undefined) out.filter = andFilters<RequestFilter>(options.filter, where);
  if (sort !== undefined) out.sort = sort;
  return out;
}
