/**
 * Inline related records: one batched `in` query per relation and level (never one per row),
 * through the related object's own permissions, record scope and hooks, across datasources. A
 * lookup's record replaces its id; a one-to-many relation (kernel/metadata/relations.ts) adds the
 * array of its records, at most `top` per parent, paged per parent by the store in the same query.
 */
import { ObjectQLError } from '../errors';
import { andFilters } from '../query/ast';
import { assertAllowed } from './permissions';
import { checkFields, checkRequestFilter, checkSort, fieldOf } from './query-check';
import { relatedEnv } from './relation-filter';
import { sortThrough } from './sort-through';
import type { ObjectRepository } from './repository';
import type { DataRecord, ExpandOptions } from './types';
import type { RequestFilter } from '../query/ast';

export type CheckedExpand = Record<
  string,
  {
    options: ExpandOptions;
    target: string;
    multiple: boolean;
    /** One-to-many: the target's lookup field pointing at these records. */
    reverse?: string;
  }
>;

const REVERSE_OPTION_KEYS = new Set(['fields', 'filters', 'filter', 'sort', 'top', 'expand', 'skip', 'count']);
const OPTION_KEYS = new Set(['fields', 'filters', 'filter', 'sort', 'top', 'expand', 'into']);
/** Options protocols set themselves, never a client's map. */
const PROTOCOL_OPTION_KEYS = ['filter', 'into'];
/** The options of the spec's expand map (docs/spec.md); `filter` (an AST) is for protocols that build one themselves (OData). */
const SPEC_OPTION_KEYS = ['fields', 'filters', 'sort', 'top', 'expand'];

/**
 * For protocols that pass a client's expand map as it is (JSON-RPC, REST): refuses an AST
 * `filter` anywhere in it, as the engine refuses any other option outside the spec's. The rest of
 * the map is checked by the engine.
 */
export function assertSpecExpand(expand: unknown, where = 'expand'): void {
  // A loop, not recursion: this runs on the client's map before any depth limit is checked.
  const pending: Array<[unknown, string]> = [[expand, where]];
  while (pending.length) {
    const [map, at] = pending.pop()!;
    if (!map || typeof map !== 'object' || Array.isArray(map)) continue;
    for (const [name, options] of Object.entries(map as Record<string, unknown>)) {
      if (!options || typeof options !== 'object' || Array.isArray(options)) continue;
      const own = PROTOCOL_OPTION_KEYS.find((key) => Object.prototype.hasOwnProperty.call(options, key));
      if (own)
        throw new ObjectQLError('INVALID_REQUEST', `${at}.${name}: unknown option '${own}'; expected ${SPEC_OPTION_KEYS.join(', ')}`);
      pending.push([(options as ExpandOptions).expand, `${at}.${name}`]);
    }
  }
}

/**
 * Checks the whole expand tree before any query runs, whether or not a record has the relation
 * set: relation fields only, depth within the limit, and each level's options against the related
 * object as the caller sees it (read permission, fields, filters, sort, top).
 */
export function checkExpand(repo: ObjectRepository, expand: unknown, depth: number): CheckedExpand {
  const max = repo.engine.limits.maxExpandDepth;
  if (!expand || typeof expand !== 'object' || Array.isArray(expand))
    throw new ObjectQLError('INVALID_REQUEST', "'expand' must be a map from relation field to options");
  if (depth > max) throw new ObjectQLError('EXPAND_DEPTH_EXCEEDED', `Expand depth exceeds the maximum of ${max}`, { max_depth: max });
  const out: CheckedExpand = {};
  for (const [name, raw] of Object.entries(expand as Record<string, unknown>)) {
    const relation = repo.compiled.links.get(name);
    if (relation?.kind === 'reverse') {
      // As a filter follows it: the target must be readable, and a hidden lookup there makes the relation unknown.
      if (!relatedEnv(repo, name)) fieldOf(repo.env(), name, 'expand');
      const options = optionsOf(name, raw);
      checkOptions(repo.engine.scopedRepo(relation.target, repo.request, repo.unit), name, options, depth, REVERSE_OPTION_KEYS);
      out[name] = { options, target: relation.target, multiple: true, reverse: relation.field };
      continue;
    }
    const field = fieldOf(repo.env(), name, 'expand');
    if (field.type !== 'lookup' && field.type !== 'master_detail')
      throw new ObjectQLError('INVALID_REQUEST', `expand: '${name}' of '${repo.name}' is not a relation field`);
    const options = optionsOf(name, raw);
    checkOptions(repo.engine.scopedRepo(field.reference_to!, repo.request, repo.unit), name, options, depth, OPTION_KEYS);
    if (
      options.into !== undefined &&
      (typeof options.into !== 'string' || repo.compiled.fieldNames.has(options.into) || repo.compiled.links.has(options.into))
    )
      throw new ObjectQLError('INVALID_REQUEST', `expand.${name}: 'into' must name a key that is no field or relation of '${repo.name}'`);
    out[name] = { options, target: field.reference_to!, multiple: Boolean(field.multiple) };
  }
  return out;
}

/** One relation's options: `true` or null for none. */
function optionsOf(name: string, raw: unknown): ExpandOptions {
  const options = raw === true || raw === null ? {} : raw;
  if (typeof options !== 'object' || Array.isArray(options))
    throw new ObjectQLError('INVALID_REQUEST', `expand.${name} must be an object of options`);
  return options;
}

