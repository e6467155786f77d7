/**
 * The `validations` list of each declared field (shown by the metadata API's field descriptor):
 * what its own properties require (required, unique, min/max, min_length/max_length) plus every
 * rule of the object that validates that field.
 */
import type { FieldDefinition, FieldValidation, ObjectDefinition } from './types';
import { ruleFields } from './rule-schema';

export function deriveFieldValidations(def: ObjectDefinition): void {
  for (const field of Object.values(def.fields)) {
    if (field.system) continue;
    field.validations = ownValidations(field);
  }
  for (const rule of def.rules) {
    for (const name of new Set(ruleFields(rule))) {
      const field = def.fields[name];
      if (field) (field.validations ??= []).push({ type: rule.type, message: rule.message });
    }
  }
}

function ownValidations(f: FieldDefinition): FieldValidation[] {
  const out: FieldValidation[] = [];
  if (f.required) out.push({ type: 'required', message: `${f.label} is required` });
  if (f.unique) out.push({ type: 'unique', message: `${f.label} must be unique` });
  if (f.min !== undefined || f.max !== undefined) out.push({ type: 'range', message: `${f.label} must be ${bounds(f.min, f.max)}` });
  if (f.min_length !== undefined || f.max_length !== undefined) {
    out.push({ type: 'length', message: `${f.label} must be ${bounds(f.min_length, f.max_length)} characters long` });
  }
  return out;
}

function bounds(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `between ${min} and ${max}`;
  return min !== undefined ? `at least ${min}` : `at most ${max}`;
}
