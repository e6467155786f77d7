/**
 * A condition comparing two fields of one record, as an aggregation expression inside `$expr`.
 * Aggregation comparisons order every BSON type against every other (there is no type
 * bracketing as in query operators) and treat a missing field apart from null, so each side is
 * first normalised with `$ifNull` and the null rules of evaluate.ts are spelled out:
 * - `eq`, `gt`, `ge`, `lt`, `le`: false when either side is null (or the field an empty list);
 *   on a list field `eq` means "an element equals".
 * - `ne`: true when the field is null; on a list field "no element equals".
 * - `contains`, `startswith`, `endswith`: both sides strings, case-insensitive, the other field's
 *   value taken literally: it is escaped inside the pipeline (`$replaceAll`, MongoDB 4.4+) and
 *   matched with `$regexMatch`, the same case folding as the literal text operators.
 */
import type { Document } from 'mongodb';
import { ObjectQLError } from '../../kernel';
import type { RefCondition } from '../../kernel';
import { fieldPath } from './values';

type Expr = unknown;

const COMPARE = { gt: '$gt', ge: '$gte', lt: '$lt', le: '$lte' } as const;

/** PCRE metacharacters escaped inside a pipeline; the backslash first, so no escape is escaped again. */
const META = ['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}', '#'];

/** The value of a field, null when missing. */
function valueOf(field: string): Expr {
  return { $ifNull: [`$${fieldPath(field)}`, null] };
}

function isNullish(x: Expr): Expr {
  return { $in: [x, [null, []]] };
}

function bothPresent(a: Expr, b: Expr, test: Expr): Expr {
  return { $and: [{ $not: [isNullish(a)] }, { $ne: [b, null] }, test] };
}

/** The string value x as PCRE source matching it literally. */
export function escapedInPipeline(x: Expr): Expr {
  let out = x;
  // `$literal`: a string starting with `$` would be read as a field path.
  for (const ch of META) out = { $replaceAll: { input: out, find: { $literal: ch }, replacement: `\\${ch}` } };
  return { $replaceAll: { input: out, find: '\0', replacement: '\\x00' } };
}

function textMatch(a: Expr, b: Expr, prefix: string, suffix: string): Expr {
  const regex = prefix || suffix ? { $concat: [prefix, escapedInPipeline(b), suffix].filter((p) => p !== '') } : escapedInPipeline(b);
  return {
    $cond: [
      { $and: [{ $eq: [{ $type: a }, 'string'] }, { $eq: [{ $type: b }, 'string'] }] },
      { $regexMatch: { input: a, regex, options: 'i' } },
      false,
    ],
  };
}

export function refExpression(c: RefCondition): Expr {
  const a = valueOf(c.field);
  const b = valueOf(c.ref);
  switch (c.op) {
    case 'eq':
      return bothPresent(a, b, { $cond: [{ $isArray: a }, { $in: [b, a] }, { $eq: [a, b] }] });
    case 'ne':
      return { $cond: [{ $isArray: a }, { $not: [{ $in: [b, a] }] }, { $or: [{ $eq: [a, null] }, { $ne: [a, b] }] }] };
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le':
      return bothPresent(a, b, { [COMPARE[c.op]]: [a, b] });
    case 'contains':
      return textMatch(a, b, '', '');
    case 'startswith':
      return textMatch(a, b, '\\A', '');
    case 'endswith':
      return textMatch(a, b, '', '\\z');
    default:
      throw new ObjectQLError(
        'INVALID_REQUEST',
        `Operator '${String((c as { op: unknown }).op)}' cannot compare field '${c.field}' with another field`,
      );
  }
}

export function refCondition(c: RefCondition): Document {
  return { $expr: refExpression(c) };
}
