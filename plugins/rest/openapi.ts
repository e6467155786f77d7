/**
 * The REST routes in the OpenAPI document: per object its list, record and bulk paths, with the
 * query parameters, request bodies and responses. Record shapes reference the object schemas
 * (`<Name>` as created, `<Name>Partial` as read, `<Name>Create`, `<Name>Update`) and the shared `Error`,
 * `PageMeta` and `GroupRow` that the openapi plugin puts into components.
 */
import { relationsOf, type ObjectDefinition } from '../../kernel';
import {
  GROUP_ROW,
  errorResponses,
  exampleId,
  listExamples,
  updateExample,
  objectSchemaNames,
  schemaRef,
  type OpenAPIDocument,
  type ExampleIds,
  type ReferenceObject,
  type SchemaObject,
} from '../../kernel/protocol';

type PathItem = NonNullable<OpenAPIDocument['paths'][string]>;
type Operation = NonNullable<PathItem['get']>;
type Parameter = Exclude<NonNullable<Operation['parameters']>[number], ReferenceObject>;
type Responses = Operation['responses'];

const json = (schema: SchemaObject | ReferenceObject) => ({ 'application/json': { schema } });
const query = (
  name: string,
  description: string,
  schema: SchemaObject = { type: 'string' },
  extra: Partial<Parameter> = {},
): Parameter => ({ name, in: 'query', required: false, description, schema, ...extra });

const BULK_ERRORS: SchemaObject = {
  type: 'array',
  description: 'The items that failed; the others were processed (bulk operations are not atomic).',
  items: {
    type: 'object',
    required: ['index', 'error'],
    properties: {
      index: { type: 'integer' },
      id: { type: 'string' },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} },
      },
    },
  },
};
const FILTERS: SchemaObject = {
  description:
    'Filter map ({"status": "active", "budget": [">", 1000]}) or array form ([["status", "=", "active"], "and", ...]); {} matches every record.',
  oneOf: [
    { type: 'object', additionalProperties: true },
    { type: 'array', items: {} },
  ],
};

/** The list parameters of one object, each example made from that object's fields. */
function listParameters(def: ObjectDefinition, relations: readonly string[]): { list: Parameter[]; record: Parameter[] } {
  const ex = listExamples(def, relations);
  const example = (value: string | undefined) => (value === undefined ? {} : { example: value });
  const fields = query(
    'fields',
    'Comma list of fields to return (id always comes), or a JSON array.',
    { type: 'string' },
    example(ex.fields),
  );
  const expand = query(
    'expand',
    'Comma list of relations to inline: a lookup field (its id becomes the related record) or a reverse relation (an array of the records ' +
      'pointing here); a dotted path goes deeper. Or a JSON map {relation: {fields, filters, sort, top, skip, count, expand}} ' +
      '(skip and count: reverse relations only; count adds <relation>@count).',
    { type: 'string' },
    example(ex.expand),
  );
  const list = [
    query(
      'filter',
      'JSON-encoded filter: array form [["status", "=", "active"]] or map form {"status": "active"}.',
      { type: 'string' },
      example(ex.filter),
    ),
    query(
      'sort',
      "A field or a comma list; descending as '-price' or 'price desc' (e.g. -price,name). May repeat.",
      { type: 'string' },
      example(ex.sort),
    ),
    query('top', 'Maximum records to return (default 100, at most the server limit).', { type: 'integer', minimum: 0 }),
    query('skip', 'Records to skip.', { type: 'integer', minimum: 0 }),
    query(
      'limit',
      "Deprecated alias of 'top'; when both are given they must be equal.",
      { type: 'integer', minimum: 0 },
      { deprecated: true },
    ),
    fields,
    expand,
    query(
      'groupBy',
      'Comma list of fields to group by (with aggregate): the items are then GroupRow rows.',
      { type: 'string' },
      example(ex.groupBy),
    ),
    query(
      'aggregate',
      'JSON array of {func: count|countdistinct|sum|avg|min|max, field, alias}: the items are then GroupRow rows; sort may name aliases.',
      { type: 'string' },
      example(ex.aggregate),
    ),
  ];
  return { list, record: [fields, expand] };
}
const ID: Parameter = { name: 'id', in: 'path', required: true, description: 'Record id', schema: { type: 'string' } };
const IF_MATCH: Parameter = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'Optimistic concurrency: the ETag of the record as last read (a list of weak or strong ETags, or *). The write happens only if ' +
    'the record has not changed since; else 412 PRECONDITION_FAILED and nothing changes. A malformed value matches nothing.',
  schema: { type: 'string' },
  example: 'W/"2024-05-01T12:00:00.000Z"',
};
/** The record's ETag: weak, made of its last change (updated_at, else created_at), for If-Match. */
const ETAG = {
  ETag: {
    description: 'W/"<ISO timestamp of updated_at, else created_at>", for If-Match; absent when the caller may read neither field',
    schema: { type: 'string' as const },
  },
};

/**
 * Every REST path of every object, under the data prefix. `ids`: record ids the examples may name
 * (a get or an update of a known record; a delete's id is left to the reader, so that trying it out
 * deletes nothing by accident).
 */
export function restPaths(objects: ObjectDefinition[], prefix: string, ids?: ExampleIds): OpenAPIDocument['paths'] {
  const paths: OpenAPIDocument['paths'] = {};
  const relations = relationsOf(objects);
  for (const def of objects)
    Object.assign(
      paths,
      objectPaths(
        def,
        prefix,
        (relations.get(def.name) ?? []).map((r) => r.name),
        ids,
      ),
    );
  return paths;
}

