/**
 * The JSON-RPC route in the OpenAPI document: `POST {the rpc prefix}` with one request schema per op
 * (a `oneOf` discriminated by `op`, `object` an enum of every object name), the response shape of
 * each op and the error responses. Pure: index.ts taps it into the kernel's `openapi` hook.
 */
import { type ObjectDefinition, type ResolvedConfig } from '../../kernel';
import {
  ERROR_SCHEMA,
  GROUP_ROW,
  createExample,
  deniedFields,
  errorResponses,
  exampleId,
  listExamples,
  objectSchemaNames,
  schemaName,
  schemaRef,
  type ExampleIds,
  type OpenAPIDocument,
  type ReferenceObject,
  type SchemaObject,
} from '../../kernel/protocol';
import { RPC_OPS, type RpcOp } from './mapping';

type Schema = SchemaObject | ReferenceObject;

const ARGS_OPTIONAL: ReadonlySet<RpcOp> = new Set(['find', 'count']);
const ref = (name: string) => schemaRef(name);
const strings: SchemaObject = { type: 'array', items: { type: 'string' } };
const typeProp: SchemaObject = { type: 'string', description: 'the object name' };

/** `find` → `RpcFindRequest`, `createMany` → `RpcCreateManyRequest`. */
export function rpcSchemaName(op: RpcOp, suffix: 'Request' | 'Args'): string {
  return `Rpc${op[0].toUpperCase()}${op.slice(1)}${suffix}`;
}

/** `ids`: record ids the request examples may name (findOne, create's lookups). */
export function addRpcPaths(
  doc: OpenAPIDocument,
  path: string,
  objects: readonly ObjectDefinition[],
  limits: ResolvedConfig['limits'],
  ids?: ExampleIds,
): OpenAPIDocument {
  const schemas = { ...sharedSchemas(objects), ...argsSchemas(limits), ...requestSchemas(objects, limits), ...responseSchemas(objects) };
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, ...schemas } };
  doc.tags = [...(doc.tags ?? []), { name: 'JSON-RPC', description: 'One route, one operation per request: {op, object, args}' }];
  doc.paths[path] = {
    ...doc.paths[path],
    post: {
      tags: ['JSON-RPC'],
      operationId: 'rpc',
      summary: 'Run one operation (find, findOne, create, update, delete, count, action, createMany, updateMany, deleteMany) on an object',
      description:
        'The request names the operation (`op`), the target object (`object`) and its arguments (`args`); see RpcRequest for the arguments of each op ' +
        'and the `<Object>Create` / `<Object>Update` schemas for the fields of each object. Bulk operations (createMany, updateMany, deleteMany) go record by ' +
        'record and are not atomic: failed items are listed in `errors`.',
      requestBody: { required: true, content: { 'application/json': { schema: ref('RpcRequest'), ...examples(objects, ids) } } },
      responses: {
        '200': {
          description:
            'find: RpcFindResponse; findOne, create, update: RpcRecordResponse; delete: RpcDeleteResponse; count: RpcCountResponse; ' +
            'action: RpcActionResponse; createMany: RpcCreateManyResponse; updateMany, deleteMany: RpcBulkResponse',
          content: {
            'application/json': {
              schema: {
                anyOf: [
                  'RpcFindResponse',
                  'RpcRecordResponse',
                  'RpcDeleteResponse',
                  'RpcCountResponse',
                  'RpcActionResponse',
                  'RpcCreateManyResponse',
                  'RpcBulkResponse',
                ].map(ref),
              },
            },
          },
        },
        ...errorResponses(
          'INVALID_REQUEST',
          'VALIDATION_ERROR',
          'EXPAND_DEPTH_EXCEEDED',
          'UNAUTHORIZED',
          'FORBIDDEN',
          'NOT_FOUND',
          'CONFLICT',
          'INTERNAL_ERROR',
          'DATABASE_ERROR',
        ),
      },
    },
  };
  return doc;
}

