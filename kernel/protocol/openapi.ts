/**
 * Building blocks of the OpenAPI 3.0 document that protocol plugins share: the schema of each
 * object by the spec's type mapping (docs/spec.md), the error schema and its responses. The openapi plugin makes
 * the base document from these and runs the kernel's `openapi` hook, where each protocol plugin
 * adds its own paths.
 */
import type { OpenAPIV3 } from 'openapi-types';
import { ERROR_CODES, type ErrorCode } from '../errors';
import { relationsOf, type Relation } from '../metadata/relations';
import { createExample, deniedFields, updateExample, type ExampleIds } from './openapi-examples';
import { ATTACHMENT_TYPES, RELATION_TYPES, type FieldDefinition, type ObjectDefinition } from '../metadata/types';

export {
  createExample,
  dataFileIds,
  deniedFields,
  exampleId,
  listExamples,
  updateExample,
  type ExampleIds,
  type ListExamples,
} from './openapi-examples';

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

/** The names of an object's schemas: `<Object>`, `<Object>Partial`, `<Object>Create`, `<Object>Update`. */
export function objectSchemaNames(object: string): { record: string; partial: string; create: string; update: string } {
  const name = schemaName(object);
  return { record: name, partial: `${name}Partial`, create: `${name}Create`, update: `${name}Update` };
}

/** The shared schema of a groupBy/aggregate row: see GROUP_ROW_SCHEMA. */
export const GROUP_ROW = 'GroupRow';

/**
 * One row of a groupBy/aggregate answer. Its keys come from the request, not from the object: each
 * groupBy field (its value; a lookup as its id) and each aggregate alias (count, countdistinct,
 * sum, avg: a number; min, max: a value of the field, so a date is a string). Every value is a
 * scalar or null, and there is no id. Copy it, never mutate it.
 */
export const GROUP_ROW_SCHEMA: SchemaObject = {
  type: 'object',
  description:
    'One row per group: the groupBy fields with their values (a lookup as its id) and every aggregate alias with its result ' +
    '(count, countdistinct, sum, avg: a number; min, max: a value of the field). No id; keys depend on the request.',
  additionalProperties: { oneOf: [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }] },
  example: { status: 'active', count: 3, total: 120000 },
};

/**
 * The schemas of one object:
 * - `<Object>`: a record as written back by a create (lookups as ids; id and system fields
 *   read-only; required: the required fields no permission entry hides from its readers);
 * - `<Object>Partial`: a record as read with the list options (`fields` may leave out any field but
 *   id, `expand` turns a lookup id into the related `<Target>Partial` and adds the reverse relations
 *   named in it as arrays with their `<name>@count`);
 * - `<Object>Create`: what a create sends (writable fields; required fields without a default are required);
 * - `<Object>Update`: what an update sends (writable fields, all optional; a required field cannot be set to null).
 * `relations`: the object's relations (relationsOf); `objects`: the names with schemas, which expansions may reference;
 * `ids`: record ids the create example's lookups may name.
 */
export function objectSchemas(
  def: ObjectDefinition,
  relations: readonly Relation[] = [],
  objects: ReadonlySet<string> = new Set([def.name]),
  ids?: ExampleIds,
): Record<string, SchemaObject> {
  const names = objectSchemaNames(def.name);
  // A reader a permission entry hides a field from never gets it, required or not.
  const hidden = deniedFields(def, 'allow_read');
  const record: Record<string, SchemaObject> = {};
  const partial: Record<string, SchemaObject | ReferenceObject> = {};
  const input: Record<string, SchemaObject> = {};
  const required: string[] = ['id'];
  const createRequired: string[] = [];
  for (const field of Object.values(def.fields)) {
    const schema = fieldSchema(field);
    const writable = !field.system && !field.readonly && field.type !== 'auto_number' && field.type !== 'formula';
    const stored = field.required || field.name === 'id' ? schema : nullable(schema);
    record[field.name] = writable ? stored : { ...stored, readOnly: true };
    partial[field.name] = RELATION_TYPES.has(field.type) ? expandable(field, objects) : record[field.name];
    if (field.required && field.name !== 'id' && !hidden.has(field.name)) required.push(field.name);
    if (!writable) continue;
    const value = ATTACHMENT_TYPES.has(field.type) ? attachmentInput(field) : schema;
    input[field.name] = field.required ? value : nullable(value);
    if (field.required && field.defaultValue === undefined) createRequired.push(field.name);
  }
  for (const relation of relations) {
    if (relation.kind !== 'reverse' || !objects.has(relation.target)) continue;
    partial[relation.name] = {
      type: 'array',
      description: `with expand=${relation.name}: the ${relation.target} records whose ${relation.field} is this record (at most top, after skip)`,
      items: schemaRef(objectSchemaNames(relation.target).partial),
    };
    partial[`${relation.name}@count`] = {
      type: 'integer',
      minimum: 0,
      description: `with expand {${relation.name}: {count: true}}: how many ${relation.target} records match, before top and skip`,
    };
  }
  const about = def.description ? { description: def.description } : {};
  return {
    [names.record]: { type: 'object', title: def.label, ...about, required, properties: record },
    [names.partial]: {
      type: 'object',
      title: `${def.label} (as read)`,
      description:
        'A record as list and get return it: with `fields`, only those fields and id; with `expand`, a lookup holds the related record ' +
        '(null when the caller may not see it) and each reverse relation named in expand holds an array of records.',
      required: ['id'],
      properties: partial,
    },
    [names.create]: {
      type: 'object',
      title: `${def.label} (create)`,
      additionalProperties: false,
      ...(createRequired.length ? { required: createRequired } : {}),
      properties: input,
      example: createExample(def, ids),
    },
    [names.update]: {
      type: 'object',
      title: `${def.label} (update)`,
      description: 'Only the fields sent change.',
      additionalProperties: false,
      properties: structuredClone(input),
      example: updateExample(def),
    },
  };
}

