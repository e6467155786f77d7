/**
 * The metadata routes in the OpenAPI document (tapped on the kernel's `openapi` hook). Schema
 * names carry a `metadata.` prefix: an object's schema name (schemaName) never contains a dot, so
 * no application object can collide with them.
 */
import type { OpenAPIV3 } from 'openapi-types';
import { FIELD_TYPES, HOOK_EVENTS, type ErrorCode } from '../../kernel';
import { errorResponses, schemaRef, type OpenAPIDocument, type SchemaObject } from '../../kernel/protocol';
import { ADMIN_ONLY_TYPES } from './mapping';

const S = {
  field: 'metadata.FieldDescriptor',
  action: 'metadata.ActionDescriptor',
  hook: 'metadata.HookDescriptor',
  object: 'metadata.Object',
  summary: 'metadata.ObjectSummary',
  entries: 'metadata.EntryList',
  update: 'metadata.ObjectInfoUpdate',
  access: 'metadata.ObjectAccess',
} as const;

const str: SchemaObject = { type: 'string' };
const bool: SchemaObject = { type: 'boolean' };
const num: SchemaObject = { type: 'number' };
const strings: SchemaObject = { type: 'array', items: str };
const optionLabels: SchemaObject = { type: 'object', additionalProperties: str, description: 'select: option value → display label' };
const header = { name: str, label: str, icon: str, description: str };

export const METADATA_SCHEMAS: Record<string, SchemaObject> = {
  [S.field]: {
    type: 'object',
    required: ['name', 'type', 'label', 'required', 'unique', 'multiple'],
    properties: {
      name: str,
      type: { type: 'string', enum: [...FIELD_TYPES] },
      label: str,
      required: bool,
      unique: bool,
      multiple: bool,
      options: { ...strings, description: 'select: the option values' },
      option_labels: optionLabels,
      readonly: bool,
      system: bool,
      index: bool,
      description: str,
      defaultValue: {},
      reference_to: str,
      min: num,
      max: num,
      min_length: num,
      max_length: num,
      scale: num,
      accept: strings,
      max_size: num,
      min_size: num,
      max_width: num,
      max_height: num,
      min_width: num,
      min_height: num,
      validations: {
        type: 'array',
        description: 'only in the single-field response',
        items: { type: 'object', required: ['type', 'message'], properties: { type: str, message: str } },
      },
    },
  },
  [S.action]: {
    type: 'object',
    required: ['name', 'type', 'label', 'params'],
    properties: {
      name: str,
      type: { type: 'string', enum: ['record', 'global'] },
      label: str,
      description: str,
      params: {
        type: 'object',
        additionalProperties: {
          type: 'object',
          required: ['type', 'label', 'required'],
          properties: {
            type: str,
            label: str,
            required: bool,
            multiple: bool,
            options: strings,
            option_labels: optionLabels,
            reference_to: str,
            min: num,
            max: num,
          },
        },
      },
    },
  },
  [S.hook]: {
    type: 'object',
    required: ['event', 'description'],
    properties: { event: { type: 'string', enum: [...HOOK_EVENTS] }, description: str },
  },
  [S.object]: {
    type: 'object',
    required: ['name', 'label', 'fields', 'actions', 'hooks'],
    properties: {
      ...header,
      fields: { type: 'array', items: schemaRef(S.field), description: 'the fields the caller may read' },
      actions: { type: 'array', items: schemaRef(S.action) },
      hooks: { type: 'array', items: schemaRef(S.hook) },
    },
  },
  [S.summary]: {
    type: 'object',
    required: ['name', 'label', 'fields', 'actions', 'hooks'],
    properties: {
      ...header,
      fields: {
        type: 'object',
        additionalProperties: schemaRef(S.field),
        description: 'field name → descriptor, the fields the caller may read',
      },
      actions: { type: 'array', items: schemaRef(S.action) },
      hooks: { type: 'array', items: schemaRef(S.hook) },
    },
  },
  [S.entries]: {
    type: 'object',
    required: ['type', 'items'],
    properties: {
      type: str,
      items: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'content'],
          properties: { id: str, content: { description: 'as GET /{type}/{id} returns it' } },
        },
      },
    },
  },
  [S.access]: {
    type: 'object',
    required: ['object', 'read', 'create', 'edit', 'delete', 'fields'],
    properties: {
      object: str,
      read: bool,
      create: bool,
      edit: bool,
      delete: bool,
      fields: {
        type: 'object',
        description: 'field name → what the caller may do with it; only the fields the caller may read (hidden fields are absent)',
        additionalProperties: {
          type: 'object',
          required: ['read', 'edit'],
          properties: {
            read: { type: 'boolean', enum: [true] },
            edit: { type: 'boolean', description: 'may be written on create and update (never system, read-only or computed fields)' },
          },
        },
      },
    },
  },
  [S.update]: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: { label: { type: 'string', minLength: 1 }, description: str },
  },
};

const json = (schema: SchemaObject | OpenAPIV3.ReferenceObject, description = 'OK'): OpenAPIV3.ResponseObject => ({
  description,
  content: { 'application/json': { schema } },
});
const pathParam = (name: string, description: string): OpenAPIV3.ParameterObject => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: str,
});
const params = {
  name: pathParam('name', 'object name'),
  field: pathParam('field', 'field name'),
  type: pathParam('type', `metadata type (object, app, view, ...; ${ADMIN_ONLY_TYPES.join(', ')}: admins only)`),
  id: pathParam('id', 'entry identifier (the file name without .<type>.yml)'),
};