function sharedSchemas(objects: readonly ObjectDefinition[]): Record<string, Schema> {
  const names = objects.map((o) => o.name);
  const actions = [...new Set(objects.flatMap((o) => Object.keys(o.actions)))].sort();
  return {
    RpcObjectName: { type: 'string', description: 'the target object', ...(names.length ? { enum: names } : {}) },
    RpcActionName: { type: 'string', description: 'an action declared on the target object', ...(actions.length ? { enum: actions } : {}) },
    RpcFilter: {
      description:
        'Array form: conditions [field, operator, value] joined by "and" / "or" (adjacent conditions are and-ed; a condition may be a nested list; ["not", [...]] negates). ' +
        'Map form: {field: value} for equality or {field: [operator, value]}. Operators: = != > >= < <= in, not in, like, startswith, endswith, contains, between.',
      oneOf: [
        {
          type: 'array',
          items: { oneOf: [{ type: 'string' }, { type: 'array', items: {} }] },
          example: [['status', '=', 'active'], 'and', ['budget', '>', 1000]],
        },
        ref('RpcFilterMap'),
      ],
    },
    RpcFilterMap: {
      type: 'object',
      description: 'field → value (equality) or [operator, value]',
      additionalProperties: true,
      example: { status: 'active', budget: ['>', 1000] },
    },
    RpcSort: {
      description: '[[field, "asc" | "desc"], ...], or "name", "-budget", "name, budget desc"',
      oneOf: [
        { type: 'string' },
        { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } }] } },
      ],
    },
    RpcExpand: {
      type: 'object',
      description:
        'relation → options: a lookup field (the related record appears inline under that field) or a reverse relation ' +
        '(an array of the records pointing here, under its name)',
      additionalProperties: ref('RpcExpandOptions'),
    },
    RpcExpandOptions: {
      type: 'object',
      additionalProperties: false,
      properties: {
        fields: strings,
        filters: ref('RpcFilter'),
        sort: ref('RpcSort'),
        top: { type: 'integer', minimum: 0 },
        skip: { type: 'integer', minimum: 0, description: 'reverse relations only: related records to skip per parent' },
        count: { type: 'boolean', description: 'reverse relations only: also set <relation>@count on each parent' },
        expand: ref('RpcExpand'),
      },
    },
    RpcAggregate: {
      type: 'object',
      required: ['func'],
      additionalProperties: false,
      properties: {
        func: { type: 'string', enum: ['count', 'countdistinct', 'sum', 'avg', 'min', 'max'] },
        field: { type: 'string', description: 'optional for count' },
        alias: { type: 'string', description: 'default `<func>_<field>`; sort may name it' },
      },
    },
    RpcUser: {
      type: 'object',
      description: 'Development and tests only: honoured when security.allowBodyUser is on and no credentials identify the caller.',
      required: ['id'],
      additionalProperties: true,
      properties: { id: { type: 'string' }, roles: strings },
    },
    RpcAiContext: {
      type: 'object',
      description: 'Semantic annotation, logged; does not change results.',
      additionalProperties: true,
      properties: { intent: { type: 'string' }, natural_language: { type: 'string' }, use_case: { type: 'string' } },
    },
  };
}

function argsSchemas(limits: ResolvedConfig['limits']): Record<string, Schema> {
  const id: SchemaObject = { type: 'string', description: 'a record id' };
  const filters = ref('RpcFilter');
  const filterMap = ref('RpcFilterMap');
  const object = (properties: Record<string, Schema>, required: string[] = []): SchemaObject => ({
    type: 'object',
    additionalProperties: false,
    ...(required.length ? { required } : {}),
    properties,
  });
  return {
    RpcFindArgs: object({
      fields: { ...strings, nullable: true, description: 'null or omitted: every field the caller may read' },
      filters,
      sort: ref('RpcSort'),
      // Defaults in words, not `default`: generators such as openapi-typescript make a property with a default required.
      top: { type: 'integer', minimum: 0, maximum: limits.maxTop, description: `default ${limits.defaultTop}` },
      skip: { type: 'integer', minimum: 0, description: 'default 0' },
      expand: ref('RpcExpand'),
      groupBy: strings,
      aggregate: { type: 'array', items: ref('RpcAggregate') },
      limit: { type: 'integer', minimum: 0, deprecated: true, description: 'deprecated alias of top; given with top, both must be equal' },
    }),
    RpcFindOneArgs: { oneOf: [id, object({ filters, fields: strings, expand: ref('RpcExpand') }, ['filters'])] },
    RpcDeleteArgs: { oneOf: [id, object({ id }, ['id'])] },
    RpcCountArgs: object({ filters }),
    RpcActionArgs: object(
      {
        action: ref('RpcActionName'),
        id: { type: 'string', description: 'the record, for a record action' },
        input: { type: 'object', additionalProperties: true },
      },
      ['action'],
    ),
    RpcDeleteManyArgs: object({ filters: filterMap }, ['filters']),
  };
}

