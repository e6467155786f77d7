/**
 * Turns a field (or action parameter) as written in YAML into its definition: default label,
 * options as {label, value}, master_detail forced required, and the checks that need the whole
 * field (select needs options, relations need reference_to, bounds in order, ...).
 * Whether reference_to names an existing object is checked later, once every file is loaded.
 */
import type { ActionParam, FieldDefinition, FieldType, SelectOption } from './types';
import { RELATION_TYPES } from './types';
import type { FieldInput, OptionInput, ParamInput } from './object-schema';
import type { PathSegment, Report } from './problems';
import { titleCase } from './title-case';

export const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

const ATTACHMENT_TYPES: readonly FieldType[] = ['file', 'image'];
const ATTACHMENT_KEYS = ['accept', 'max_size', 'min_size'] as const;
const IMAGE_KEYS = ['max_width', 'max_height', 'min_width', 'min_height'] as const;

export function normaliseOptions(options: OptionInput[], base: PathSegment[], report: Report): SelectOption[] {
  const seen = new Map<string, number>();
  return options.map((o, i) => {
    const value = String(o.value);
    const first = seen.get(value);
    if (first !== undefined) report([...base, i], `duplicate option value ${JSON.stringify(value)} (also at [${first}])`);
    else seen.set(value, i);
    return { label: o.label ?? value, value };
  });
}

/** Checks shared by fields and params: options only on select (and required there), reference_to only on relations. */
function checkTyped(
  input: {
    type: FieldType;
    options?: OptionInput[];
    reference_to?: string;
    min?: number;
    max?: number;
    defaultValue?: unknown;
    multiple?: boolean;
  },
  base: PathSegment[],
  report: Report,
): SelectOption[] | undefined {
  let options: SelectOption[] | undefined;
  if (input.type === 'select') {
    if (!input.options || input.options.length === 0)
      report([...base, 'options'], 'a select field needs options (a list of strings or {label, value})');
    else options = normaliseOptions(input.options, [...base, 'options'], report);
  } else if (input.options !== undefined) {
    report([...base, 'options'], `options apply only to select fields, not to type '${input.type}'`);
  }
  if (RELATION_TYPES.has(input.type)) {
    if (!input.reference_to) report([...base, 'reference_to'], `a ${input.type} field needs reference_to naming the related object`);
  } else if (input.reference_to !== undefined) {
    report([...base, 'reference_to'], `reference_to applies only to lookup and master_detail fields, not to type '${input.type}'`);
  }
  if (input.min !== undefined && input.max !== undefined && input.min > input.max) {
    report([...base, 'min'], `min (${input.min}) is greater than max (${input.max})`);
  }
  if (options && input.defaultValue !== undefined && input.defaultValue !== null) {
    const values = new Set(options.map((o) => o.value));
    const defaults = input.multiple && Array.isArray(input.defaultValue) ? input.defaultValue : [input.defaultValue];
    for (const d of defaults) {
      if (!values.has(String(d))) report([...base, 'defaultValue'], `${JSON.stringify(d)} is not one of the options`);
    }
  }
  return options;
}

export function normaliseField(name: string, input: FieldInput, base: PathSegment[], report: Report): FieldDefinition {
  if (input.name !== undefined && input.name !== name) {
    report([...base, 'name'], `must equal the field's key '${name}' (got '${input.name}')`);
  }
  const options = checkTyped(input, base, report);
  if (input.min_length !== undefined && input.max_length !== undefined && input.min_length > input.max_length) {
    report([...base, 'min_length'], `min_length (${input.min_length}) is greater than max_length (${input.max_length})`);
  }
  if (!ATTACHMENT_TYPES.includes(input.type)) {
    for (const key of [...ATTACHMENT_KEYS, ...IMAGE_KEYS]) {
      if (input[key] !== undefined) report([...base, key], `applies only to file and image fields, not to type '${input.type}'`);
    }
  } else if (input.type === 'file') {
    for (const key of IMAGE_KEYS) {
      if (input[key] !== undefined) report([...base, key], `applies only to image fields, not to type 'file'`);
    }
  }
  if (input.related_name !== undefined) {
    if (!RELATION_TYPES.has(input.type) || input.multiple)
      report([...base, 'related_name'], 'related_name applies only to lookup and master_detail fields that are not multiple');
    else if (!NAME_PATTERN.test(input.related_name))
      report([...base, 'related_name'], 'must be a name: letters, digits and _ (not starting with a digit)');
  }
  if (input.renamed_from !== undefined) {
    if (!NAME_PATTERN.test(input.renamed_from))
      report([...base, 'renamed_from'], 'must be a name: letters, digits and _ (not starting with a digit)');
    else if (input.renamed_from === name) report([...base, 'renamed_from'], `names the field itself ('${name}')`);
  }
  if (input.min_size !== undefined && input.max_size !== undefined && input.min_size > input.max_size) {
    report([...base, 'min_size'], `min_size (${input.min_size}) is greater than max_size (${input.max_size})`);
  }
  if (input.min_width !== undefined && input.max_width !== undefined && input.min_width > input.max_width) {
    report([...base, 'min_width'], `min_width (${input.min_width}) is greater than max_width (${input.max_width})`);
  }
  if (input.min_height !== undefined && input.max_height !== undefined && input.min_height > input.max_height) {
    report([...base, 'min_height'], `min_height (${input.min_height}) is greater than max_height (${input.max_height})`);
  }

  const { validations: _shorthand, name: _name, options: _options, type, ...rest } = input;
  const field: FieldDefinition = { name, type, label: input.label ?? titleCase(name), ...rest };
  if (options) field.options = options;
  if (input.type === 'master_detail') field.required = true;
  return field;
}

export function normaliseParam(name: string, input: ParamInput, base: PathSegment[], report: Report): ActionParam {
  if (!NAME_PATTERN.test(name)) report([...base], `invalid parameter name; use letters, digits and _ (not starting with a digit)`);
  const options = checkTyped(input, base, report);
  const { options: _options, type, ...rest } = input;
  const param: ActionParam = { type, label: input.label ?? titleCase(name), ...rest };
  if (options) param.options = options;
  if (input.type === 'master_detail') param.required = true;
  return param;
}