function objectPaths(def: ObjectDefinition, prefix: string, relations: readonly string[], ids?: ExampleIds): OpenAPIDocument['paths'] {
  const names = objectSchemaNames(def.name);
  const knownId: Parameter = { ...ID, example: exampleId(def.name, ids) };
  // Matches nothing unless replaced, so that trying a bulk operation out changes nothing by accident.
  const noRecord = { id: exampleId(def.name) };
  const tags = [def.label || def.name];
  const base = `${prefix}/${def.name}`;
  const parameters = listParameters(def, relations);
  const typeOnly: SchemaObject = { type: 'object', required: ['@type'], properties: { '@type': { type: 'string', enum: [def.name] } } };
  const created: SchemaObject = { allOf: [schemaRef(names.record), typeOnly] };
  const read: SchemaObject = { allOf: [schemaRef(names.partial), typeOnly] };
  const withType = (properties: Record<string, SchemaObject | ReferenceObject>, required: string[]): SchemaObject => ({
    type: 'object',
    required: [...required, '@type'],
    properties: { ...properties, '@type': { type: 'string', enum: [def.name] } },
  });
  const count = withType({ count: { type: 'integer' }, errors: BULK_ERRORS }, ['count']);
  const op = (operationId: string, summary: string, responses: Responses, more: Partial<Operation> = {}): Operation => ({
    operationId: `rest_${operationId}_${def.name}`,
    summary,
    tags,
    ...more,
    responses,
  });
  const body = (schema: SchemaObject | ReferenceObject, description: string, example?: unknown) => ({
    required: true,
    description,
    content: example === undefined ? json(schema) : { 'application/json': { schema, example } },
  });

  const update = op(
    'update',
    `Update a ${def.label} (only the fields sent change)`,
    {
      200: { description: 'The changed fields with id, updated_at and @type', headers: ETAG, content: json(read) },
      ...errorResponses('INVALID_REQUEST', 'VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PRECONDITION_FAILED'),
    },
    { parameters: [knownId, IF_MATCH], requestBody: body(schemaRef(names.update), 'Field values to change') },
  );

  return {
    [base]: {
      get: op(
        'list',
        `List ${def.label} records`,
        {
          200: {
            description:
              '{items, meta}: records (limited by fields, with expanded relations), or with groupBy/aggregate one GroupRow per group',
            content: json({
              type: 'object',
              required: ['items', 'meta'],
              properties: {
                items: { type: 'array', items: { anyOf: [schemaRef(names.partial), schemaRef(GROUP_ROW)] } },
                meta: schemaRef('PageMeta'),
              },
            }),
          },
          ...errorResponses('INVALID_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'),
        },
        { parameters: parameters.list },
      ),
      post: op(
        'create',
        `Create a ${def.label}, or many from an array`,
        {
          201: {
            description: 'The created record with @type; for an array body {items, count, @type} and errors for the items that failed',
            content: json({
              oneOf: [
                created,
                withType({ items: { type: 'array', items: schemaRef(names.record) }, count: { type: 'integer' }, errors: BULK_ERRORS }, [
                  'items',
                  'count',
                ]),
              ],
            }),
          },
          200: {
            description: 'Array body where no item could be created: {items: [], count: 0, @type, errors}',
            content: json(
              withType({ items: { type: 'array', items: schemaRef(names.record) }, count: { type: 'integer' }, errors: BULK_ERRORS }, [
                'items',
                'count',
                'errors',
              ]),
            ),
          },
          ...errorResponses('INVALID_REQUEST', 'VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'),
        },
        {
          requestBody: body(
            { oneOf: [schemaRef(names.create), { type: 'array', items: schemaRef(names.create) }] },
            'A record, or an array of records to create one by one',
          ),
        },
      ),
    },
    [`${base}/{id}`]: {
      get: op(
        'get',
        `One ${def.label}`,
        {
          200: { description: 'The record with @type (limited by fields, with expanded relations)', headers: ETAG, content: json(read) },
          ...errorResponses('INVALID_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'),
        },
        { parameters: [knownId, ...parameters.record] },
      ),
      put: update,
      patch: { ...update, operationId: `rest_patch_${def.name}`, summary: `Update a ${def.label} (same as PUT)` },
      delete: op(
        'delete',
        `Delete a ${def.label}`,
        {
          200: {
            description: '{id, deleted: true, @type}',
            content: json(withType({ id: { type: 'string' }, deleted: { type: 'boolean', enum: [true] } }, ['id', 'deleted'])),
          },
          ...errorResponses('INVALID_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'PRECONDITION_FAILED'),
        },
        { parameters: [ID, IF_MATCH] },
      ),
    },
    [`${base}/bulk-update`]: {
      post: op(
        'bulkUpdate',
        `Update every matching ${def.label}, record by record`,
        {
          200: { description: '{count, @type} and errors for the records that failed', content: json(count) },
          ...errorResponses('INVALID_REQUEST', 'VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'),
        },
        {
          requestBody: body(
            {
              type: 'object',
              required: ['filters', 'data'],
              additionalProperties: false,
              properties: { filters: FILTERS, data: schemaRef(names.update) },
            },
            '{filters, data}',
            { filters: noRecord, data: updateExample(def) },
          ),
        },
      ),
    },
    [`${base}/bulk-delete`]: {
      post: op(
        'bulkDelete',
        `Delete every matching ${def.label}, record by record`,
        {
          200: { description: '{count, @type} and errors for the records that failed', content: json(count) },
          ...errorResponses('INVALID_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'),
        },
        {
          requestBody: body(
            { type: 'object', required: ['filters'], additionalProperties: false, properties: { filters: FILTERS } },
            '{filters}',
            { filters: noRecord },
          ),
        },
      ),
    },
  };
}
