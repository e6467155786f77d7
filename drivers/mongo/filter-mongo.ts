/**
 * The kernel's filter AST as a MongoDB query document, with the semantics of
 * kernel/query/evaluate.ts. Every value goes in through an explicit operator (`$eq`, `$in`, ...),
 * so a value never reads as an operator; every field through fieldPath.
 *
 * How the contract maps onto MongoDB's own rules:
 * - `eq`, `in`: `{$eq}` / `{$in}` match a list field when an element matches, as the contract
 *   wants; null never equals anything (nulls are dropped from an `in` list).
 * - `ne`, `nin`: `{$ne}` / `{$nin}` already match null and missing fields and, on a list field,
 *   mean "no element matches"; a null in the list is spelled out (a list element is null).
 * - `gt`, `ge`, `lt`, `le`, `between`: MongoDB compares only values of the same type ("type
 *   bracketing"), so null and missing never match, as the contract wants.
 * - `isnull`: `{$in: [null, []]}` (null, missing or an empty list) and its `$nin`.
 * - text operators: escaped, case-insensitive regular expressions (see regex.ts); they match
 *   strings only.
 * - `not`: `{$nor: [inner]}`: each condition above already decides null and missing values
 *   the way the contract does, so the negation is exact (`not (qty < 6)` matches a null qty).
 * - comparisons with another field: `$expr`, see ref-mongo.ts.
 * - `fn: 'length'`: `$expr` comparing `$strLenCP` (code points) of a string value; any other
 *   value (null, missing) has no length, so only `ne` matches it. `$cond` evaluates only the
 *   branch it takes, so `$strLenCP` never sees a non-string.
 */
import type { Document } from 'mongodb';
import { ObjectQLError } from '../../kernel';
import type { Condition, Filter, ValueCondition } from '../../kernel';
import { refCondition } from './ref-mongo';
import { LIKE_OPTIONS, TEXT_OPTIONS, containsPcre, endsWithPcre, likeToPcre, startsWithPcre } from './regex';
import { MONGO_ID, fieldPath } from './values';

/** Matches every document. */
export const MATCH_ALL: Readonly<Document> = Object.freeze({});

/** Matches no document: every document has an `_id`. */
export function matchNone(): Document {
  return { [MONGO_ID]: { $exists: false } };
}

function isAll(q: Document): boolean {
  return Object.keys(q).length === 0;
}

function isNone(q: Document): boolean {
  const id = q[MONGO_ID] as Document | undefined;
  return (
    Object.keys(q).length === 1 &&
    id !== undefined &&
    typeof id === 'object' &&
    id !== null &&
    Object.keys(id).length === 1 &&
    id.$exists === false
  );
}

const isNull = (v: unknown): boolean => v === null || v === undefined;

/** A query document; MATCH_ALL when there is no filter. */
export function toMongoFilter(filter: Filter | undefined): Document {
  if (!filter) return MATCH_ALL;
  if ('and' in filter) return and(filter.and.map(toMongoFilter));
  if ('or' in filter) return or(filter.or.map(toMongoFilter));
  if ('not' in filter) return not(toMongoFilter(filter.not));
  return condition(filter);
}

export function and(parts: Document[]): Document {
  const kept = parts.filter((p) => !isAll(p));
  if (kept.some(isNone)) return matchNone();
  if (kept.length === 0) return MATCH_ALL;
  return kept.length === 1 ? kept[0] : { $and: kept };
}

export function or(parts: Document[]): Document {
  if (parts.some(isAll)) return MATCH_ALL;
  const kept = parts.filter((p) => !isNone(p));
  if (kept.length === 0) return matchNone();
  return kept.length === 1 ? kept[0] : { $or: kept };
}

export function not(inner: Document): Document {
  if (isAll(inner)) return matchNone();
  if (isNone(inner)) return MATCH_ALL;
  return { $nor: [inner] };
}

function condition(c: Condition): Document {
  if ('ref' in c) return refCondition(c);
  return valueCondition(c);
}

