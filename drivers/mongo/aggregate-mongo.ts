/**
 * An AggregateQuery as a MongoDB pipeline:
 *
 *   $match (the filter) → $group → $project (flat rows: group fields and aliases) → $sort → $skip → $limit
 *
 * - `$group._id` holds each group field under a position name (`g0`, `g1`, ...), normalised with
 *   `$ifNull` so a missing value and null make one group, as in the memory driver; without
 *   groupBy it is null: one group over everything.
 * - Accumulators (under `a0`, `a1`, ... so no alias can clash with `_id`): count(*) `$sum: 1`;
 *   count(field) sums 1 for each non-null value; sum is `$sum` plus a count of non-null values,
 *   turned into null when that count is 0 (MongoDB's `$sum` over nothing is 0); avg, min and max
 *   ignore nulls and give null over nothing by themselves.
 * - Over a decimal field (the kernel's isDecimalField: currency, or a declared scale) sum and avg
 *   add `$toDecimal` values (a double becomes its decimal digits, 15 significant ones), and avg is
 *   that exact sum divided by the count of values; the Decimal128 results come back as numbers.
 * - `$project` renames positions to the output names; `$sort` then sorts by group fields and
 *   aliases, which MongoDB orders with nulls first ascending and last descending (sort-mongo.ts).
 *   The group fields the sort does not name are appended as tie-breakers: `$group` emits groups in
 *   no defined order, and pages of groups must not overlap.
 * - Without groupBy, `$group` over no documents emits nothing, where the contract wants exactly
 *   one row (count 0, null elsewhere); that row is made here, and skip/top apply to the single
 *   row in finishAggregate rather than in the pipeline.
 */
import { Decimal128, type Document } from 'mongodb';
import type { AggregateQuery, AggregateSpec, DbRecord } from '../../kernel';
import { toMongoFilter } from './filter-mongo';
import { toMongoSort } from './sort-mongo';
import { MONGO_ID, fieldPath } from './values';

export interface AggregatePlan {
  pipeline: Document[];
  /** `top: 0`: no row can come back (and MongoDB refuses `$limit: 0`); nothing to run. */
  none: boolean;
  /** Without groupBy: the row when no document matched, and the paging left to apply. */
  single?: { empty: DbRecord; skip: number; top?: number };
}

/** 1 for a document whose field holds a value, 0 for null or missing. */
function present(field: string): Document {
  return { $cond: [{ $eq: [{ $ifNull: [`$${fieldPath(field)}`, null] }, null] }, 0, 1] };
}

/** Sum and avg over a decimal field: decimal arithmetic. */
function isExact(spec: AggregateSpec, decimals: ReadonlySet<string>): boolean {
  return (spec.func === 'sum' || spec.func === 'avg') && spec.field !== undefined && decimals.has(spec.field);
}

/** Accumulators whose output needs the count of non-null values beside them (`n<i>`). */
function counted(spec: AggregateSpec, decimals: ReadonlySet<string>): boolean {
  return (spec.func === 'sum' && spec.field !== undefined) || isExact(spec, decimals);
}

function accumulator(spec: AggregateSpec, decimals: ReadonlySet<string>): Document {
  if (spec.field === undefined) return { $sum: 1 };
  const value = `$${fieldPath(spec.field)}`;
  if (isExact(spec, decimals)) return { $sum: { $toDecimal: value } };
  switch (spec.func) {
    case 'count':
      return { $sum: present(spec.field) };
    case 'sum':
      return { $sum: value };
    case 'avg':
      return { $avg: value };
    case 'min':
      return { $min: value };
    case 'max':
      return { $max: value };
    case 'countdistinct':
      return { $addToSet: value };
  }
}

/** The row's value of one aggregate, from the `$group` output. */
function output(spec: AggregateSpec, i: number, decimals: ReadonlySet<string>): unknown {
  if (spec.func === 'countdistinct') return { $size: { $setDifference: [{ $ifNull: [`$a${i}`, []] }, [null]] } };
  if (spec.func === 'avg' && isExact(spec, decimals)) return { $cond: [{ $eq: [`$n${i}`, 0] }, null, { $divide: [`$a${i}`, `$n${i}`] }] };
  if (spec.func === 'sum' && spec.field !== undefined) return { $cond: [{ $eq: [`$n${i}`, 0] }, null, `$a${i}`] };
  return `$a${i}`;
}

/** `decimals`: the object's decimal fields, whose sums and averages are exact. */
export function toPipeline(query: AggregateQuery, decimals: ReadonlySet<string> = new Set()): AggregatePlan {
  const groupBy = query.groupBy ?? [];
  const specs = query.aggregate;
  const pipeline: Document[] = [];
  const match = toMongoFilter(query.filter);
  if (Object.keys(match).length > 0) pipeline.push({ $match: match });

  const key = groupBy.length === 0 ? null : Object.fromEntries(groupBy.map((f, i) => [`g${i}`, { $ifNull: [`$${fieldPath(f)}`, null] }]));
  const group: Array<[string, unknown]> = [[MONGO_ID, key]];
  for (const [i, spec] of specs.entries()) group.push([`a${i}`, accumulator(spec, decimals)]);
  for (const [i, spec] of specs.entries()) {
    if (counted(spec, decimals)) group.push([`n${i}`, { $sum: present(spec.field!) }]);
  }
  pipeline.push({ $group: Object.fromEntries(group) });

  const names = [...groupBy, ...specs.map((s) => s.alias)];
  const project: Array<[string, unknown]> = [];
  // An alias may itself be `_id`; it is then set below instead of dropped.
  if (!names.includes(MONGO_ID)) project.push([MONGO_ID, 0]);
  for (const [i, f] of groupBy.entries()) project.push([f, `$${MONGO_ID}.g${i}`]);
  for (const [i, spec] of specs.entries()) project.push([spec.alias, output(spec, i, decimals)]);
  pipeline.push({ $project: Object.fromEntries(project) });

  const skip = Math.max(0, Math.trunc(query.skip ?? 0));
  const top = query.top === undefined ? undefined : Math.max(0, Math.trunc(query.top));
  if (groupBy.length === 0) {
    const empty = Object.fromEntries(specs.map((s) => [s.alias, s.func === 'count' ? 0 : null]));
    return { pipeline, none: top === 0, single: { empty, skip, top } };
  }

  // A name that is neither a group field nor an alias holds nothing to order by (as in the memory driver).
  const known = (query.sort ?? []).filter((k) => names.includes(k.field));
  const sort = toMongoSort([...known, ...groupBy.map((field) => ({ field, dir: 'asc' as const }))]);
  if (sort) pipeline.push({ $sort: sort });
  if (skip > 0) pipeline.push({ $skip: skip });
  if (top !== undefined && top > 0) pipeline.push({ $limit: top });
  return { pipeline, none: top === 0, single: undefined };
}

/** A Decimal128 (an exact sum or average) as the nearest number; anything else as it is. */
function plain(value: unknown): unknown {
  return value instanceof Decimal128 ? Number(value.toString()) : value;
}

/** The rows of a pipeline's result as the contract wants them. */
export function finishAggregate(rows: Document[], plan: AggregatePlan): DbRecord[] {
  const numbers = rows.map((row): DbRecord => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)])));
  if (!plan.single) return numbers;
  const { empty, skip, top } = plan.single;
  const all = numbers.length > 0 ? numbers : [empty];
  return all.slice(skip, top === undefined ? undefined : skip + top);
}