/**
 * The args of the ops that carry field values, for one object: create and createMany take its
 * `<Object>Create`, update and updateMany its `<Object>Update`. Undefined for the other ops.
 */
function fieldArgs(op: RpcOp, object: string, limits: ResolvedConfig['limits']): Schema | undefined {
  const names = objectSchemaNames(object);
  const filterMap = ref('RpcFilterMap');
  const closed = (properties: Record<string, Schema>, required: string[]): SchemaObject => ({
    type: 'object',
    additionalProperties: false,
    required,
    properties,
  });
  switch (op) {
    case 'create':
      return ref(names.create);
    case 'createMany':
      return { type: 'array', items: ref(names.create), maxItems: limits.maxBulkItems };
    case 'update':
      return closed({ id: { type: 'string', description: 'a record id' }, data: ref(names.update) }, ['id', 'data']);
    case 'updateMany':
      return closed({ filters: filterMap, data: ref(names.update) }, ['filters', 'data']);
    default:
      return undefined;
  }
}

/**
 * One request schema per op; for the ops that carry field values, one per op and object (a oneOf
 * discriminated by `object`), so that a create names the object's required fields.
 */
function requestSchemas(objects: readonly ObjectDefinition[], limits: ResolvedConfig['limits']): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  const request = (op: RpcOp, object: Schema, args: Schema): SchemaObject => ({
    type: 'object',
    required: ['op', 'object', ...(ARGS_OPTIONAL.has(op) ? [] : ['args'])],
    additionalProperties: false,
    properties: { op: { type: 'string', enum: [op] }, object, args, user: ref('RpcUser'), ai_context: ref('RpcAiContext') },
  });
  for (const op of RPC_OPS) {
    const name = rpcSchemaName(op, 'Request');
    if (!fieldArgs(op, '', limits)) {
      out[name] = request(op, ref('RpcObjectName'), ref(rpcSchemaName(op, 'Args')));
      continue;
    }
    if (!objects.length) {
      out[name] = request(op, ref('RpcObjectName'), { type: 'object', additionalProperties: true });
      continue;
    }
    const byObject: Record<string, string> = {};
    for (const def of objects) {
      const variant = `Rpc${op[0].toUpperCase()}${op.slice(1)}${schemaName(def.name)}Request`;
      byObject[def.name] = `#/components/schemas/${variant}`;
      out[variant] = request(op, { type: 'string', enum: [def.name] }, fieldArgs(op, def.name, limits)!);
    }
    out[name] = {
      description: `${op}: one schema per object, chosen by 'object'`,
      oneOf: Object.values(byObject).map((r) => ({ $ref: r })),
      discriminator: { propertyName: 'object', mapping: byObject },
    };
  }
  // No discriminator on op: the create and update requests are themselves a oneOf (one per object),
  // which a discriminator mapping may not name; `op` alone still tells the alternatives apart.
  out.RpcRequest = {
    description: 'one of the op requests, told apart by `op` (and for create, update, createMany, updateMany by `object`)',
    oneOf: RPC_OPS.map((op) => ref(rpcSchemaName(op, 'Request'))),
  };
  return out;
}

