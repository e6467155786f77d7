/**
 * The shape of `<object>.object.yml` (and of action declarations, which action code files share).
 * Strict objects: an unknown key is an error naming its path. Meaning-level checks (select needs
 * options, reference targets exist, ...) happen in build-object.ts once the shape is right.
 */
import { z } from 'zod';
import { FIELD_TYPES } from './types';

const str = z.string();
const bool = z.boolean();
const num = z.number();
const count = z.number().int().nonnegative();

/** A select option: `x` (a string or number) or `{label?, value}`. */
export const optionSchema = z.preprocess(
  (v) => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? { value: v } : v),
  z.strictObject({
    label: str.optional(),
    value: z.custom<string | number | boolean>((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean', {
      error: (iss) => (iss.input === undefined ? 'is required' : 'expected a string or number'),
    }),
  }),
);
export type OptionInput = z.output<typeof optionSchema>;

export const fieldTypeSchema = z.enum(FIELD_TYPES, {
  error: (iss) =>
    iss.input === undefined ? 'is required' : `unknown field type ${JSON.stringify(iss.input)}; expected one of ${FIELD_TYPES.join(', ')}`,
});

/** `price: number` is short for `price: {type: number}`. */
function typeShorthand(v: unknown): unknown {
  return typeof v === 'string' ? { type: v } : v;
}

/** `accept: '.jpg, .png'` is read as a list. */
function commaList(v: unknown): unknown {
  return typeof v === 'string'
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : v;
}

export const fieldSchema = z.preprocess(
  typeShorthand,
  z.strictObject({
    name: str.optional(),
    type: fieldTypeSchema,
    label: str.optional(),
    description: str.optional(),
    required: bool.optional(),
    unique: bool.optional(),
    index: bool.optional(),
    readonly: bool.optional(),
    multiple: bool.optional(),
    options: z.array(optionSchema).optional(),
    defaultValue: z.unknown().optional(),
    reference_to: str.min(1).optional(),
    related_name: str.min(1).optional(),
    /** The field's former name: `objectql migrate` (and start-up's automatic sync) renames its column, keeping the values. */
    renamed_from: str.min(1).optional(),
    min: num.optional(),
    max: num.optional(),
    min_length: count.optional(),
    max_length: count.optional(),
    scale: count.optional(),
    accept: z.preprocess(commaList, z.array(str)).optional(),
    max_size: num.nonnegative().optional(),
    min_size: num.nonnegative().optional(),
    max_width: count.optional(),
    max_height: count.optional(),
    min_width: count.optional(),
    min_height: count.optional(),
    /** Field-level shorthand for validation rules that name this field (the rule's `field` is implied). */
    validations: z.array(z.record(str, z.unknown())).optional(),
  }),
);
export type FieldInput = z.output<typeof fieldSchema>;

export const paramSchema = z.preprocess(
  typeShorthand,
  z.strictObject({
    type: fieldTypeSchema,
    label: str.optional(),
    required: bool.optional(),
    options: z.array(optionSchema).optional(),
    multiple: bool.optional(),
    reference_to: str.min(1).optional(),
    min: num.optional(),
    max: num.optional(),
  }),
);
export type ParamInput = z.output<typeof paramSchema>;

export const actionTypeSchema = z.enum(['record', 'global']);

/** `approve:` with nothing under it declares an action with every default. */
export const actionDeclSchema = z.preprocess(
  (v) => (v === null ? {} : v),
  z.strictObject({
    name: str.optional(),
    type: actionTypeSchema.optional(),
    label: str.optional(),
    description: str.optional(),
    params: z.record(str, paramSchema).optional(),
  }),
);
export type ActionDeclInput = z.output<typeof actionDeclSchema>;

export const indexSchema = z.strictObject({
  name: str.min(1).optional(),
  fields: z.array(str).min(1),
  unique: bool.optional(),
});

export const objectFileSchema = z.strictObject({
  /** Checked by the registry against the file's identifier. */
  name: z.unknown().optional(),
  label: str.optional(),
  icon: str.optional(),
  description: str.optional(),
  datasource: str.min(1).optional(),
  fields: z.record(str, fieldSchema).optional(),
  /** A list of {name?, fields, unique?} or a map name → {fields, unique?} (or → [fields]); see build-object.ts. */
  indexes: z.unknown().optional(),
  actions: z.record(str, actionDeclSchema).optional(),
  validation: z.strictObject({ rules: z.array(z.unknown()) }).optional(),
});
export type ObjectFileInput = z.output<typeof objectFileSchema>;
