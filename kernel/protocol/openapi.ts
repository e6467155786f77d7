/**
 * Building blocks of the OpenAPI 3.0 document that protocol plugins share: the schema of each
 * object by the spec's type mapping (docs/spec.md), the error schema and its responses. The openapi plugin makes
 * the base document from these and runs the kernel's `openapi` hook, where each protocol plugin
 * adds its own paths.
 */
import type { OpenAPIV3 } from 'openapi-types';
import { ERROR_CODES, type ErrorCode } from '../errors';
import type { FieldDefinition, ObjectDefinition } from '../metadata/types';

export type OpenAPIDocument = OpenAPIV3.Document;
export type SchemaObject = OpenAPIV3.SchemaObject;
export type ReferenceObject = OpenAPIV3.ReferenceObject;

/** `project` → `Project`, `order_line` → `OrderLine`: the name of an object's schema. */
export function schemaName(object: string): string {
  return object
    .split(/[_\W]+/)
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('');
}

export function schemaRef(name: string): ReferenceObject {
  return { $ref: `#/components/schemas/${name}` };
}

const ATTACHMENT: SchemaObject = {
  type: 'object',
  required: ['name', 'url', 'size', 'type'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    url: { type: 'string' },
    size: { type: 'number' },
    type: { type: 'string' },
    original_name: { type: 'string' },
    uploaded_at: { type: 'string', format: 'date-time' },
    uploaded_by: { type: 'string' },
    width: { type: 'number' },
    height: { type: 'number' },
    thumbnail_url: { type: 'string' },
    variants: { type: 'object', properties: { small: { type: 'string' }, medium: { type: 'string' }, large: { type: 'string' } } },
  },
};

/** One field's value by the spec's type mapping (without nullability). A fresh object on every call. */
export function fieldSchema(field: FieldDefinition): SchemaObject {
  const base = scalarSchema(field);
  const about = { ...(field.label ? { title: field.label } : {}), ...(field.description ? { description: field.description } : {}) };
  return field.multiple ? { type: 'array', items: base, ...about } : { ...base, ...about };
}

/**
 * `schema` that also accepts null, by OpenAPI 3.0.3's rules: `nullable` only takes effect beside a
 * `type` (a schema without one, such as a json field's `{}`, already accepts null and is left as
 * is), and an `enum` must list null itself for null to be allowed.
 */
export function nullable(schema: SchemaObject): SchemaObject {
  if (schema.type === undefined) return schema;
  const values: unknown[] | undefined = schema.enum;
  return { ...schema, nullable: true, ...(values ? { enum: [...values, null] } : {}) };
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
      return {
        type: 'number',
        ...(field.min !== undefined ? { minimum: field.min } : {}),
        ...(field.max !== undefined ? { maximum: field.max } : {}),
      };
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
      // An empty enum is not a valid schema: a select without options is any string.
      return { type: 'string', ...(field.options?.length ? { enum: field.options.map((o) => o.value) } : {}) };
    case 'lookup':
    case 'master_detail':
      return { type: 'string', description: `id of the referenced ${field.reference_to} record` };
    case 'file':
    case 'image':
      return structuredClone(ATTACHMENT);
    case 'object':
      return { type: 'object', additionalProperties: true };
    case 'json':
      return {};
    case 'formula':
      return { readOnly: true };
    default:
      return {
        type: 'string',
        ...(field.max_length !== undefined ? { maxLength: field.max_length } : {}),
        ...(field.min_length !== undefined ? { minLength: field.min_length } : {}),
      };
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
    const stored = field.required || field.name === 'id' ? schema : nullable(schema);
    record[field.name] = writable ? stored : { ...stored, readOnly: true };
    if (field.required && field.name !== 'id') required.push(field.name);
    if (writable) input[field.name] = field.required ? schema : nullable(schema);
  }
  const name = schemaName(def.name);
  return {
    [name]: {
      type: 'object',
      title: def.label,
      ...(def.description ? { description: def.description } : {}),
      required,
      properties: record,
    },
    [`${name}Input`]: { type: 'object', title: `${def.label} (input)`, additionalProperties: false, properties: input },
  };
}

/** The spec's error body. Shared and module-level: copy it (structuredClone) into a document, never mutate it. */
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

/** The paging block of every list response (`meta` of JSON-RPC find and the REST list). Copy it, never mutate it. */
export const PAGE_META_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['total', 'page', 'size', 'pages', 'has_next'],
  properties: {
    total: { type: 'integer', minimum: 0, description: 'records matching the filters, over all pages' },
    page: { type: 'integer', minimum: 1, description: 'this page, from 1 (skip / size + 1)' },
    size: { type: 'integer', minimum: 0, description: 'the page size (top)' },
    pages: { type: 'integer', minimum: 0 },
    has_next: { type: 'boolean' },
  },
};

/**
 * The credential forms of the spec's Authentication section, by the names a document's
 * `security` requirements use (`{bearerAuth: []}` for an admin-token route, for instance).
 */
export const SECURITY_SCHEMES: Readonly<Record<'bearerAuth' | 'apiKey' | 'sessionCookie', OpenAPIV3.SecuritySchemeObject>> = {
  bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Authorization: Bearer <ACCESS_TOKEN>' },
  apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'X-API-Key: <API_KEY>' },
  sessionCookie: { type: 'apiKey', in: 'cookie', name: 'session_id', description: 'Cookie session_id=<SESSION_ID>' },
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
