/** What the service's public APIs answer, as far as Studio reads them (docs/spec.md, docs/metadata-api.md). */

export type DataRecord = Record<string, unknown> & { id: string };

export interface FieldDescriptor {
  name: string;
  type: string;
  label: string;
  required: boolean;
  unique: boolean;
  multiple: boolean;
  options?: string[];
  option_labels?: Record<string, string>;
  reference_to?: string;
  readonly?: boolean;
  system?: boolean;
  description?: string;
  defaultValue?: unknown;
  min?: number;
  max?: number;
  min_length?: number;
  max_length?: number;
  scale?: number;
  accept?: string[];
  max_size?: number;
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

export interface ObjectSummary {
  name: string;
  label: string;
  icon?: string;
  description?: string;
  fields: Record<string, FieldDescriptor>;
  actions: ActionDescriptor[];
  hooks: Array<{ event: string; description: string }>;
}

export interface ObjectDescriptor extends Omit<ObjectSummary, 'fields'> {
  fields: FieldDescriptor[];
}

/** GET {metadata}/objects/:name/access: what this caller may do with one object. */
export interface ObjectAccess {
  object: string;
  read: boolean;
  create: boolean;
  edit: boolean;
  delete: boolean;
  fields: Record<string, { read: boolean; edit: boolean }>;
}

/** A page's meta, as the typed client (objectql/client) has it. */
export type { PageMeta } from '../../../client/types';

export interface User {
  id: string;
  roles: string[];
  name?: string;
  [key: string]: unknown;
}

export interface Attachment {
  id?: string;
  name: string;
  url: string;
  size: number;
  type: string;
  thumbnail_url?: string;
  original_name?: string;
}

/** The spec's filter language, array form: [field, op, value] joined by 'and' / 'or', nested. */
export type Condition = [string, string, unknown];
export type FilterExpr = Array<Condition | 'and' | 'or' | FilterExpr>;

/** An `app` metadata entry (the sample's projects.app.yml). */
export interface AppEntry {
  label?: string;
  description?: string;
  icon?: string;
  objects?: string[];
  default_object?: string;
}

/** A `view` metadata entry: a list's columns, filter and sort. */
export interface ViewEntry {
  label?: string;
  object?: string;
  columns?: string[];
  filters?: FilterExpr;
  sort?: Array<[string, 'asc' | 'desc']>;
}