const TAG = 'Metadata';

function op(
  id: string,
  summary: string,
  parameters: OpenAPIV3.ParameterObject[],
  ok: OpenAPIV3.ResponseObject,
  errors: ErrorCode[],
  extra: Partial<OpenAPIV3.OperationObject> = {},
): OpenAPIV3.OperationObject {
  return {
    operationId: id,
    tags: [TAG],
    summary,
    parameters,
    ...extra,
    responses: { 200: ok, ...errorResponses(...errors, 'INTERNAL_ERROR') },
  };
}

/**
 * The path items of the metadata API under `prefix`; single-object routes under both `objects` and
 * `object`. `adminSecurity`: the security requirement of the admin-only operations (the document's
 * schemes, without the anonymous alternative).
 */
export function metadataPaths(prefix: string, adminSecurity?: OpenAPIV3.SecurityRequirementObject[]): OpenAPIV3.PathsObject {
  const base = prefix === '/' ? '' : prefix;
  const admin = adminSecurity?.length ? { security: adminSecurity } : {};
  const paths: OpenAPIV3.PathsObject = {
    [`${base}/objects`]: {
      get: op(
        'metadataListObjects',
        'Every object the caller may read (fields as a map)',
        [],
        json({ type: 'object', required: ['objects'], properties: { objects: { type: 'array', items: schemaRef(S.summary) } } }),
        // Any route: a body that does not parse (400), credentials that do not check out (401).
        ['INVALID_REQUEST', 'UNAUTHORIZED'],
      ),
    },
  };
  for (const seg of ['objects', 'object'] as const) {
    const suffix = seg === 'object' ? 'Singular' : '';
    paths[`${base}/${seg}/{name}`] = {
      get: op(
        `metadataGetObject${suffix}`,
        'One object: fields the caller may read, actions, hooks',
        [params.name],
        json(schemaRef(S.object)),
        ['NOT_FOUND'],
      ),
      put: op(
        `metadataUpdateObject${suffix}`,
        'Change label and/or description (admins only; in memory, until restart)',
        [params.name],
        json({ type: 'object', required: ['success'], properties: { success: { type: 'boolean', enum: [true] } } }),
        ['INVALID_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'],
        {
          ...admin,
          requestBody: { required: true, content: { 'application/json': { schema: schemaRef(S.update) } } },
        },
      ),
    };
    paths[`${base}/${seg}/{name}/fields/{field}`] = {
      get: op(
        `metadataGetField${suffix}`,
        'One field with its validations (hidden fields are not found)',
        [params.name, params.field],
        json(schemaRef(S.field)),
        ['NOT_FOUND'],
      ),
    };
    paths[`${base}/${seg}/{name}/actions`] = {
      get: op(
        `metadataListActions${suffix}`,
        "An object's actions",
        [params.name],
        json({ type: 'object', required: ['actions'], properties: { actions: { type: 'array', items: schemaRef(S.action) } } }),
        ['NOT_FOUND'],
      ),
    };
    paths[`${base}/${seg}/{name}/access`] = {
      get: op(
        `metadataGetAccess${suffix}`,
        'What the caller may do with the object (read, create, edit, delete) and with each field they may read',
        [params.name],
        json(schemaRef(S.access)),
        ['NOT_FOUND'],
      ),
    };
  }
  paths[`${base}/{type}`] = {
    get: op('metadataListEntries', 'Every entry of a loaded metadata type', [params.type], json(schemaRef(S.entries)), [
      'UNAUTHORIZED',
      'FORBIDDEN',
      'NOT_FOUND',
    ]),
  };
  paths[`${base}/{type}/{id}`] = {
    get: op(
      'metadataGetEntry',
      'The JSON content of one entry',
      [params.type, params.id],
      json({ description: 'the entry as loaded (objects: as GET /objects/{name})' }),
      ['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'],
    ),
    post: {
      operationId: 'metadataWriteEntry',
      tags: [TAG],
      summary: 'Not supported: metadata storage (YAML folders) is read-only',
      description: 'Admins get INVALID_REQUEST naming the entry (details {type, id, writable: false}); nothing is ever written.',
      parameters: [params.type, params.id],
      ...admin,
      responses: {
        // The spec's answer where the storage is writable; this server's YAML folders never are.
        200: {
          description:
            'Written: only from a metadata storage that supports writing. This server loads read-only YAML folders, so it never answers this.',
        },
        ...errorResponses('INVALID_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'INTERNAL_ERROR'),
      },
    },
  };
  return paths;
}

/** The `openapi` hook's tap: adds the metadata paths, schemas and tag to the document. */
export function addMetadataPaths(doc: OpenAPIDocument, prefix: string): OpenAPIDocument {
  const schemes = Object.keys(doc.components?.securitySchemes ?? {}).map((name) => ({ [name]: [] }));
  const paths = { ...doc.paths };
  for (const [path, item] of Object.entries(metadataPaths(prefix, schemes))) paths[path] = { ...paths[path], ...item };
  return {
    ...doc,
    paths,
    tags: [
      ...(doc.tags ?? []),
      { name: TAG, description: 'Object definitions, fields, actions and every other metadata type, as each caller may see them' },
    ],
    components: { ...doc.components, schemas: { ...doc.components?.schemas, ...structuredClone(METADATA_SCHEMAS) } },
  };
}
