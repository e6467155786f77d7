/**
 * A typed `where` (a `<Type>Filter` value, as graphql-js coerced it) → the kernel's request filter:
 * the same AST the spec's JSON filter compiles to (`{name: {eq: "x"}}` ≡ `[["name", "=", "x"]]`),
 * so the engine checks it the same way (unknown or hidden fields, value types, special values).
 * Relations become the kernel's RelationCondition: `<lookup>_record: F` → {relation, quantifier:
 * 'any', filter: F}; `tasks: {some: F}` → any, `{every: F}` → all, `{none: F}` → not any.
 *
 * Bounded as the JSON form is: at most `limits.maxFilterConditions` conditions and
 * `limits.maxFilterDepth` levels of nesting (_and, _or, _not and relations each add one). Pure.
 */
import { ObjectQLError, OPERATORS, type Operator, type RequestFilter } from '../../kernel';
import type { WhereKey } from './where-sdl';

/** The `where` keys of every object of the schema, by object name. */
export type WhereShapes = ReadonlyMap<string, ReadonlyMap<string, WhereKey>>;

export interface WhereLimits {
  maxFilterDepth: number;
  maxFilterConditions: number;
}

const OPERATOR_NAMES: ReadonlySet<string> = new Set<string>(OPERATORS);

interface State {
  shapes: WhereShapes;
  limits: WhereLimits;
  conditions: number;
}

type Input = Record<string, unknown>;

/** The filter of `where` on `object`, or undefined when it asks nothing (`{}`). */
export function compileWhere(object: string, where: unknown, shapes: WhereShapes, limits: WhereLimits): RequestFilter | undefined {
  if (where === undefined || where === null) return undefined;
  return compile(object, where as Input, 'where', 1, { shapes, limits, conditions: 0 });
}

/** Matches no record: an empty `_or`. */
const NOTHING: RequestFilter = { field: 'id', op: 'in', value: [] };

function compile(object: string, where: Input, at: string, depth: number, state: State): RequestFilter | undefined {
  if (depth > state.limits.maxFilterDepth)
    throw new ObjectQLError('INVALID_REQUEST', `'where' is nested deeper than ${state.limits.maxFilterDepth} levels at ${at}`, {
      parameter: 'where',
      limit: 'maxFilterDepth',
      max: state.limits.maxFilterDepth,
    });
  const shape = state.shapes.get(object);
  const parts: RequestFilter[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (value === undefined || value === null) continue;
    const here = `${at}.${key}`;
    if (key === '_and' || key === '_or') {
      const list = (value as Input[]).map((w, i) => compile(object, w, `${here}[${i}]`, depth + 1, state));
      if (key === '_and') parts.push(...list.filter((f): f is RequestFilter => f !== undefined));
      // An empty term of an or matches everything, and so does the or.
      else if (list.length === 0) parts.push(NOTHING);
      else if (list.every((f): f is RequestFilter => f !== undefined)) parts.push(list.length === 1 ? list[0] : { or: list });
      continue;
    }
    if (key === '_not') {
      const inner = compile(object, value as Input, here, depth + 1, state);
      parts.push(inner === undefined ? NOTHING : { not: inner });
      continue;
    }
    const what = shape?.get(key);
    if (!what) throw new ObjectQLError('INVALID_REQUEST', `where: unknown field '${key}' on object '${object}'`, { field: key, object });
    if (what.kind === 'field') parts.push(...conditions(what.field, value as Input, here, state));
    else parts.push(...relation(what, value as Input, here, depth, state));
  }
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : { and: parts };
}

function count(state: State): void {
  state.conditions += 1;
  const max = state.limits.maxFilterConditions;
  if (state.conditions > max)
    throw new ObjectQLError('INVALID_REQUEST', `'where' has more than ${max} conditions`, {
      parameter: 'where',
      limit: 'maxFilterConditions',
      max,
    });
}

/** The conditions of one field's operator input, each counted. */
function conditions(field: string, ops: Input, at: string, state: State): RequestFilter[] {
  const out: RequestFilter[] = [];
  for (const [op, value] of Object.entries(ops)) {
    if (value === undefined || !OPERATOR_NAMES.has(op)) continue;
    count(state);
    if (value === null) {
      if (op === 'eq' || op === 'ne') out.push({ field, op: 'isnull', value: op === 'eq' });
      else throw new ObjectQLError('INVALID_REQUEST', `where: operator '${op}' on '${field}' needs a value, not null`, { field });
      continue;
    }
    if (op === 'between' && (!Array.isArray(value) || value.length !== 2))
      throw new ObjectQLError('INVALID_REQUEST', `where: operator 'between' on '${field}' needs two values [low, high] at ${at}`, {
        field,
      });
    out.push({ field, op: op as Operator, value });
  }
  return out;
}

function relation(key: Exclude<WhereKey, { kind: 'field' }>, value: Input, at: string, depth: number, state: State): RequestFilter[] {
  const inner = (w: unknown, here: string) => compile(key.target, w as Input, here, depth + 1, state);
  const condition = (quantifier: 'any' | 'all', filter: RequestFilter | undefined): RequestFilter =>
    filter === undefined ? { relation: key.relation, quantifier } : { relation: key.relation, quantifier, filter };
  if (key.kind === 'one') {
    count(state);
    return [condition('any', inner(value, at))];
  }
  const out: RequestFilter[] = [];
  for (const [quantifier, w] of Object.entries(value)) {
    if (w === undefined || w === null) continue;
    count(state);
    const here = `${at}.${quantifier}`;
    const filter = inner(w, here);
    if (quantifier === 'some') out.push(condition('any', filter));
    // every without a condition holds for every record: nothing to test.
    else if (quantifier === 'every') {
      if (filter !== undefined) out.push(condition('all', filter));
    } else if (quantifier === 'none') out.push({ not: condition('any', filter) });
  }
  return out;
}
