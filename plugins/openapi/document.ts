/**
 * The base OpenAPI document, before any protocol adds its paths: info, servers, the schema of
 * every object (`<Name>`, `<Name>Partial`, `<Name>Create`, `<Name>Update`), the shared schemas (Error, PageMeta, GroupRow), the security
 * schemes and this plugin's own two routes. Pure: no HTTP, no I/O.
 */
import { type ObjectDefinition } from '../../kernel';
import {
  GROUP_ROW,
  SECURITY_SCHEMES,
  documentSchemas,
  errorResponses,
  type ExampleIds,
  objectSchemaNames,
  type OpenAPIDocument,
} from '../../kernel/protocol';

export const OPENAPI_VERSION = '3.0.3';

/** Schemas of the base document that are not object schemas; an object must not take these names. */
export const SHARED_SCHEMAS = ['Error', 'PageMeta', GROUP_ROW] as const;

export interface DocumentSettings {
  title: string;
  version: string;
  /** Where the document itself is served (default `{routes.rpc}/openapi.json`), base path included. */
  documentPath: string;
  /** Where the API reference page is served, base path included. */
  docsPath: string;
  /** Whether callers without credentials are let in (adds `{}` to the global `security`). */
  anonymous: boolean;
  /** `info.license`: the option, else the application's package.json license; absent when neither says. */
  license?: { name: string; url: string };
}

/** What the HTTP layer answers any route, these included, for a request it cannot read. */
const MALFORMED = {
  '400': { description: 'INVALID_REQUEST: a malformed HTTP request', content: errorResponses('INVALID_REQUEST')['400'].content },
  '431': { description: "INVALID_REQUEST: the request's headers are too large", content: errorResponses('INVALID_REQUEST')['400'].content },
};

/** `ids`: record ids the examples may name (the data files' records). */
export function baseDocument(settings: DocumentSettings, objects: readonly ObjectDefinition[], ids?: ExampleIds): OpenAPIDocument {
  const clashes = schemaNameClashes(objects);
  if (clashes.length) throw new Error(`OpenAPI schema names clash: ${clashes.join('; ')}`);
  const schemas = documentSchemas(objects, ids);
  const security = [...Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: [] })), ...(settings.anonymous ? [{}] : [])];
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: settings.title,
      version: settings.version,
      description:
        `Generated from the metadata of ${objects.length} object${objects.length === 1 ? '' : 's'}` +
        (objects.length ? ` (${objects.map((o) => o.name).join(', ')})` : '') +
        '. Every protocol serves the same records through the same validation, hooks and permissions. ' +
        `Interactive reference: ${settings.docsPath}.`,
      ...(settings.license ? { license: settings.license } : {}),
    },
    servers: [{ url: '/' }],
    security,
    tags: [{ name: 'OpenAPI', description: 'This document and the interactive API reference' }],
    paths: {
      [settings.documentPath]: {
        get: {
          tags: ['OpenAPI'],
          operationId: 'getOpenApiDocument',
          summary: 'This OpenAPI 3.0 document, generated from the metadata',
          responses: {
            '200': {
              description: 'The OpenAPI document',
              headers: { ETag: { description: 'Changes when the document changes', schema: { type: 'string' } } },
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['openapi', 'info', 'paths'],
                    properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
                    additionalProperties: true,
                  },
                },
              },
            },
            '304': { description: 'Not modified (If-None-Match matched the ETag)' },
            ...MALFORMED,
          },
        },
      },
      [settings.docsPath]: {
        get: {
          tags: ['OpenAPI'],
          operationId: 'getApiReference',
          summary: 'Interactive API reference (Swagger UI, served locally)',
          responses: { '200': { description: 'An HTML page', content: { 'text/html': { schema: { type: 'string' } } } }, ...MALFORMED },
        },
      },
    },
    components: {
      schemas,
      securitySchemes: structuredClone(SECURITY_SCHEMES),
    },
  };
}

/**
 * Objects whose schema names collide with each other (`order_line` and `orderLine` are both
 * `OrderLine`) or with a shared schema (an object named `error`). Empty when all is well.
 */
export function schemaNameClashes(objects: readonly ObjectDefinition[]): string[] {
  const taken = new Map<string, string>(SHARED_SCHEMAS.map((n) => [n, 'a shared schema']));
  const clashes: string[] = [];
  for (const def of objects) {
    for (const candidate of Object.values(objectSchemaNames(def.name))) {
      const owner = taken.get(candidate);
      if (owner) clashes.push(`object '${def.name}' needs schema '${candidate}', already used by ${owner}`);
      else taken.set(candidate, `object '${def.name}'`);
    }
  }
  return clashes;
}
