/**
 * Definitions → the spec's descriptors (docs/spec.md, "Field descriptor") (object definition, field, action, hook). Pure: no HTTP,
 * no registry. A descriptor carries only what a client may see: never the file a definition came
 * from (`source`), and only the fields the caller may read.
 */
import type { ActionDefinition, ActionParam, FieldDefinition, ObjectDefinition, SelectOption } from '../../kernel';
import type { ActionDescriptor, FieldDescriptor, ObjectDescriptor, ObjectSummary, ParamDescriptor } from '../../kernel/protocol';

export type { ActionDescriptor, FieldDescriptor, ObjectDescriptor, ObjectSummary, ParamDescriptor };

/** Properties copied as they are when the definition sets them. */
const OPTIONAL_KEYS = [
  'description',
  'defaultValue',
  'reference_to',
  'min',
  'max',
  'min_length',
  'max_length',
  'scale',
  'accept',
  'max_size',
  'min_size',
  'max_width',
  'max_height',
  'min_width',
  'min_height',
] as const satisfies ReadonlyArray<keyof FieldDefinition & keyof FieldDescriptor>;

function optionKeys(options: SelectOption[] | undefined): Pick<FieldDescriptor, 'options' | 'option_labels'> {
  if (!options) return {};
  return { options: options.map((o) => o.value), option_labels: Object.fromEntries(options.map((o) => [o.value, o.label])) };
}

/** One field; `validations` only when asked for (the single-field response). */
export function describeField(field: FieldDefinition, withValidations = false): FieldDescriptor {
  const out: FieldDescriptor = {
    name: field.name,
    type: field.type,
    label: field.label,
    required: field.required === true,
    unique: field.unique === true,
    multiple: field.multiple === true,
    ...optionKeys(field.options),
  };
  for (const key of OPTIONAL_KEYS) if (field[key] !== undefined) Object.assign(out, { [key]: structuredClone(field[key]) });
  if (field.system) out.system = true;
  if (field.index) out.index = true;
  if (field.system || field.readonly || field.type === 'auto_number' || field.type === 'formula') out.readonly = true;
  if (withValidations) out.validations = (field.validations ?? []).map((v) => ({ type: v.type, message: v.message }));
  return out;
}

function describeParam(param: ActionParam): ParamDescriptor {
  const out: ParamDescriptor = { type: param.type, label: param.label, required: param.required === true, ...optionKeys(param.options) };
  if (param.multiple) out.multiple = true;
  if (param.reference_to !== undefined) out.reference_to = param.reference_to;
  if (param.min !== undefined) out.min = param.min;
  if (param.max !== undefined) out.max = param.max;
  return out;
}

export function describeAction(action: ActionDefinition): ActionDescriptor {
  const params = Object.fromEntries(Object.entries(action.params).map(([name, p]) => [name, describeParam(p)]));
  return {
    name: action.name,
    type: action.type,
    label: action.label,
    ...(action.description ? { description: action.description } : {}),
    params,
  };
}

export function describeActions(def: ObjectDefinition): ActionDescriptor[] {
  return Object.values(def.actions).map(describeAction);
}

/** The readable fields of `def`, in declaration order. */
export function visibleFields(def: ObjectDefinition, readable: ReadonlySet<string>): FieldDefinition[] {
  return Object.values(def.fields).filter((f) => readable.has(f.name));
}

function header(def: ObjectDefinition): Pick<ObjectDescriptor, 'name' | 'label' | 'icon' | 'description'> {
  return {
    name: def.name,
    label: def.label,
    ...(def.icon !== undefined ? { icon: def.icon } : {}),
    ...(def.description !== undefined ? { description: def.description } : {}),
  };
}

function hooks(def: ObjectDefinition): ObjectDescriptor['hooks'] {
  return def.hooks.map((h) => ({ event: h.event, description: h.description }));
}

export function describeObject(def: ObjectDefinition, readable: ReadonlySet<string>): ObjectDescriptor {
  const fields = visibleFields(def, readable).map((f) => describeField(f));
  return { ...header(def), fields, actions: describeActions(def), hooks: hooks(def) };
}

export function summariseObject(def: ObjectDefinition, readable: ReadonlySet<string>): ObjectSummary {
  const fields = Object.fromEntries(visibleFields(def, readable).map((f) => [f.name, describeField(f)]));
  return { ...header(def), fields, actions: describeActions(def), hooks: hooks(def) };
}