function valueCondition(c: ValueCondition): Document {
  if (c.fn) return functionCondition(c);
  const path = fieldPath(c.field);
  const on = (test: Document): Document => ({ [path]: test });
  const v = c.value;
  switch (c.op) {
    case 'eq':
      return equals(path, v);
    case 'ne':
      return differs(path, v);
    case 'gt':
      return isNull(v) ? matchNone() : on({ $gt: v });
    case 'ge':
      return isNull(v) ? matchNone() : on({ $gte: v });
    case 'lt':
      return isNull(v) ? matchNone() : on({ $lt: v });
    case 'le':
      return isNull(v) ? matchNone() : on({ $lte: v });
    case 'in': {
      // `in` is "equals one of": nulls equal nothing; a list item is compared as `eq` compares it.
      const { scalars, lists } = splitList(c, v);
      return or([...(scalars.length ? [on({ $in: scalars })] : []), ...lists.map((l) => equals(path, l))]);
    }
    case 'nin': {
      // `nin` is "differs from each": `$nin` for plain values, `differs` for the others.
      const { scalars, nulls, lists } = splitList(c, v);
      return and([
        ...(scalars.length ? [on({ $nin: scalars })] : []),
        ...(nulls ? [differs(path, null)] : []),
        ...lists.map((l) => differs(path, l)),
      ]);
    }
    case 'between': {
      if (!Array.isArray(v) || v.length !== 2)
        throw new ObjectQLError('INVALID_REQUEST', `Filter on '${c.field}': 'between' needs [low, high]`);
      const [low, high] = v as [unknown, unknown];
      // As evaluate.ts: everything is above a null low bound, nothing below a null high bound.
      if (isNull(high)) return matchNone();
      return on(isNull(low) ? { $lte: high } : { $gte: low, $lte: high });
    }
    case 'isnull':
      return on(v ? { $in: [null, []] } : { $nin: [null, []] });
    case 'like':
      return isNull(v) ? matchNone() : on({ $regex: likeToPcre(String(v)), $options: LIKE_OPTIONS });
    case 'contains':
      return isNull(v) ? matchNone() : on({ $regex: containsPcre(String(v)), $options: TEXT_OPTIONS });
    case 'startswith':
      return isNull(v) ? matchNone() : on({ $regex: startsWithPcre(String(v)), $options: TEXT_OPTIONS });
    case 'endswith':
      return isNull(v) ? matchNone() : on({ $regex: endsWithPcre(String(v)), $options: TEXT_OPTIONS });
    default:
      throw new ObjectQLError('INVALID_REQUEST', `Unknown filter operator ${JSON.stringify((c as { op: unknown }).op)} on '${c.field}'`);
  }
}

const EXPR_COMPARE: Record<string, string> = { eq: '$eq', ne: '$ne', gt: '$gt', ge: '$gte', lt: '$lt', le: '$lte' };

/** fn(field) compared with a number. */
function functionCondition(c: ValueCondition): Document {
  const compare = EXPR_COMPARE[c.op];
  if (c.fn !== 'length' || !compare)
    throw new ObjectQLError('INVALID_REQUEST', `Filter on '${c.field}': cannot compare ${String(c.fn)}() with '${c.op}'`);
  const v = c.value;
  if (typeof v !== 'number' || Number.isNaN(v)) return c.op === 'ne' ? {} : matchNone();
  const value = `$${fieldPath(c.field)}`;
  return { $expr: { $cond: [{ $eq: [{ $type: value }, 'string'] }, { [compare]: [{ $strLenCP: value }, v] }, c.op === 'ne'] } };
}

/**
 * `field = v`. A list value goes through `$elemMatch`: `{$eq: [..]}` would also match a field
 * holding that very list, where the contract compares the list with each element.
 */
function equals(path: string, v: unknown): Document {
  if (isNull(v)) return matchNone();
  if (Array.isArray(v)) return { [path]: { $elemMatch: { $eq: v } } };
  return { [path]: { $eq: v } };
}

/** `field != v`: null and missing match; on a list field, no element equals v. */
function differs(path: string, v: unknown): Document {
  // `$ne: null` would leave out null fields, which the contract keeps: only a list holding a null differs.
  if (isNull(v) || Array.isArray(v)) return not({ [path]: { $elemMatch: { $eq: isNull(v) ? null : v } } });
  return { [path]: { $ne: v } };
}

/** An in / nin list in three parts: plain values, whether it holds a null, list values. */
function splitList(c: ValueCondition, v: unknown): { scalars: unknown[]; nulls: boolean; lists: unknown[][] } {
  if (!Array.isArray(v)) throw new ObjectQLError('INVALID_REQUEST', `Filter on '${c.field}': '${c.op}' needs a list of values`);
  return {
    scalars: v.filter((x) => !isNull(x) && !Array.isArray(x)),
    nulls: v.some(isNull),
    lists: v.filter((x): x is unknown[] => Array.isArray(x)),
  };
}
