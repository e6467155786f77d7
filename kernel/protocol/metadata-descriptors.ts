/**
 * What the metadata API answers about objects (docs/metadata-api.md; the spec's field descriptor):
 * the shapes the metadata-api plugin builds and its clients read, Studio's browser app among them.
 * Self-contained on purpose (no imports): the browser app type-checks against this file without
 * the server's types.
 */

/** The spec's field descriptor: the definition's own properties (as they are), select options as values. */
export interface FieldDescriptor {
  name: string;
  type: string;
  label: string;
  required: boolean;
  unique: boolean;
  multiple: boolean;
  /** select: the option values, what is stored and filtered on. */
  options?: string[];
  /** select: value → display label. */
  option_labels?: Record<string, string>;
  /** True when callers never write it: id and audit fields, auto numbers, formulas, `readonly: true`. */
  readonly?: boolean;
  system?: boolean;
  index?: boolean;
  description?: string;
  defaultValue?: unknown;
  reference_to?: string;
  min?: number;
  max?: number;
  min_length?: number;
  max_length?: number;
  scale?: number;
  accept?: string[];
  max_size?: number;
  min_size?: number;
  max_width?: number;
  max_height?: number;
  min_width?: number;
  min_height?: number;
  /** Only in the single-field response. */
  validations?: Array<{ type: string; message: string }>;
}

export interface ParamDescriptor {
  type: string;
  label: string;
  required: boolean;
  multiple?: boolean;
  options?: string[];
  option_labels?: Record<string, string>;
  reference_to?: string;
  min?: number;
  max?: number;
}

export interface ActionDescriptor {
  name: string;
  type: 'record' | 'global';
  label: string;
  description?: string;
  params: Record<string, ParamDescriptor>;
}

interface ObjectHeader {
  name: string;
  label: string;
  icon?: string;
  description?: string;
  actions: ActionDescriptor[];
  /** The object's documented hooks: the hook event (beforeCreate ...) and what it does. */
  hooks: Array<{ event: string; description: string }>;
}

/** The list response's shape: fields as a map from name to descriptor. */
export interface ObjectSummary extends ObjectHeader {
  fields: Record<string, FieldDescriptor>;
}

/** The single-object response's shape: fields as an array of descriptors. */
export interface ObjectDescriptor extends ObjectHeader {
  fields: FieldDescriptor[];
}

/** GET {metadata}/objects/:name/access: what the caller may do with the object, and with each field they may read. */
export interface ObjectAccess {
  object: string;
  read: boolean;
  create: boolean;
  edit: boolean;
  delete: boolean;
  /** Only the fields the caller may read (a hidden field is absent), in the object's order; `edit`: may be written on create and update. */
  fields: Record<string, { read: true; edit: boolean }>;
}
