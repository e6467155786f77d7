/**
 * A collection read with a grouping $apply (groupby / aggregate): the rows are the engine's
 * aggregate (repo.find with groupBy and aggregate), so the caller's permissions and record scope
 * apply as in JSON-RPC. What can go to the store goes there: the filters before the grouping, the
 * grouping, and — when nothing after the grouping must run here — $orderby, $top and $skip of the
 * groups (with the total for $count and @odata.nextLink). A filter after the grouping (on the
 * aliases), topcount / bottomcount (the first one is pushed down as a sort and a top) and $filter
 * after $apply run in memory on the groups, which may then be at most limits.maxTop: beyond that
 * the request is refused, never answered from a part of the groups.
 *
 * The rows come back as entities without id: `{@odata.context: ...#<set>(<properties>), value}`.
 */
import {
  andFilters,
  compareValues,
  evaluateFilter,
  ObjectQLError,
  type DataRecord,
  type ObjectDefinition,
  type Repository,
  type SortKey,
} from '../../kernel';
import { jsonContentType, type MetadataLevel } from './format';
import { nextPageQuery, pagePlan, type PageLimits } from './paging';
import type { ApplyStep, ParsedApply } from './query/apply';
import { optionError, type Source } from './query/errors';
import { parsePlainFilter, type FilterLimits } from './query/filter';
import { parseOrderBy } from './query/orderby';
import { parseSelect } from './query/select';
import { nonNegativeInteger } from './query/values';
import type { ODataResponse } from './service';

export interface AppliedListRequest {
  def: ObjectDefinition;
  apply: ParsedApply;
  /** The system query options besides $apply and $format. */
  query: URLSearchParams;
  /** The query as sent, for @odata.nextLink. */
  rawQuery: string;
  repo: Repository;
  prefer: string | undefined;
  level: MetadataLevel;
  basePath: string;
  page: PageLimits;
  /** limits.maxTop: most groups handled in memory, and the largest $top. */
  maxTop: number;
  filterLimits: FilterLimits;
  cacheControl: string;
}

/** The options that may follow a grouping $apply. */
const AFTER_APPLY = ['$filter', '$orderby', '$top', '$skip', '$count', '$select'];