function checkOptions(target: ObjectRepository, name: string, options: ExpandOptions, depth: number, keys: ReadonlySet<string>): void {
  for (const key of Object.keys(options)) {
    if (!keys.has(key))
      throw new ObjectQLError('INVALID_REQUEST', `expand.${name}: unknown option '${key}'; expected ${[...keys].join(', ')}`);
  }
  const access = target.access;
  assertAllowed(access, 'read', target.name);
  const env = target.env(access);
  try {
    checkFields(options.fields, env);
    const filter = andFilters(target.parseFilters(options.filters), options.filter);
    if (filter) checkRequestFilter(filter, env);
    checkSort(options.sort, env, undefined, (path, dir) => sortThrough(target, path, dir));
  } catch (err) {
    if (err instanceof ObjectQLError) throw new ObjectQLError(err.code, `expand.${name}: ${err.message}`, err.details);
    throw err;
  }
  for (const key of ['top', 'skip'] as const) {
    const n = options[key];
    if (n !== undefined && n !== null && (!Number.isInteger(n) || n < 0))
      throw new ObjectQLError('INVALID_REQUEST', `expand.${name}: '${key}' must be a non-negative integer, got ${JSON.stringify(n)}`);
  }
  const { maxTop, maxSkip } = target.engine.limits;
  if (keys === REVERSE_OPTION_KEYS && (options.top ?? 0) > maxTop)
    throw new ObjectQLError('INVALID_REQUEST', `expand.${name}: 'top' may be at most ${maxTop}, got ${options.top}`);
  if ((options.skip ?? 0) > maxSkip)
    throw new ObjectQLError('INVALID_REQUEST', `expand.${name}: 'skip' may be at most ${maxSkip}, got ${options.skip}`);
  if (options.count !== undefined && typeof options.count !== 'boolean')
    throw new ObjectQLError('INVALID_REQUEST', `expand.${name}: 'count' must be true or false`);
  if (options.expand) checkExpand(target, options.expand, depth + 1);
}

export async function expandRecords(repo: ObjectRepository, rows: DataRecord[], expand: CheckedExpand, depth: number): Promise<void> {
  for (const [name, { options, target, multiple, reverse }] of Object.entries(expand)) {
    if (reverse) {
      await expandReverse(repo, rows, name, repo.engine.scopedRepo(target, repo.request, repo.unit), reverse, options, depth);
      continue;
    }
    const ids = [...new Set(rows.flatMap((r) => (Array.isArray(r[name]) ? r[name] : r[name] == null ? [] : [r[name]]) as string[]))];
    let byId = new Map<string, DataRecord>();
    let order: string[] = [];
    if (ids.length > 0) {
      const related = await repo.engine.scopedRepo(target, repo.request, repo.unit).findWith(
        {
          fields: options.fields ? ['id', ...options.fields] : undefined,
          filters: options.filters,
          filter: andFilters({ field: 'id', op: 'in', value: ids }, options.filter),
          sort: options.sort,
          expand: options.expand,
        },
        'find',
        { depth, unlimitedTop: true, noCount: true },
      );
      byId = new Map(related.items.map((r) => [r.id as string, r]));
      order = related.items.map((r) => r.id as string);
    }
    const key = options.into ?? name;
    for (const row of rows) {
      if (!multiple) {
        row[key] = row[name] == null ? null : (byId.get(row[name] as string) ?? null);
        continue;
      }
      const own = new Set((row[name] ?? []) as string[]);
      const list = (options.sort ? order.filter((id) => own.has(id)) : [...own].filter((id) => byId.has(id))).map((id) => byId.get(id)!);
      row[key] = options.top !== undefined && options.top !== null ? list.slice(0, options.top) : list;
    }
  }
}

/** The records of `target` whose `field` points at each row, in one query (and one more for counts). */
async function expandReverse(
  repo: ObjectRepository,
  rows: DataRecord[],
  name: string,
  target: ObjectRepository,
  field: string,
  options: ExpandOptions,
  depth: number,
): Promise<void> {
  const ids = [...new Set(rows.map((r) => r.id).filter((id): id is string => typeof id === 'string'))];
  const byParent = new Map<string, DataRecord[]>();
  const counts = new Map<string, number>();
  if (ids.length > 0) {
    const filter = andFilters<RequestFilter>({ field, op: 'in', value: ids }, options.filter);
    const top = options.top ?? repo.engine.limits.defaultTop;
    const [related, grouped] = await Promise.all([
      // top 0 (only the count is wanted, as GraphQL's <relation>_count asks): no rows to read.
      top === 0
        ? { items: [] }
        : target.findWith(
            {
              fields: options.fields ? [field, ...options.fields] : undefined,
              filters: options.filters,
              filter,
              sort: options.sort,
              expand: options.expand,
            },
            'find',
            { depth, unlimitedTop: true, noCount: true, perGroup: { field, top, skip: options.skip ?? 0 } },
          ),
      options.count
        ? target.findWith(
            { filters: options.filters, filter, groupBy: [field], aggregate: [{ func: 'count', alias: 'count' }] },
            'aggregate',
            {
              depth,
              unlimitedTop: true,
            },
          )
        : undefined,
    ]);
    for (const record of related.items) {
      // The lookup back to the parent may itself be expanded into the parent's record.
      const ref = record[field];
      const parent = (ref !== null && typeof ref === 'object' ? (ref as DataRecord).id : ref) as string;
      const list = byParent.get(parent);
      if (list) list.push(record);
      else byParent.set(parent, [record]);
    }
    for (const group of grouped?.items ?? []) counts.set(group[field] as string, Number(group.count));
  }
  for (const row of rows) {
    row[name] = byParent.get(row.id as string) ?? [];
    if (options.count) row[`${name}@count`] = counts.get(row.id as string) ?? 0;
  }
}
