/**
 * REST query strings → the engine's find options. Pure: it takes the decoded parameter pairs (a
 * URLSearchParams or any list of [name, value]) and the kernel's filter limits; no HTTP here.
 *
 * Only the string syntax is REST's own: a parameter is never silently ignored, and an unknown
 * name, a scalar given twice or a value that does not parse is INVALID_REQUEST naming the
 * parameter (details.parameter). The decoded values then go through the shared protocol layer's
 * `listOptions` (top and its alias limit) and the engine (bounds such as maxTop), which answer the
 * same input from every protocol with the same message.
 */
import { ObjectQLError, type ExpandOptions, type FindOptions, type ResolvedConfig, type SortInput } from '../../kernel';
import { assertJsonTextDepth, assertSpecExpand, listOptions, parseFilter, parseSort, type ListInput } from '../../kernel/protocol';

export type QueryPairs = Iterable<readonly [string, string]>;
/** The kernel's limits this parsing applies; maxJsonDepth bounds every JSON-form parameter before it is parsed. */
export type QueryLimits = Pick<ResolvedConfig['limits'], 'maxFilterDepth' | 'maxFilterConditions'> &
  Partial<Pick<ResolvedConfig['limits'], 'maxJsonDepth'>>;

/** Parameters of GET /:object. */
export const LIST_PARAMS = ['filter', 'sort', 'top', 'skip', 'limit', 'fields', 'expand', 'groupBy', 'aggregate'] as const;
/** Parameters of GET /:object/:id. */
export const RECORD_PARAMS = ['fields', 'expand'] as const;
/** These may repeat (`fields=a&fields=b`): the values add up as one comma list. Every other parameter is given once. */
const REPEATABLE = new Set(['sort', 'fields', 'groupBy']);

type Params = Map<string, string[]>;

export function invalidParam(name: string, problem: string): ObjectQLError {
  return new ObjectQLError('INVALID_REQUEST', `Query parameter '${name}' ${problem}`, { parameter: name });
}

/** Groups the pairs by name; unknown names are one error naming all of them. */
export function collectParams(pairs: QueryPairs, allowed: readonly string[], where: string): Params {
  const params: Params = new Map();
  for (const [name, value] of pairs) {
    const values = params.get(name);
    if (values) values.push(value);
    else params.set(name, [value]);
  }
  const unknown = [...params.keys()].filter((name) => !allowed.includes(name));
  if (unknown.length) {
    const names = unknown.map((n) => `'${n}'`).join(', ');
    const expected = allowed.length ? `; ${where} accepts ${allowed.join(', ')}` : `; ${where} takes no query parameters`;
    throw new ObjectQLError('INVALID_REQUEST', `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${names}${expected}`, {
      parameters: unknown,
    });
  }
  for (const [name, values] of params) {
    if (values.length > 1 && !REPEATABLE.has(name)) throw invalidParam(name, `is given ${values.length} times; give it once`);
  }
  return params;
}

/** GET /:object → find options. */
export function parseListQuery(pairs: QueryPairs, limits: QueryLimits): FindOptions {
  return listOptions(decodeListQuery(checkedDepth(collectParams(pairs, LIST_PARAMS, 'a list request'), limits), limits));
}

/** Every parameter nested no deeper than limits.maxJsonDepth, measured on its text before anything parses it. */
function checkedDepth(params: Params, limits: Partial<Pick<QueryLimits, 'maxJsonDepth'>>): Params {
  const max = limits.maxJsonDepth;
  if (max === undefined) return params;
  for (const [name, values] of params) {
    for (const value of values) assertJsonTextDepth(value, max, `Query parameter '${name}'`);
  }
  return params;
}

/** The list parameters' strings → values; absent parameters stay undefined. */
function decodeListQuery(params: Params, limits: QueryLimits): ListInput {
  const filter = params.get('filter')?.[0];
  const sort = params.get('sort');
  const groupBy = params.get('groupBy');
  const aggregate = params.get('aggregate')?.[0];
  return {
    filters: filter === undefined ? undefined : parseFilterParam(filter, limits),
    sort: sort ? parseSortParam(sort) : undefined,
    top: integerParam(params, 'top'),
    limit: integerParam(params, 'limit'),
    skip: integerParam(params, 'skip'),
    ...parseRecordParams(params),
    groupBy: groupBy ? parseNameList('groupBy', groupBy) : undefined,
    aggregate: aggregate === undefined ? undefined : parseAggregateParam(aggregate),
  };
}

/** GET /:object/:id → the fields and expand of that one record. */
export function parseRecordQuery(
  pairs: QueryPairs,
  limits: Partial<Pick<QueryLimits, 'maxJsonDepth'>> = {},
): Pick<FindOptions, 'fields' | 'expand'> {
  return parseRecordParams(checkedDepth(collectParams(pairs, RECORD_PARAMS, 'a record request'), limits));
}