export async function appliedList(r: AppliedListRequest): Promise<ODataResponse> {
  const options = optionsAfterApply(r.query);
  const output = r.apply.output;
  const source = (option: string): Source => ({ text: options.get(option)!, where: option, target: option });
  const after = options.has('$filter') ? parsePlainFilter(source('$filter'), output, r.filterLimits) : undefined;
  const orderby = options.has('$orderby') ? parseOrderBy(source('$orderby'), output) : undefined;
  const select = options.has('$select') ? parseSelect(source('$select'), output).names : undefined;
  const top = integer(options, '$top');
  if (top !== undefined && top > r.maxTop) throw optionError('$top', `may be at most ${r.maxTop}, got ${top}`);
  const skip = integer(options, '$skip') ?? 0;
  const count = booleanOption(options, '$count');

  const { steps } = r.apply;
  const at = steps.findIndex((s) => s.kind === 'aggregate');
  const grouping = steps[at] as Extract<ApplyStep, { kind: 'aggregate' }>;
  const before = andFilters(...steps.slice(0, at).map((s) => (s as Extract<ApplyStep, { kind: 'filter' }>).filter));
  const post = steps.slice(at + 1);
  // Ties are broken by the grouping properties, so that pages of groups follow one order.
  const order = (keys: SortKey[]): SortKey[] => [
    ...keys,
    ...grouping.groupBy.filter((g) => !keys.some((k) => k.field === g)).map((field): SortKey => ({ field, dir: 'asc' })),
  ];
  const base = { filter: before, groupBy: grouping.groupBy, aggregate: grouping.aggregate };
  const page = pagePlan(top, r.prefer, r.page);

  let rows: DataRecord[];
  let total: number;
  if (post.length === 0 && !after) {
    // Everything in the store: sort, page and count the groups there.
    const found = await r.repo.find({ ...base, sort: order(orderby ?? []), top: page.top, skip });
    rows = found.items;
    total = found.meta.total;
  } else {
    let first = 0;
    let found;
    const lead = post[0];
    if (lead && (lead.kind === 'topcount' || lead.kind === 'bottomcount')) {
      if (lead.count > r.maxTop) throw optionError('$apply', `${lead.kind} may keep at most ${r.maxTop} rows, got ${lead.count}`);
      const dir = lead.kind === 'topcount' ? 'desc' : 'asc';
      found = await r.repo.find({ ...base, sort: order([{ field: lead.property, dir }]), top: lead.count });
      first = 1;
    } else {
      found = await r.repo.find({ ...base, sort: order([]), top: r.maxTop });
      if (found.meta.total > found.items.length)
        throw optionError(
          '$apply',
          `groups the records into ${found.meta.total} rows, more than the ${r.maxTop} a filter after the grouping (or topcount, bottomcount, $filter after $apply) can be applied to; filter before grouping`,
        );
    }
    rows = found.items;
    for (const step of post.slice(first)) rows = inMemory(step, rows, order);
    if (after) rows = rows.filter((row) => evaluateFilter(after, row));
    if (orderby) rows = sortRows(rows, order(orderby));
    total = rows.length;
    rows = rows.slice(skip, skip + page.top);
  }

  const properties = select && !select.includes('*') ? select : r.apply.properties;
  const value = rows.map((row) => Object.fromEntries(properties.map((p) => [p, row[p] ?? null])));
  const body: Record<string, unknown> = {};
  if (r.level === 'minimal') body['@odata.context'] = `${r.basePath}/$metadata#${r.def.name}(${properties.join(',')})`;
  if (count) body['@odata.count'] = total;
  body.value = value;
  const next = nextPageQuery(r.rawQuery, { skip, top }, rows.length, total);
  if (next !== undefined) body['@odata.nextLink'] = `${r.basePath}/${r.def.name}?${next}`;
  const headers: Record<string, string> = { 'Content-Type': jsonContentType(r.level), 'Cache-Control': r.cacheControl };
  if (page.applied) headers['Preference-Applied'] = page.applied;
  return { status: 200, headers, body };
}

/** A step after the grouping, on the groups in hand. */
function inMemory(step: ApplyStep, rows: DataRecord[], order: (keys: SortKey[]) => SortKey[]): DataRecord[] {
  switch (step.kind) {
    case 'filter':
      return rows.filter((row) => evaluateFilter(step.filter, row));
    case 'topcount':
    case 'bottomcount':
      return sortRows(rows, order([{ field: step.property, dir: step.kind === 'topcount' ? 'desc' : 'asc' }])).slice(0, step.count);
    default:
      // The parser allows one grouping.
      throw new ObjectQLError('INVALID_REQUEST', '$apply: one groupby or aggregate per request');
  }
}

function sortRows(rows: DataRecord[], keys: SortKey[]): DataRecord[] {
  return [...rows].sort((a, b) => {
    for (const k of keys) {
      const c = compareValues(a[k.field], b[k.field]);
      if (c !== 0) return k.dir === 'desc' ? -c : c;
    }
    return 0;
  });
}

function optionsAfterApply(query: URLSearchParams): Map<string, string> {
  const options = new Map<string, string>();
  for (const [name, value] of query) {
    if (!name.startsWith('$') || name === '$apply' || name === '$format') continue;
    if (!AFTER_APPLY.includes(name))
      throw optionError(name, `is not supported together with a grouping $apply; after it use ${AFTER_APPLY.join(', ')}`);
    if (options.has(name)) throw optionError(name, 'is given more than once; give it once');
    options.set(name, value);
  }
  return options;
}

function integer(options: Map<string, string>, name: '$top' | '$skip'): number | undefined {
  const raw = options.get(name);
  if (raw === undefined) return undefined;
  const value = nonNegativeInteger(raw.trim());
  if (value === undefined) throw optionError(name, `must be a non-negative integer, got '${raw}'`);
  return value;
}

function booleanOption(options: Map<string, string>, name: string): boolean {
  const raw = options.get(name);
  if (raw === undefined) return false;
  if (raw !== 'true' && raw !== 'false') throw optionError(name, `must be true or false, got '${raw}'`);
  return raw === 'true';
}
