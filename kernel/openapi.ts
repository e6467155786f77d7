/**
 * Building blocks of the OpenAPI 3.0 document that protocol plugins share: the schema of each
 * object by the spec's type mapping, the error schema and its responses. The openapi plugin makes
 * the base document from these and runs the kernel's `openapi` hook, where each protocol plugin
 * adds its own paths.
 */
import type { OpenAPIV3 } from 'openapi-types';
import { ERROR_CODES, type ErrorCode } from './errors';
import type { FieldDefinition, ObjectDefinition } from './metadata/types';

export type OpenAPIDocument = OpenAPIV3.Document;
export type SchemaObject = OpenAPIV3.SchemaObject;
export type ReferenceObject = OpenAPIV3.ReferenceObject;

/** `project` → `Project`, `order_line` → `OrderLine`: the name of an object's schema. */
export function schemaName(object: string): string {
  return object.split(/[_\W]+/).filter(Boolean).map((p) => p[0].toUpperCase() + p.slice(1)).join('');
}

export function schemaRef(name: string): ReferenceObject {
  return { $ref: `#/components/schemas/${name}` };
}

const ATTACHMENT: SchemaObject = {
  type: 'object',
  required: ['name', 'url', 'size', 'type'],
  properties: {
    id: { type: 'string' }, name: { type: 'string' }, url: { type: 'string' }, size: { type: 'number' }, type: { type: 'string' },
    original_name: { type: 'string' }, uploaded_at: { type: 'string', format: 'date-time' }, uploaded_by: { type: 'string' },
    width: { type: 'number' }, height: { type: 'number' }, thumbnail_url: { type: 'string' },
    variants: { type: 'object', properties: { small: { type: 'string' }, medium: { type: 'string' }, large: { type: 'string' } } },
  },
};

/** One field's value by the spec's type mapping (without nullability). */
export function fieldSchema(field: FieldDefinition): SchemaObject {
  const base = scalarSchema(field);
  const described = { ...base, ...(field.label ? { title: field.label } : {}), ...(field.description ? { description: field.description } : {}) };
  return field.multiple ? { type: 'array', items: base, ...(field.label ? { title: field.label } : {}) } : described;
}

function scalarSchema(field: FieldDefinition): SchemaObject {
  switch (field.type) {
    case 'email':
      return { type: 'string', format: 'email' };
    case 'url':
      return { type: 'string', format: 'uri' };
    case 'number':
    case 'currency':
    case 'percent':
      return { type: 'number', ...(field.min !== undefined ? { minimum: field.min } : {}), ...(field.max !== undefined ? { maximum: field.max } : {}) };
    case 'auto_number':
      return { type: 'integer', format: 'int32', readOnly: true };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'time':
      return { type: 'string', pattern: '^\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?$' };
    case 'select':
      return { type: 'string', enum: (field.options ?? []).map((o) => o.value) };
    case 'lookup':
    case 'master_detail':
      return { type: 'string', description: `id of a ${field.reference_to} record` };
    case 'file':
    case 'image':
      return ATTACHMENT;
    case 'object':
      return { type: 'object', additionalProperties: true };
    case 'json':
      return {};
    case 'formula':
      return { readOnly: true };
    default:
      return { type: 'string', ...(field.max_length !== undefined ? { maxLength: field.max_length } : {}), ...(field.min_length !== undefined ? { minLength: field.min_length } : {}) };
  }
}

/**
 * `<Object>`: a stored record (id and system fields read-only, required fields required);
 * `<Object>Input`: what a create or update sends (every writable field, all optional).
 */
export function objectSchemas(def: ObjectDefinition): Record<string, SchemaObject> {
  const record: Record<string, SchemaObject> = {};
  const input: Record<string, SchemaObject> = {};
  const required: string[] = ['id'];
  for (const field of Object.values(def.fields)) {
    const schema = fieldSchema(field);
    const writable = !field.system && !field.readonly && field.type !== 'auto_number' && field.type !== 'formula';
    record[field.name] = { ...schema, ...(field.required || field.name === 'id' ? {} : { nullable: true }), ...(writable ? {} : { readOnly: true }) };
    if (field.required && field.name !== 'id') required.push(field.name);
    if (writable) input[field.name] = { ...schema, nullable: !field.required };
  }
  const name = schemaName(def.name);
  return {
    [name]: { type: 'object', title: def.label, ...(def.description ? { description: def.description } : {}), required, properties: record },
    [`${name}Input`]: { type: 'object', title: `${def.label} (input)`, additionalProperties: false, properties: input },
  };
}

/** The spec's error body. */
export const ERROR_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_CODES) },
        message: { type: 'string' },
        details: { description: 'VALIDATION_ERROR: {fields: {<field>: <message>}}; FORBIDDEN: {required_permission, user_roles}; ...' },
      },
    },
  },
};

/** Responses for the given error codes, keyed by HTTP status, each with the error schema. */
export function errorResponses(...codes: ErrorCode[]): Record<string, OpenAPIV3.ResponseObject> {
  const out: Record<string, OpenAPIV3.ResponseObject> = {};
  for (const code of codes) {
    const status = String(ERROR_CODES[code]);
    const previous = out[status]?.description;
    out[status] = {
      description: previous ? `${previous}, ${code}` : code,
      content: { 'application/json': { schema: schemaRef('Error') } },
    };
  }
  return out;
}
