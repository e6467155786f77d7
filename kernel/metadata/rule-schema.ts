/**
 * Validation rules (`validation.rules` in an object file, `rules:` in `<object>.validation.yml`,
 * or `validations:` under one field): their shapes, and the checks that need the object's fields.
 * Nothing here is evaluated with eval / new Function: patterns are compiled once, filters parsed
 * into the kernel's AST.
 */
import { z } from 'zod';
import { ObjectQLError } from '../errors';
import type { Filter } from '../query/ast';
import { parseFilter } from '../query/parse-filter';
import type { FieldDefinition, ValidationRule } from './types';
import { countingReport, type PathSegment, type Report } from './problems';
import { parseWith } from './zod-issues';
import { isPlainObject } from '../util/objects';

export const RULE_TYPES = ['range', 'pattern', 'cross_field', 'unique', 'state_machine', 'conditional'] as const;
export type RuleType = (typeof RULE_TYPES)[number];

export const CROSS_FIELD_OPERATORS = ['=', '!=', '>', '>=', '<', '<='] as const;

const str = z.string();
const bound = z.custom<number | string>((v) => typeof v === 'number' || typeof v === 'string', {
  error: 'expected a number or a date string',
});
const oneOrMany = z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(str).min(1));
const base = { name: str.min(1).optional(), type: z.enum(RULE_TYPES), message: str.min(1).optional() };

const RULE_SCHEMAS = {
  range: z.strictObject({ ...base, field: str, min: bound.optional(), max: bound.optional() }),
  pattern: z.strictObject({ ...base, field: str, pattern: str, flags: str.optional() }),
  cross_field: z.strictObject({
    ...base,
    field: str,
    operator: z.enum(CROSS_FIELD_OPERATORS),
    value: z.unknown().optional(),
    compare_to: str.optional(),
  }),
  unique: z.strictObject({ ...base, fields: oneOrMany }),
  state_machine: z.strictObject({
    ...base,
    field: str,
    transitions: z.record(
      str,
      z.preprocess((v) => (v === null ? [] : v), z.array(str)),
    ),
  }),
  conditional: z.strictObject({ ...base, when: z.unknown(), required: oneOrMany }),
} as const;

export interface RuleContext {
  object: string;
  fields: Record<string, FieldDefinition>;
  /** Rule names already used by this object, with where each was declared (for duplicate errors). */
  names: Map<string, string>;
  /** Describes the current file for duplicate-name messages. */
  where: string;
}

/** Parses one list of rules; every problem is reported, valid rules are returned. */
export function parseRules(raw: unknown[], basePath: PathSegment[], ctx: RuleContext, report: Report): ValidationRule[] {
  const rules: ValidationRule[] = [];
  raw.forEach((item, i) => {
    const rule = parseRule(item, [...basePath, i], ctx, report);
    if (rule) rules.push(rule);
  });
  return rules;
}