function responseSchemas(objects: readonly ObjectDefinition[]): Record<string, Schema> {
  const names = objects.map((o) => objectSchemaNames(o.name));
  const bulkErrors: SchemaObject = {
    type: 'array',
    items: ref('RpcBulkError'),
    description: 'the items that failed; the others were processed',
  };
  const count: SchemaObject = { type: 'integer', minimum: 0 };
  return {
    RpcRecord: {
      description:
        'A record of the target object as read (its `<Object>Partial` schema: limited to `fields` when given, with expanded relations inline); ' +
        'with groupBy/aggregate, a GroupRow per group.',
      anyOf: [...names.map((n) => ref(n.partial)), ref(GROUP_ROW)],
    },
    RpcFindResponse: {
      type: 'object',
      required: ['items', 'meta'],
      properties: { items: { type: 'array', items: ref('RpcRecord') }, meta: ref('PageMeta') },
    },
    RpcRecordResponse: {
      type: 'object',
      description: 'findOne and create: the record; update: the changed fields with id and updated_at',
      required: ['@type'],
      additionalProperties: true,
      properties: { id: { type: 'string' }, '@type': typeProp },
    },
    RpcDeleteResponse: {
      type: 'object',
      required: ['id', 'deleted', '@type'],
      properties: { id: { type: 'string' }, deleted: { type: 'boolean', enum: [true] }, '@type': typeProp },
    },
    RpcCountResponse: { type: 'object', required: ['count', '@type'], properties: { count, '@type': typeProp } },
    RpcActionResponse: {
      type: 'object',
      description: "the action's result map",
      required: ['@type'],
      additionalProperties: true,
      properties: { '@type': typeProp },
    },
    RpcBulkError: {
      type: 'object',
      required: ['index', 'error'],
      properties: {
        index: { type: 'integer', minimum: 0 },
        id: { type: 'string' },
        error: structuredClone(ERROR_SCHEMA.properties!.error),
      },
    },
    RpcCreateManyResponse: {
      type: 'object',
      required: ['items', 'count', '@type'],
      properties: {
        items: { type: 'array', items: names.length ? { anyOf: names.map((n) => ref(n.record)) } : { type: 'object' } },
        count,
        '@type': typeProp,
        errors: bulkErrors,
      },
    },
    RpcBulkResponse: { type: 'object', required: ['count', '@type'], properties: { count, '@type': typeProp, errors: bulkErrors } },
  };
}

/**
 * Request examples on the first object, for the API reference's "try it out": each names only that
 * object's fields. findOne names a known record; delete a placeholder, so that trying it out deletes
 * nothing by accident.
 */
function examples(
  objects: readonly ObjectDefinition[],
  ids?: ExampleIds,
): { examples?: Record<string, { summary: string; value: unknown }> } {
  const def = objects[0];
  if (!def) return {};
  const object = def.name;
  const readable = deniedFields(def, 'allow_read');
  const fields = Object.values(def.fields)
    .filter((f) => !f.system && !readable.has(f.name))
    .slice(0, 2)
    .map((f) => f.name);
  const list = listExamples(def, []);
  const aggregate = JSON.parse(list.aggregate) as unknown[];
  return {
    examples: {
      find: { summary: `find: first 10 ${object} records`, value: { op: 'find', object, args: { fields: ['id', ...fields], top: 10 } } },
      findOne: { summary: `findOne: a ${object} record by id`, value: { op: 'findOne', object, args: exampleId(object, ids) } },
      count: { summary: `count: all ${object} records`, value: { op: 'count', object, args: {} } },
      aggregate: {
        summary: `find with aggregate: ${object} totals${list.groupBy ? ` per ${list.groupBy}` : ''}`,
        value: { op: 'find', object, args: { ...(list.groupBy ? { groupBy: [list.groupBy] } : {}), aggregate } },
      },
      create: {
        summary: `create: a ${object} record (its required fields)`,
        value: { op: 'create', object, args: createExample(def, ids) },
      },
      delete: { summary: `delete: a ${object} record by id`, value: { op: 'delete', object, args: { id: exampleId(object) } } },
    },
  };
}
