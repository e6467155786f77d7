/**
 * A list request's options — top (and its deprecated alias limit), skip, sort, fields, filters,
 * expand, groupBy, aggregate — as every protocol hands them to the engine, by one set of rules
 * with one message each. A protocol first decodes its own syntax (REST query strings, GraphQL
 * arguments, JSON-RPC args) into these values; what the values mean (known fields, operators,
 * bounds) is the engine's to check, again with one message for every protocol.
 */
import { ObjectQLError } from '../errors';
import { assertSpecExpand } from '../engine/expand';
import type { ExpandOptions, FindOptions, SortInput } from '../engine/types';
import type { AggregateSpec } from '../query/ast';

/** The options as decoded from a protocol's request; absent and null both mean "not given". */
export interface ListInput {
  top?: unknown;
  /** Deprecated alias of `top` (docs/spec.md, "Versioning": kept for REST and GraphQL; JSON-RPC accepts it too). */
  limit?: unknown;
  skip?: unknown;
  sort?: unknown;
  /** Field names; null entries (a GraphQL list may hold them) are dropped. */
  fields?: unknown;
  filters?: unknown;
  expand?: unknown;
  groupBy?: unknown;
  aggregate?: unknown;
}

/** The find options of a list request; throws INVALID_REQUEST naming the option that is wrong. */
export function listOptions(input: ListInput): FindOptions {
  const options: FindOptions = {};
  const top = topOf(input.top, input.limit);
  if (top !== undefined) options.top = top as number;
  if (given(input.skip)) options.skip = input.skip as number;
  if (given(input.sort)) options.sort = input.sort as SortInput;
  if (given(input.fields))
    options.fields = Array.isArray(input.fields) ? input.fields.filter((f) => f !== null) : (input.fields as string[]);
  if (given(input.filters)) options.filters = input.filters;
  if (given(input.expand)) {
    assertSpecExpand(input.expand);
    options.expand = input.expand as Record<string, ExpandOptions>;
  }
  if (given(input.groupBy)) options.groupBy = input.groupBy as string[];
  if (given(input.aggregate)) options.aggregate = input.aggregate as AggregateSpec[];
  return options;
}

/**
 * `top`, or `limit` standing for it. Both given must be the same value: a request saying two
 * different page sizes is refused rather than one of them silently winning.
 */
function topOf(top: unknown, limit: unknown): unknown {
  if (!given(limit)) return given(top) ? top : undefined;
  if (given(top) && top !== limit) {
    throw new ObjectQLError(
      'INVALID_REQUEST',
      `'top' (${JSON.stringify(top)}) and 'limit' (${JSON.stringify(limit)}) disagree: 'limit' is a deprecated alias of 'top'; give one of them`,
      { parameter: 'limit' },
    );
  }
  return limit;
}

function given(value: unknown): boolean {
  return value !== undefined && value !== null;
}