/** Parses one rule; an unnamed rule comes back with name '' (see nameRules). */
export function parseRule(item: unknown, at: PathSegment[], ctx: RuleContext, report: Report): ValidationRule | undefined {
  if (!isPlainObject(item)) {
    report(at, 'a rule must be a map {name, type, message, ...}');
    return undefined;
  }
  const type = item.type;
  if (typeof type !== 'string' || !(RULE_TYPES as readonly string[]).includes(type)) {
    report(
      [...at, 'type'],
      type === undefined ? 'is required' : `unknown rule type ${JSON.stringify(type)}; expected one of ${RULE_TYPES.join(', ')}`,
    );
    return undefined;
  }
  const before = countingReport(report);
  const parsed = parseWith(RULE_SCHEMAS[type as RuleType], item, at, before.report);
  if (!parsed) return undefined;

  const field = (name: string, path: PathSegment[]): FieldDefinition | undefined => {
    const def = ctx.fields[name];
    if (!def) before.report([...at, ...path], `unknown field '${name}' of object '${ctx.object}'`);
    return def;
  };
  const label = (name: string): string => ctx.fields[name]?.label ?? name;
  let rule: ValidationRule | undefined;

  switch (parsed.type) {
    case 'range': {
      const r = parsed as z.output<(typeof RULE_SCHEMAS)['range']>;
      field(r.field, ['field']);
      if (r.min === undefined && r.max === undefined) before.report(at, 'a range rule needs min, max or both');
      if (typeof r.min === 'number' && typeof r.max === 'number' && r.min > r.max)
        before.report([...at, 'min'], `min (${r.min}) is greater than max (${r.max})`);
      const text =
        r.min !== undefined && r.max !== undefined
          ? `between ${r.min} and ${r.max}`
          : r.min !== undefined
            ? `at least ${r.min}`
            : `at most ${r.max}`;
      rule = { name: '', type: 'range', message: r.message ?? `${label(r.field)} must be ${text}`, field: r.field };
      if (r.min !== undefined) rule.min = r.min;
      if (r.max !== undefined) rule.max = r.max;
      break;
    }
    case 'pattern': {
      const r = parsed as z.output<(typeof RULE_SCHEMAS)['pattern']>;
      field(r.field, ['field']);
      if (r.flags !== undefined && /[gy]/.test(r.flags)) {
        before.report([...at, 'flags'], "flags 'g' and 'y' are not allowed (they make a pattern stateful)");
      } else {
        try {
          new RegExp(r.pattern, r.flags);
        } catch (err) {
          before.report(
            [...at, r.flags !== undefined && /flag/i.test((err as Error).message) ? 'flags' : 'pattern'],
            `invalid regular expression: ${(err as Error).message}`,
          );
        }
      }
      rule = {
        name: '',
        type: 'pattern',
        message: r.message ?? `${label(r.field)} has an invalid format`,
        field: r.field,
        pattern: r.pattern,
      };
      if (r.flags !== undefined) rule.flags = r.flags;
      break;
    }
    case 'cross_field': {
      const r = parsed as z.output<(typeof RULE_SCHEMAS)['cross_field']>;
      field(r.field, ['field']);
      const hasValue = Object.prototype.hasOwnProperty.call(item, 'value');
      const hasRef = r.compare_to !== undefined;
      if (hasValue === hasRef) before.report(at, 'a cross_field rule needs exactly one of value or compare_to');
      if (hasRef) field(r.compare_to!, ['compare_to']);
      const other = hasRef ? label(r.compare_to!) : JSON.stringify(r.value);
      rule = {
        name: '',
        type: 'cross_field',
        message: r.message ?? `${label(r.field)} must be ${r.operator} ${other}`,
        field: r.field,
        operator: r.operator,
      };
      if (hasRef) rule.compare_to = r.compare_to;
      else rule.value = r.value;
      break;
    }
    case 'unique': {
      const r = parsed as z.output<(typeof RULE_SCHEMAS)['unique']>;
      r.fields.forEach((f, i) => field(f, ['fields', i]));
      reportDuplicates(r.fields, [...at, 'fields'], before.report);
      rule = {
        name: '',
        type: 'unique',
        message: r.message ?? `The combination of ${r.fields.map(label).join(', ')} must be unique`,
        fields: r.fields,
      };
      break;
    }
    case 'state_machine': {
      const r = parsed as z.output<(typeof RULE_SCHEMAS)['state_machine']>;
      const def = field(r.field, ['field']);
      if (Object.keys(r.transitions).length === 0) before.report([...at, 'transitions'], 'must list at least one state');
      const states = def?.options ? new Set(def.options.map((o) => o.value)) : undefined;
      if (states) {
        for (const [from, tos] of Object.entries(r.transitions)) {
          if (!states.has(from)) before.report([...at, 'transitions', from], `'${from}' is not an option of field '${r.field}'`);
          tos.forEach((to, i) => {
            if (!states.has(to)) before.report([...at, 'transitions', from, i], `'${to}' is not an option of field '${r.field}'`);
          });
        }
      }
      rule = {
        name: '',
        type: 'state_machine',
        message: r.message ?? `${label(r.field)} cannot change to that state`,
        field: r.field,
        transitions: r.transitions,
      };
      break;
    }
    case 'conditional': {
      const r = parsed as z.output<(typeof RULE_SCHEMAS)['conditional']>;
      let when: Filter | undefined;
      try {
        when = parseFilter(r.when);
        if (!when) before.report([...at, 'when'], r.when === undefined ? 'is required' : 'must not be empty');
      } catch (err) {
        before.report([...at, 'when'], err instanceof ObjectQLError ? err.message : String(err));
      }
      if (when) {
        for (const name of filterFields(when)) {
          if (!ctx.fields[name]) before.report([...at, 'when'], `unknown field '${name}' of object '${ctx.object}'`);
        }
      }
      r.required.forEach((f, i) => field(f, ['required', i]));
      reportDuplicates(r.required, [...at, 'required'], before.report);
      rule = {
        name: '',
        type: 'conditional',
        message: r.message ?? `${r.required.map(label).join(', ')} ${r.required.length === 1 ? 'is' : 'are'} required`,
        when: r.when,
        required: r.required,
      };
      break;
    }
  }
  if (!rule || before.count() > 0) return undefined;

  if (parsed.name === undefined) return rule; // named by nameRules once every rule of the object is known
  rule.name = parsed.name;
  const previous = ctx.names.get(rule.name);
  if (previous !== undefined) {
    report([...at, 'name'], `duplicate rule name '${rule.name}' (also in ${previous})`);
    return undefined;
  }
  ctx.names.set(rule.name, ctx.where);
  return rule;
}

/** Gives every unnamed rule a name `<type>_<field>` (with a number when taken), after all explicit names are known. */
export function nameRules(rules: ValidationRule[]): void {
  const used = new Set(rules.map((r) => r.name).filter((n) => n !== ''));
  for (const rule of rules) {
    if (rule.name !== '') continue;
    const stem = `${rule.type}_${ruleFields(rule)[0] ?? 'rule'}`;
    let name = stem;
    for (let n = 2; used.has(name); n++) name = `${stem}_${n}`;
    used.add(name);
    rule.name = name;
  }
}

/** The fields a rule validates (where a failure is reported): its field, its fields, or a conditional's required list. */
export function ruleFields(rule: ValidationRule): string[] {
  switch (rule.type) {
    case 'unique':
      return rule.fields;
    case 'conditional':
      return rule.required;
    default:
      return [rule.field];
  }
}

function reportDuplicates(list: string[], at: PathSegment[], report: Report): void {
  const seen = new Set<string>();
  list.forEach((f, i) => {
    if (seen.has(f)) report([...at, i], `'${f}' is listed twice`);
    seen.add(f);
  });
}

/** Field names a parsed filter mentions (its conditions' fields and field references). */
export function filterFields(filter: Filter): string[] {
  const out: string[] = [];
  const visit = (f: Filter): void => {
    if ('and' in f) f.and.forEach(visit);
    else if ('or' in f) f.or.forEach(visit);
    else if ('not' in f) visit(f.not);
    else {
      out.push(f.field);
      if ('ref' in f) out.push(f.ref);
    }
  };
  visit(filter);
  return out;
}

/** `<object>.validation.yml`: `rules:` a list of rules (a bare list is read the same way). */
export const validationFileSchema = z.preprocess(
  (v) => (Array.isArray(v) ? { rules: v } : v),
  z.strictObject({ name: z.unknown().optional(), rules: z.array(z.unknown()) }),
);
