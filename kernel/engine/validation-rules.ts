/**
 * The object's validation rules (`rules:` of a validation file or of the object file), evaluated
 * against the final record of a create or update. Pure apart from `countMatching`, which the
 * engine supplies for `unique` rules. Nothing is evaluated with eval / new Function: patterns are
 * RegExps, conditions are the kernel's filter AST run by evaluateFilter.
 */
import { ObjectQLError } from '../errors';
import { RELATION_TYPES, TEXT_TYPES, type ObjectDefinition, type ValidationRule } from '../metadata/types';
import type { Filter } from '../query/ast';
import { compareValues, evaluateFilter, valuesEqual } from '../query/evaluate';
import { OPERATOR_ALIASES, isFieldRef, parseFilter } from '../query/parse-filter';
import { isSpecial, resolveSpecial as resolveSpecialValue, type Specials } from './special-values';

type Rec = Record<string, unknown>;
type RuleOf<T extends ValidationRule['type']> = Extract<ValidationRule, { type: T }>;

export interface CheckRulesOptions {
  mode: 'create' | 'update';
  /** The stored record before the update. */
  previous?: Rec;
  /** Fields the create / update sets. */
  changed: string[];
  /** Counts stored records matching a filter (for `unique`). */
  countMatching: (filter: Filter) => Promise<number>;
  /** Resolves special values ($now, $today, $current_user...) in range bounds, cross_field values and conditions. */
  specials?: Specials;
}

const isEmpty = (v: unknown): boolean => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

function resolveSpecial(v: unknown, specials: Specials | undefined): unknown {
  return specials && isSpecial(v) ? resolveSpecialValue(v, specials) : v;
}

function configError(rule: ValidationRule, what: string): ObjectQLError {
  return new ObjectQLError('INTERNAL_ERROR', `Validation rule '${rule.name}' ${what}`);
}

const patternCache = new WeakMap<object, RegExp>();
const whenCache = new WeakMap<object, { filter: Filter | undefined }>();

function rulePattern(rule: RuleOf<'pattern'>): RegExp {
  let re = patternCache.get(rule);
  if (!re) {
    try {
      // 'g' and 'y' would make test() stateful between records.
      re = new RegExp(rule.pattern, (rule.flags ?? '').replace(/[gy]/g, ''));
    } catch {
      throw configError(rule, `has an invalid pattern ${JSON.stringify(rule.pattern)}`);
    }
    patternCache.set(rule, re);
  }
  return re;
}

function eachValue(v: unknown): unknown[] {
  return Array.isArray(v) ? v.filter((x) => !isEmpty(x)) : isEmpty(v) ? [] : [v];
}

/** compareValues, reading a numeric string bound as a number when the value is a number. */
function compareBound(v: unknown, bound: unknown): number {
  if (typeof v === 'number' && typeof bound === 'string' && bound.trim() !== '' && Number.isFinite(Number(bound))) {
    return v - Number(bound);
  }
  return compareValues(v, bound);
}

function rangeFails(rule: RuleOf<'range'>, record: Rec, specials?: Specials): boolean {
  const min = resolveSpecial(rule.min, specials);
  const max = resolveSpecial(rule.max, specials);
  return eachValue(record[rule.field]).some(
    (v) => (!isEmpty(min) && compareBound(v, min) < 0) || (!isEmpty(max) && compareBound(v, max) > 0),
  );
}

function patternFails(rule: RuleOf<'pattern'>, record: Rec): boolean {
  const re = rulePattern(rule);
  return eachValue(record[rule.field]).some((v) => !re.test(typeof v === 'string' ? v : String(v)));
}

function compare(op: string, left: unknown, right: unknown): boolean | undefined {
  switch (OPERATOR_ALIASES[op.trim().toLowerCase()]) {
    case 'eq':
      return valuesEqual(left, right);
    case 'ne':
      return !valuesEqual(left, right);
    case 'gt':
      return compareValues(left, right) > 0;
    case 'ge':
      return compareValues(left, right) >= 0;
    case 'lt':
      return compareValues(left, right) < 0;
    case 'le':
      return compareValues(left, right) <= 0;
    default:
      return undefined;
  }
}

function crossFieldFails(rule: RuleOf<'cross_field'>, record: Rec, specials?: Specials): boolean {
  const left = record[rule.field];
  const refName = rule.compare_to ?? (isFieldRef(rule.value) ? rule.value.$field : undefined);
  const right = refName !== undefined ? record[refName] : resolveSpecial(rule.value, specials);
  const holds = compare(String(rule.operator ?? ''), left, right);
  if (holds === undefined) throw configError(rule, `has an unknown operator ${JSON.stringify(rule.operator)}`);
  if (isEmpty(left) || isEmpty(right)) return false;
  return !holds;
}

