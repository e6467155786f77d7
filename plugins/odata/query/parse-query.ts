/**
 * The query options of an OData request → the engine's find options. Pure: no HTTP, no engine.
 *
 * Policy:
 * - System query options ($-prefixed, case-sensitive as in OData 4.0): $filter, $select, $orderby,
 *   $top, $skip, $count, $expand, $search are read here; $format (the response format), $apply
 *   and $compute are the service's (query/apply.ts, query/compute.ts) and passed over. Any other $-option is INVALID_REQUEST naming it, and so is an option
 *   given twice.
 * - Custom query options (no `$`) are allowed and ignored, as OData specifies; `@` parameter
 *   aliases among them are not supported (a $filter using one is refused).
 * - Property names are checked against the object as the caller sees it: a hidden field is as
 *   unknown as a missing one. Values are checked by the engine (types, select options, ...).
 */
import { andFilters, type Filter, type FindOptions, type RequestFilter } from '../../../kernel';
import { optionError, type Source } from './errors';
import { parseExpand } from './expand';
import { parseFilterExpression, type FilterContext, type FilterLimits } from './filter';
import { navigationLookup } from './navigation';
import { parseOrderBy } from './orderby';
import { parseSearch } from './search';
import { parseSelect } from './select';
import type { ODataQuery, ODataQuerySettings, ODataQueryTarget } from './types';
import { nonNegativeInteger } from './values';

/** The options this parser reads. */
export const QUERY_OPTIONS = ['$filter', '$select', '$orderby', '$top', '$skip', '$count', '$expand', '$search'] as const;
/** Options the service reads itself; the parser lets them through. */
export const SERVICE_OPTIONS = ['$format', '$apply', '$compute'] as const;
/** OData options this service does not implement. */
const UNSUPPORTED = ['$skiptoken', '$deltatoken', '$levels', '$index', '$schemaversion', '$id'];

export const DEFAULT_FILTER_LIMITS: FilterLimits = { maxDepth: 16, maxConditions: 200 };

export function parseODataQuery(params: URLSearchParams, target: ODataQueryTarget, settings: ODataQuerySettings): ODataQuery {
  const options = collect(params);
  const object = target.object;
  // Navigation paths and lambdas follow at most as many navigation properties as $expand nests.
  const limits: FilterContext = {
    maxDepth: settings.maxFilterDepth ?? DEFAULT_FILTER_LIMITS.maxDepth,
    maxConditions: settings.maxFilterConditions ?? DEFAULT_FILTER_LIMITS.maxConditions,
    navigation: navigationLookup(target),
    maxNavigationDepth: settings.maxExpandDepth,
  };
  const source = (option: string): Source => ({ text: options.get(option)!, where: option, target: option });
  const find: FindOptions = {};
  const query: ODataQuery = { find, count: false };

  if (options.has('$select')) {
    const select = parseSelect(source('$select'), object);
    if (select.fields) find.fields = select.fields;
    query.select = select.names;
  }
  let filter: RequestFilter | undefined;
  if (options.has('$filter')) filter = parseFilterExpression(source('$filter'), object, limits);
  let search: Filter | undefined;
  if (options.has('$search')) {
    if (!settings.enableSearch) throw optionError('$search', 'is disabled on this service');
    search = parseSearch(source('$search'), object, limits);
  }
  const both = andFilters<RequestFilter>(filter, search);
  if (both) find.filter = both;
  if (options.has('$orderby')) find.sort = parseOrderBy(source('$orderby'), object, undefined, undefined, limits);
  const top = integerOption(options, '$top');
  if (top !== undefined) {
    if (top > settings.maxTop) throw optionError('$top', `may be at most ${settings.maxTop}, got ${top}`);
    find.top = top;
  }
  const skip = integerOption(options, '$skip');
  if (skip !== undefined) find.skip = skip;
  const count = options.get('$count');
  if (count !== undefined) {
    if (count !== 'true' && count !== 'false') throw optionError('$count', `must be true or false, got '${count}'`);
    query.count = count === 'true';
  }
  if (options.has('$expand')) {
    const expand = parseExpand(options.get('$expand')!, object, {
      resolve: (name) => target.resolve(name),
      maxExpandDepth: settings.maxExpandDepth,
      maxTop: settings.maxTop,
      limits,
    });
    find.expand = expand.expand;
    query.expand = expand.names;
  }
  return query;
}

/** The system query options given, each once; unknown and unsupported ones refused. */
function collect(params: URLSearchParams): Map<string, string> {
  const options = new Map<string, string>();
  for (const [name, value] of params) {
    if (!name.startsWith('$')) continue;
    if ((SERVICE_OPTIONS as readonly string[]).includes(name)) continue;
    if (!(QUERY_OPTIONS as readonly string[]).includes(name)) {
      if (UNSUPPORTED.includes(name)) throw optionError(name, 'is not supported by this service');
      const known = [...QUERY_OPTIONS, ...SERVICE_OPTIONS].find((o) => o.toLowerCase() === name.toLowerCase());
      const hint = known ? ` (option names are case-sensitive: did you mean ${known}?)` : '';
      throw optionError(name, `is not a system query option${hint}; the options are ${[...QUERY_OPTIONS, ...SERVICE_OPTIONS].join(', ')}`);
    }
    if (options.has(name)) throw optionError(name, 'is given more than once; give it once');
    options.set(name, value);
  }
  return options;
}

function integerOption(options: Map<string, string>, name: '$top' | '$skip'): number | undefined {
  const raw = options.get(name);
  if (raw === undefined) return undefined;
  const value = nonNegativeInteger(raw.trim());
  if (value === undefined) throw optionError(name, `must be a non-negative integer, got '${raw}'`);
  return value;
}
