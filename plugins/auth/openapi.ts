/**
 * The session routes in the OpenAPI document, with the security schemes the document already
 * declares (bearerAuth, apiKey, sessionCookie). Pure: index.ts taps it into the `openapi` hook.
 */
import { errorResponses, type OpenAPIDocument, type SchemaObject } from '../../kernel/protocol';

const SESSION: SchemaObject = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      required: ['expires_at', 'user'],
      properties: {
        expires_at: { type: 'string', format: 'date-time' },
        user: {
          type: 'object',
          required: ['id', 'roles'],
          properties: { id: { type: 'string' }, roles: { type: 'array', items: { type: 'string' } } },
          additionalProperties: true,
        },
      },
    },
  },
};

const COOKIE_HEADER = {
  'Set-Cookie': {
    description: 'session_id=<SESSION_ID>; HttpOnly; SameSite=Lax (or Strict); Path=/; Max-Age=<ttlSeconds> (Secure over TLS)',
    schema: { type: 'string' as const },
  },
};

export function addSessionPaths(doc: OpenAPIDocument, path: string): OpenAPIDocument {
  const route = `${path}/session`;
  const session = { 'application/json': { schema: structuredClone(SESSION) } };
  doc.tags = [
    ...(doc.tags ?? []),
    { name: 'Authentication', description: 'Sessions: a session_id cookie in exchange for a Bearer token or an API key' },
  ];
  doc.paths[route] = {
    ...doc.paths[route],
    post: {
      tags: ['Authentication'],
      operationId: 'createSession',
      summary: 'Exchange a Bearer token or an X-API-Key header for a session cookie',
      security: [{ bearerAuth: [] }, { apiKey: [] }],
      responses: { '201': { description: 'The new session', headers: COOKIE_HEADER, content: session }, ...errorResponses('UNAUTHORIZED') },
    },
    get: {
      tags: ['Authentication'],
      operationId: 'getSession',
      summary: "The current session's user and expiry",
      security: [{ sessionCookie: [] }],
      responses: { '200': { description: 'The current session', content: session }, ...errorResponses('UNAUTHORIZED') },
    },
    delete: {
      tags: ['Authentication'],
      operationId: 'deleteSession',
      summary: 'End the current session (the cookie is cleared)',
      security: [{ sessionCookie: [] }],
      responses: { '204': { description: 'Session ended', headers: COOKIE_HEADER }, ...errorResponses('UNAUTHORIZED') },
    },
  };
  return doc;
}