/** Writes take their input from the body: any query parameter is an error. */
export function assertNoQuery(pairs: QueryPairs): void {
  collectParams(pairs, [], 'a write request');
}

function parseRecordParams(params: Params): Pick<FindOptions, 'fields' | 'expand'> {
  const out: Pick<FindOptions, 'fields' | 'expand'> = {};
  const fields = params.get('fields');
  if (fields) out.fields = parseNameList('fields', fields);
  const expand = params.get('expand')?.[0];
  if (expand !== undefined) out.expand = parseExpandParam(expand);
  return out;
}

function parseJson(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw invalidParam(name, `is not valid JSON: ${(err as Error).message}`);
  }
}

/** The spec's filter (docs/spec.md, "Filter expression"), JSON-encoded: array form or map form. Checked here for shape; the engine checks fields and values. */
export function parseFilterParam(raw: string, limits: Pick<QueryLimits, 'maxFilterDepth' | 'maxFilterConditions'>): unknown {
  const value = parseJson('filter', raw);
  if (value === null || typeof value !== 'object')
    throw invalidParam('filter', 'must be a JSON array of conditions or a JSON object of field values');
  try {
    parseFilter(value, { maxDepth: limits.maxFilterDepth, maxConditions: limits.maxFilterConditions });
  } catch (err) {
    if (err instanceof ObjectQLError) throw invalidParam('filter', `is not a valid filter: ${err.message}`);
    throw err;
  }
  return value;
}

/**
 * `price`, `-price`, `+price`, `price desc`, `price asc`, comma lists of those (`-price,name`,
 * `price desc, name asc`), repeated `sort` parameters in order; or the JSON array form of JSON-RPC.
 */
export function parseSortParam(values: string[]): SortInput {
  if (values.some((v) => v.trimStart().startsWith('['))) {
    if (values.length > 1) throw invalidParam('sort', 'in JSON form must be given once');
    const value = parseJson('sort', values[0]);
    if (!Array.isArray(value)) throw invalidParam('sort', 'in JSON form must be an array such as [["name", "asc"]]');
    return value as SortInput;
  }
  // Repeated parameters sort in order; the kernel reads the syntax (and names 'sort' in its errors).
  return parseSort(values.join(','));
}

/** A JSON array of {func, field, alias}; the engine checks the entries. */
function parseAggregateParam(raw: string): unknown[] {
  const specs = parseJson('aggregate', raw);
  if (!Array.isArray(specs)) throw invalidParam('aggregate', 'must be a JSON array of {func, field, alias}');
  return specs;
}

function integerParam(params: Params, name: string): number | undefined {
  const raw = params.get(name)?.[0];
  if (raw === undefined) return undefined;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value)) throw invalidParam(name, `must be a non-negative integer, got '${raw}'`);
  return value;
}

/** Field names: a comma list (repeatable), or a JSON array of strings. */
export function parseNameList(name: string, values: string[]): string[] {
  if (values.length === 1 && values[0].trimStart().startsWith('[')) {
    const list = parseJson(name, values[0]);
    if (!Array.isArray(list) || !list.every((f) => typeof f === 'string' && f !== ''))
      throw invalidParam(name, 'in JSON form must be an array of field names');
    return list as string[];
  }
  const names: string[] = [];
  for (const value of values) {
    for (const part of value.split(',')) {
      const field = part.trim();
      if (!field || /\s/.test(field))
        throw invalidParam(name, `has an invalid entry '${part}' in '${value}': use a comma list of field names`);
      names.push(field);
    }
  }
  return names;
}

/**
 * A JSON map as JSON-RPC's expand (`{"account": {"fields": ["name"]}}`), or a comma list of
 * relation fields meaning `{field: {}}`; a dotted path expands a level deeper (`project.account`).
 */
export function parseExpandParam(raw: string): Record<string, ExpandOptions> {
  if (raw.trimStart().startsWith('{')) {
    const value = parseJson('expand', raw);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidParam('expand', 'must be a JSON object');
    assertSpecExpand(value);
    return value as Record<string, ExpandOptions>;
  }
  // Built on Maps: a segment such as '__proto__' stays a plain name (the engine reports it as unknown).
  const tree = new Map<string, ExpandTree>();
  for (const path of parseNameList('expand', [raw])) {
    let level = tree;
    for (const segment of path.split('.')) {
      if (!segment) throw invalidParam('expand', `has an invalid path '${path}'`);
      const next = level.get(segment) ?? new Map<string, ExpandTree>();
      level.set(segment, next);
      level = next;
    }
  }
  return toExpand(tree);
}

type ExpandTree = Map<string, ExpandTree>;

function toExpand(tree: ExpandTree): Record<string, ExpandOptions> {
  return Object.fromEntries([...tree].map(([name, sub]) => [name, sub.size ? { expand: toExpand(sub) } : {}]));
}
