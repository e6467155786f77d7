/**
 * $compute on an entity collection (query/compute.ts reads it): the computed properties are added
 * to each entity the engine returns, computed here from the fields they read (fetched even when
 * $select leaves them out, then left out of the entity again). They may be named in $select; in
 * $filter and $orderby they are refused with a message naming them (the store cannot filter or
 * sort by a value it does not hold, and a page must not be sorted alone). Pure.
 */
import { toObjectQLError, type DataRecord, type FindOptions, type ObjectDefinition } from '../../kernel';
import { evaluateComputed, parseCompute, type ComputedProperty, type ComputeLimits } from './query/compute';
import { optionError, propertyError } from './query/errors';

export interface ComputePlan {
  props: ComputedProperty[];
  /** The query with the computed names taken out of $select (the query parser knows the object's properties only). */
  query: URLSearchParams;
  /** $select as written, computed names included, for the context URL; undefined without $select. */
  select?: string[];
  /** The computed properties the entities carry (those selected, or all without $select or with *). */
  shown: ComputedProperty[];
}

/** $compute of a collection request, or undefined when there is none. */
export function readCompute(query: URLSearchParams, object: ObjectDefinition, limits: ComputeLimits): ComputePlan | undefined {
  const texts = query.getAll('$compute');
  if (texts.length === 0) return undefined;
  if (texts.length > 1) throw optionError('$compute', 'is given more than once; give it once');
  const props = parseCompute(texts[0], object, limits);
  const out = new URLSearchParams();
  let select: string[] | undefined;
  let shown = props;
  for (const [name, value] of query) {
    if (name === '$compute') continue;
    if (name !== '$select') {
      out.append(name, value);
      continue;
    }
    const names = value.split(',').map((n) => n.trim());
    const computed = names.filter((n) => props.some((p) => p.alias === n));
    const rest = names.filter((n) => !computed.includes(n));
    select = [...new Set(names)];
    if (!names.includes('*')) shown = props.filter((p) => computed.includes(p.alias));
    out.append(name, rest.length ? rest.join(',') : 'id');
  }
  return { props, query: out, select, shown };
}

/** A query error about a computed name (the parser did not know it) → what is wrong with using it there. */
export function computedMisuse(err: unknown, plan: ComputePlan): Error {
  const error = toObjectQLError(err);
  const details = Array.isArray(error.details) ? (error.details as Array<{ target?: unknown }>) : [];
  const target = details[0]?.target;
  const prop = plan.props.find((p) => p.alias === target);
  if (!prop) return error;
  const option = /^(\$\w+)/.exec(error.message)?.[1] ?? 'this option';
  return propertyError(
    { text: '', where: option, target: option },
    prop.alias,
    `the computed property '${prop.alias}' cannot be used in ${option}; only $select takes computed properties`,
  );
}

/** The fields the computed properties read, fetched (and stripped again) when $select leaves them out. */
export function fetchComputedReads(options: FindOptions, strip: string[], plan: ComputePlan): void {
  if (!options.fields) return;
  const fields = options.fields;
  const extra = [...new Set(plan.shown.flatMap((p) => p.reads))].filter((f) => !fields.includes(f));
  if (!extra.length) return;
  options.fields = [...fields, ...extra];
  strip.push(...extra);
}

/** The record with its computed properties. */
export function withComputed(record: DataRecord, plan: ComputePlan): DataRecord {
  const out: DataRecord = { ...record };
  for (const p of plan.shown) out[p.alias] = evaluateComputed(p.expr, record);
  return out;
}
