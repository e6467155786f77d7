/** The File API in the OpenAPI document: upload, batch upload, download, thumbnail and preview. */
import { errorResponses, schemaRef, type OpenAPIDocument, type ReferenceObject, type SchemaObject } from '../../kernel/protocol';
import { THUMBNAIL_NAMES } from './attachments';
import { MAX_PREVIEW_PX } from './image-route';

type PathItem = NonNullable<OpenAPIDocument['paths'][string]>;

const ATTACHMENT: SchemaObject = {
  type: 'object',
  required: ['id', 'name', 'url', 'size', 'type'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    url: { type: 'string' },
    size: { type: 'integer', minimum: 0 },
    type: { type: 'string', description: 'MIME type, sniffed from the content' },
    original_name: { type: 'string' },
    uploaded_at: { type: 'string', format: 'date-time' },
    uploaded_by: { type: 'string' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    thumbnail_url: { type: 'string' },
    variants: { type: 'object', properties: { small: { type: 'string' }, medium: { type: 'string' }, large: { type: 'string' } } },
  },
};

const TARGET = {
  object: { type: 'string', description: 'Object whose file/image field the upload is for (with field); its rules are enforced.' },
  field: { type: 'string', description: 'That field.' },
  folder: { type: 'string', description: 'A folder to keep the file in (sanitised).' },
} satisfies Record<string, SchemaObject>;

const UPLOAD_ERRORS = errorResponses(
  'INVALID_REQUEST',
  'FILE_VALIDATION_ERROR',
  'FILE_TOO_SMALL',
  'IMAGE_DIMENSIONS_INVALID',
  'UNAUTHORIZED',
  'FILE_ACCESS_DENIED',
  'FILE_TOO_LARGE',
  'FILE_TYPE_NOT_ALLOWED',
  'UPLOAD_FAILED',
  'RATE_LIMIT_EXCEEDED',
);
const READ_ERRORS = errorResponses('UNAUTHORIZED', 'FILE_ACCESS_DENIED', 'FILE_NOT_FOUND', 'RATE_LIMIT_EXCEEDED');
const IMAGE_ERRORS = errorResponses(
  'INVALID_REQUEST',
  'UNAUTHORIZED',
  'FILE_ACCESS_DENIED',
  'FILE_NOT_FOUND',
  'FILE_TYPE_NOT_ALLOWED',
  'RATE_LIMIT_EXCEEDED',
);

const FILE_ID = {
  name: 'fileId',
  in: 'path' as const,
  required: true,
  description: 'The id of an upload',
  schema: { type: 'string' as const },
};
const binary = (description: string) => ({
  description,
  content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } as SchemaObject } },
});
const data = (schema: SchemaObject | ReferenceObject) => ({
  'application/json': { schema: { type: 'object', required: ['data'], properties: { data: schema } } as SchemaObject },
});

export function filesPaths(base: string): Record<string, PathItem> {
  const multipart = (fileProperty: SchemaObject, name: string) => ({
    required: true,
    content: {
      'multipart/form-data': {
        schema: { type: 'object', required: [name], properties: { ...TARGET, [name]: fileProperty } } as SchemaObject,
      },
    },
  });
  const image = (summary: string, parameters: NonNullable<PathItem['get']>['parameters']) => ({
    tags: ['files'],
    summary,
    parameters: [FILE_ID, ...(parameters ?? [])],
    responses: {
      200: { description: 'The image', content: { 'image/*': { schema: { type: 'string', format: 'binary' } as SchemaObject } } },
      304: { description: 'Not modified' },
      ...IMAGE_ERRORS,
    },
  });
  return {
    [`${base}/upload`]: {
      post: {
        operationId: 'filesUpload',
        tags: ['files'],
        summary: 'Upload one file (parts object, field and folder before the file)',
        requestBody: multipart({ type: 'string', format: 'binary' }, 'file'),
        responses: { 200: { description: 'The stored attachment', content: data(schemaRef('Attachment')) }, ...UPLOAD_ERRORS },
      },
    },
    [`${base}/upload/batch`]: {
      post: {
        operationId: 'filesUploadBatch',
        tags: ['files'],
        summary: 'Upload several files at once; all are stored or none',
        requestBody: multipart({ type: 'array', items: { type: 'string', format: 'binary' } }, 'files'),
        responses: {
          200: { description: 'The stored attachments, in order', content: data({ type: 'array', items: schemaRef('Attachment') }) },
          ...UPLOAD_ERRORS,
        },
      },
    },
    [`${base}/{fileId}`]: {
      get: {
        operationId: 'filesDownload',
        tags: ['files'],
        summary: 'Download a file (Range, If-None-Match and If-Range honoured)',
        parameters: [FILE_ID, { name: 'Range', in: 'header', required: false, schema: { type: 'string' }, example: 'bytes=0-1023' }],
        responses: {
          200: binary('The file'),
          206: binary('The requested byte range'),
          304: { description: 'Not modified' },
          416: { description: 'Range not satisfiable' },
          ...READ_ERRORS,
        },
      },
    },
    [`${base}/{fileId}/thumbnail`]: {
      get: {
        operationId: 'filesThumbnail',
        ...image('A thumbnail of an image (64, 256 or 1024 px box)', [
          { name: 'size', in: 'query', required: false, schema: { type: 'string', enum: [...THUMBNAIL_NAMES], default: 'small' } },
        ]),
      },
    },
    [`${base}/{fileId}/preview`]: {
      get: {
        operationId: 'filesPreview',
        ...image('An image fitted in a box (give width, height or both)', [
          { name: 'width', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_PREVIEW_PX } },
          { name: 'height', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_PREVIEW_PX } },
        ]),
      },
    },
  };
}

/** Adds the File API's paths and the Attachment schema to the document. */
export function addFilesToDocument(doc: OpenAPIDocument, base: string): OpenAPIDocument {
  return {
    ...doc,
    paths: { ...doc.paths, ...filesPaths(base) },
    components: { ...doc.components, schemas: { ...doc.components?.schemas, Attachment: structuredClone(ATTACHMENT) } },
  };
}
