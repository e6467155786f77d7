import type { Filter } from '../query/ast';

/** Every field type the spec names (docs/spec.md, "Field types"); `formula` is accepted and stored as computed by hooks. */
export const FIELD_TYPES = [
  'text',
  'textarea',
  'email',
  'url',
  'phone',
  'number',
  'currency',
  'percent',
  'auto_number',
  'boolean',
  'date',
  'datetime',
  'time',
  'select',
  'lookup',
  'master_detail',
  'file',
  'image',
  'object',
  'json',
  'formula',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/*
 * Field-type categories, defined once here for the engine, the drivers and every protocol.
 */

/** A reference to another object's record (its id). */
export const RELATION_TYPES: ReadonlySet<FieldType> = new Set<FieldType>(['lookup', 'master_detail']);
/** Plain text values (what `pattern` and length rules check). */
export const TEXT_TYPES: ReadonlySet<FieldType> = new Set<FieldType>(['text', 'textarea', 'email', 'url', 'phone', 'select']);
/** Numbers: compared, summed and averaged as numbers (Float in GraphQL, Edm.Double/Int32 in OData). */
export const NUMERIC_TYPES: ReadonlySet<FieldType> = new Set<FieldType>(['number', 'currency', 'percent', 'auto_number']);
/** Text to the query language: substring operators and length() apply, a bare field name stays a literal. */
export const TEXTUAL_TYPES: ReadonlySet<FieldType> = new Set<FieldType>([...TEXT_TYPES, ...RELATION_TYPES, 'formula']);
/**
 * A JSON value (an attachment, an object, any JSON): only tested against null, never sorted, grouped
 * or compared; carried as JSON text where a protocol has no such type (GraphQL, OData).
 */
export const JSON_VALUE_TYPES: ReadonlySet<FieldType> = new Set<FieldType>(['json', 'object', 'file', 'image']);
/** File and image attachments (the File API's fields). */
export const ATTACHMENT_TYPES: ReadonlySet<FieldType> = new Set<FieldType>(['file', 'image']);

/** Fields every record has; the engine maintains them. */
export const SYSTEM_FIELDS = ['id', 'created_at', 'created_by', 'updated_at', 'updated_by'] as const;

export interface SelectOption {
  label: string;
  value: string;
}

export interface FieldValidation {
  type: string;
  message: string;
}

export interface FieldDefinition {
  name: string;
  type: FieldType;
  label: string;
  description?: string;
  required?: boolean;
  unique?: boolean;
  index?: boolean;
  readonly?: boolean;
  multiple?: boolean;
  options?: SelectOption[];
  defaultValue?: unknown;
  reference_to?: string;
  /**
   * lookup/master_detail (not multiple): the name of the one-to-many relation this field adds to
   * the object it points at (kernel/metadata/relations.ts); `<object>_by_<field>` when absent.
   */
  related_name?: string;
  /** The field's former name: schema migrations rename its column instead of adding an empty one (docs/migrations.md). */
  renamed_from?: string;
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
  validations?: FieldValidation[];
  /** True for id, created_at, ...: maintained by the engine, never written by callers. */
  system?: boolean;
}

export interface ActionParam {
  type: FieldType;
  label: string;
  required?: boolean;
  options?: SelectOption[];
  multiple?: boolean;
  reference_to?: string;
  min?: number;
  max?: number;
}

export interface ActionContext {
  object: string;
  action: string;
  id?: string;
  /** The record a record action runs on, read with the caller's permissions. */
  record?: Record<string, unknown>;
  input: Record<string, unknown>;
  user?: import('../context').User;
  api: import('../engine/types').DataApi;
}

/** Returns the action's result, or a promise of it. */
export type ActionHandler = (ctx: ActionContext) => unknown;

export interface ActionDefinition {
  name: string;
  type: 'record' | 'global';
  label: string;
  description?: string;
  params: Record<string, ActionParam>;
  handler?: ActionHandler;
}

export interface IndexDefinition {
  name: string;
  fields: string[];
  unique: boolean;
}

export type ValidationRule =
  | { name: string; type: 'range'; message: string; field: string; min?: number | string; max?: number | string }
  | { name: string; type: 'pattern'; message: string; field: string; pattern: string; flags?: string }
  | { name: string; type: 'cross_field'; message: string; field: string; operator: string; value?: unknown; compare_to?: string }
  | { name: string; type: 'unique'; message: string; fields: string[] }
  | { name: string; type: 'state_machine'; message: string; field: string; transitions: Record<string, string[]> }
  | { name: string; type: 'conditional'; message: string; when: unknown; required: string[] };

export interface PermissionEntry {
  profile: string;
  allow_read: boolean;
  allow_create: boolean;
  allow_edit: boolean;
  allow_delete: boolean;
  /** Array-form filter expressions; may use special values such as $current_user. */
  record_filters?: unknown[];
  fields?: Record<string, { allow_read?: boolean; allow_edit?: boolean }>;
}

export const HOOK_EVENTS = [
  'beforeFind',
  'afterFind',
  'beforeCreate',
  'afterCreate',
  'beforeUpdate',
  'afterUpdate',
  'beforeDelete',
  'afterDelete',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export interface HookDescriptor {
  event: HookEvent;
  description: string;
}

export interface ObjectDefinition {
  name: string;
  label: string;
  icon?: string;
  description?: string;
  datasource: string;
  /** Declared fields plus the system fields, in declaration order. */
  fields: Record<string, FieldDefinition>;
  indexes: IndexDefinition[];
  actions: Record<string, ActionDefinition>;
  rules: ValidationRule[];
  /** Undefined when the object has no permission file: open to any caller auth lets in. */
  permissions?: PermissionEntry[];
  hooks: HookDescriptor[];
  /** Where it was loaded from, for error messages. */
  source?: string;
}

/** Any metadata entry: objects and every other type (app, page, view, ...), kept as loaded. */
export interface MetadataEntry {
  type: string;
  id: string;
  content: unknown;
  source?: string;
}

export type { Filter };