/** Every object's schemas and the shared ones (Error, PageMeta, GroupRow): the components a document's taps reference. */
export function documentSchemas(objects: readonly ObjectDefinition[], ids?: ExampleIds): Record<string, SchemaObject> {
  const names = new Set(objects.map((o) => o.name));
  const relations = relationsOf(objects);
  const schemas: Record<string, SchemaObject> = {
    Error: structuredClone(ERROR_SCHEMA),
    PageMeta: structuredClone(PAGE_META_SCHEMA),
    [GROUP_ROW]: structuredClone(GROUP_ROW_SCHEMA),
  };
  for (const def of objects) Object.assign(schemas, objectSchemas(def, relations.get(def.name), names, ids));
  return schemas;
}

/** A lookup as read: its id, or with expand the related record (null when the caller may not see it). */
function expandable(field: FieldDefinition, objects: ReadonlySet<string>): SchemaObject {
  const id: SchemaObject = { type: 'string', description: `id of the referenced ${field.reference_to} record` };
  const target = field.reference_to && objects.has(field.reference_to) ? field.reference_to : undefined;
  const about = { ...(field.label ? { title: field.label } : {}) };
  if (!target) return field.multiple ? { type: 'array', nullable: true, items: id, ...about } : { ...id, nullable: true, ...about };
  const one: SchemaObject = { oneOf: [id, schemaRef(objectSchemaNames(target).partial)] };
  const description = `the ${target} id; with expand=${field.name}, the ${target} record`;
  return field.multiple
    ? { type: 'array', nullable: true, items: one, description, ...about }
    : { oneOf: [{ ...id, nullable: true }, schemaRef(objectSchemaNames(target).partial)], description, ...about };
}

/** What a file or image field accepts: the attachment an upload returned, with only the keys its type allows. */
function attachmentInput(field: FieldDefinition): SchemaObject {
  const image = field.type === 'image';
  const properties: Record<string, SchemaObject> = {
    id: { type: 'string', description: 'the id of an upload (POST to the File API); it must exist' },
    name: { type: 'string', minLength: 1 },
    url: { type: 'string', minLength: 1, description: 'an http(s) URL or a relative path' },
    size: { type: 'number', minimum: 0 },
    type: { type: 'string', description: 'a MIME type such as image/png' },
    original_name: { type: 'string' },
    uploaded_at: { type: 'string', format: 'date-time' },
    uploaded_by: { type: 'string' },
  };
  if (image) {
    Object.assign(properties, {
      width: { type: 'number', minimum: 0 },
      height: { type: 'number', minimum: 0 },
      thumbnail_url: { type: 'string' },
      variants: {
        type: 'object',
        additionalProperties: false,
        properties: { small: { type: 'string' }, medium: { type: 'string' }, large: { type: 'string' } },
      },
    });
  }
  const about = { ...(field.label ? { title: field.label } : {}), ...(field.description ? { description: field.description } : {}) };
  const one: SchemaObject = {
    type: 'object',
    description: 'the attachment object an upload returned',
    required: ['name', 'url', 'size', 'type'],
    additionalProperties: false,
    properties,
  };
  return field.multiple ? { type: 'array', items: one, ...about } : { ...one, ...about };
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