async function uniqueFails(rule: RuleOf<'unique'>, record: Rec, options: CheckRulesOptions): Promise<boolean> {
  if (options.mode === 'update' && !rule.fields.some((f) => options.changed.includes(f))) return false;
  if (rule.fields.every((f) => isEmpty(record[f]))) return false;
  const parts: Filter[] = rule.fields.map((field) =>
    isEmpty(record[field]) ? { field, op: 'isnull', value: true } : { field, op: 'eq', value: record[field] },
  );
  if (options.mode === 'update' && !isEmpty(record.id)) parts.push({ field: 'id', op: 'ne', value: record.id });
  return (await options.countMatching({ and: parts })) > 0;
}

function stateMachineFails(rule: RuleOf<'state_machine'>, record: Rec, options: CheckRulesOptions): boolean {
  if (options.mode !== 'update' || !options.changed.includes(rule.field)) return false;
  const from = options.previous?.[rule.field];
  const to = record[rule.field];
  // No previous state is like a create; clearing the state is the `required` flag's business.
  if (isEmpty(from) || isEmpty(to) || valuesEqual(from, to)) return false;
  const transitions = rule.transitions ?? {};
  const allowed = Object.prototype.hasOwnProperty.call(transitions, String(from)) ? transitions[String(from)] : [];
  return !(allowed ?? []).map(String).includes(String(to));
}

/** A bare string naming another field, compared with a non-text field, is a field reference. */
function resolveFilter(filter: Filter, object: ObjectDefinition, specials?: Specials): Filter {
  if ('and' in filter) return { and: filter.and.map((f) => resolveFilter(f, object, specials)) };
  if ('or' in filter) return { or: filter.or.map((f) => resolveFilter(f, object, specials)) };
  if ('not' in filter) return { not: resolveFilter(filter.not, object, specials) };
  if ('ref' in filter) return filter;
  const { value } = filter;
  const type = object.fields[filter.field]?.type;
  const textLike = type === undefined || TEXT_TYPES.has(type) || RELATION_TYPES.has(type);
  if (typeof value === 'string' && !textLike && Object.prototype.hasOwnProperty.call(object.fields, value) && filter.op !== 'like') {
    return { field: filter.field, op: filter.op as Exclude<typeof filter.op, 'in' | 'nin' | 'between' | 'isnull' | 'like'>, ref: value };
  }
  if (Array.isArray(value)) {
    if (!specials || !value.some(isSpecial)) return filter;
    const list = value.flatMap((v) => (isSpecial(v) ? resolveSpecialValue(v, specials) : [v]));
    return { ...filter, value: list };
  }
  const resolved = resolveSpecial(value, specials);
  if (resolved === value) return filter;
  // $current_user.role resolves to a list: = becomes in, != becomes not in.
  if (Array.isArray(resolved) && (filter.op === 'eq' || filter.op === 'ne')) {
    return { field: filter.field, op: filter.op === 'eq' ? 'in' : 'nin', value: resolved };
  }
  return { ...filter, value: resolved };
}

function conditionalMissing(rule: RuleOf<'conditional'>, object: ObjectDefinition, record: Rec, specials?: Specials): string[] {
  let cached = whenCache.get(rule);
  if (!cached) {
    try {
      const parsed = parseFilter(rule.when);
      cached = { filter: parsed && resolveFilter(parsed, object) };
    } catch (err) {
      throw configError(rule, `has an invalid 'when' filter: ${(err as Error).message}`);
    }
    whenCache.set(rule, cached);
  }
  const filter = cached.filter && specials ? resolveFilter(cached.filter, object, specials) : cached.filter;
  if (!evaluateFilter(filter, record)) return [];
  return (rule.required ?? []).filter((f) => isEmpty(record[f]));
}

/**
 * Evaluates every rule of the object against `record` (the final merged record). Returns a map
 * from field name to the failing rule's message; the first failing rule of a field wins.
 */
export async function checkRules(object: ObjectDefinition, record: Rec, options: CheckRulesOptions): Promise<Record<string, string>> {
  const errors: Record<string, string> = {};
  const flag = (field: string, message: string): void => {
    if (!(field in errors)) errors[field] = message;
  };
  for (const rule of object.rules ?? []) {
    switch (rule.type) {
      case 'range':
        if (rangeFails(rule, record, options.specials)) flag(rule.field, rule.message);
        break;
      case 'pattern':
        if (patternFails(rule, record)) flag(rule.field, rule.message);
        break;
      case 'cross_field':
        if (crossFieldFails(rule, record, options.specials)) flag(rule.field, rule.message);
        break;
      case 'unique':
        if (await uniqueFails(rule, record, options)) flag(rule.fields[0], rule.message);
        break;
      case 'state_machine':
        if (stateMachineFails(rule, record, options)) flag(rule.field, rule.message);
        break;
      case 'conditional':
        for (const field of conditionalMissing(rule, object, record, options.specials)) flag(field, rule.message);
        break;
      default:
        throw configError(rule, `has an unknown type '${String((rule as { type?: unknown }).type)}'`);
    }
  }
  return errors;
}
