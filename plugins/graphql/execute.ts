/**
 * One GraphQL-over-HTTP request: the parameters (POST body or GET query string) checked, the
 * document parsed and validated (cached per query text and schema), the operation run as the
 * caller. No HTTP framework here; index.ts binds it.
 *
 * Statuses: 200 when the operation ran (errors of its fields are in `errors`); 400 for a request
 * that cannot run (no query, variables that are not a JSON object, a document that does not parse
 * or validate, variables that do not fit, an unknown operationName, a subscription over HTTP);
 * 405 with `Allow: POST` for a mutation sent by GET.
 */
import {
  execute,
  getOperationAST,
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import type { GraphQLContext } from './context';
import { DOCUMENT_CODES, formatError, type Log } from './errors';

export interface GraphQLHttpRequest {
  method: 'GET' | 'POST';
  /** POST: the parsed JSON body; GET: the query-string parameters. */
  params: unknown;
}

export interface GraphQLHttpResponse {
  status: number;
  body: { data?: unknown; errors?: readonly GraphQLFormattedError[] };
  headers?: Record<string, string>;
}

export interface Executor {
  schema: GraphQLSchema;
  introspection: boolean;
  log: Log;
  /** Parsed and validated documents of this schema, by query text. */
  documents: Map<string, Checked>;
}

/** A query text parsed and validated: its document, or its errors with their code. */
export type Checked = { document: DocumentNode } | { errors: readonly GraphQLError[]; code: string };

const MAX_CACHED_DOCUMENTS = 500;

export async function executeHttp(ex: Executor, req: GraphQLHttpRequest, context: GraphQLContext): Promise<GraphQLHttpResponse> {
  const params = readParams(req);
  if ('error' in params) return failure(400, params.error, 'INVALID_REQUEST');
  const checked = documentOf(ex, params.query);
  if ('errors' in checked) return { status: 400, body: { errors: checked.errors.map((e) => formatError(e, ex.log, checked.code)) } };
  const document = checked.document;
  const operation = getOperationAST(document, params.operationName);
  if (!operation) {
    const message = params.operationName
      ? `Unknown operation named '${params.operationName}'`
      : 'The document has several operations: name one in operationName';
    return failure(400, message, 'INVALID_REQUEST');
  }
  if (req.method === 'GET' && operation.operation !== 'query') {
    return { ...failure(405, `A ${operation.operation} cannot be sent with GET; use POST`, 'INVALID_REQUEST'), headers: { Allow: 'POST' } };
  }
  if (operation.operation === 'subscription')
    return failure(400, 'Subscriptions are served over WebSocket (graphql-ws) at this address, not over HTTP', 'INVALID_REQUEST');
  const result = await execute({
    schema: ex.schema,
    document,
    variableValues: params.variables,
    operationName: params.operationName,
    contextValue: context,
  });
  const errors = result.errors?.map((e) => formatError(e, ex.log, 'data' in result ? undefined : DOCUMENT_CODES.BAD_USER_INPUT));
  // No `data` at all: the operation never started (variables that do not fit its definitions).
  if (!('data' in result)) return { status: 400, body: { errors } };
  return { status: 200, body: errors ? { errors, data: result.data } : { data: result.data } };
}

interface Params {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

function readParams(req: GraphQLHttpRequest): Params | { error: string } {
  const p = req.params;
  if (typeof p !== 'object' || p === null || Array.isArray(p))
    return { error: 'The request body must be a JSON object {query, variables?, operationName?}' };
  const { query, variables, operationName } = p as Record<string, unknown>;
  if (typeof query !== 'string' || !query.trim()) return { error: "'query' is required: the GraphQL document as a string" };
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    return { error: "'operationName' must be a string" };
  let vars = variables;
  if (req.method === 'GET' && typeof vars === 'string') {
    try {
      vars = JSON.parse(vars);
    } catch {
      return { error: "'variables' must be a JSON object" };
    }
  }
  if (vars !== undefined && vars !== null && (typeof vars !== 'object' || Array.isArray(vars)))
    return { error: "'variables' must be a JSON object" };
  return {
    query,
    variables: (vars ?? undefined) as Record<string, unknown> | undefined,
    operationName: (operationName ?? undefined) as string | undefined,
  };
}

/** The parsed and validated document, or its errors; both remembered for this schema. */
function documentOf(ex: Executor, query: string): Checked {
  const cached = ex.documents.get(query);
  if (cached) return cached;
  let result: Checked;
  try {
    const document = parse(query);
    const rules = ex.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
    const errors = validate(ex.schema, document, rules);
    result = errors.length ? { errors, code: DOCUMENT_CODES.VALIDATION_FAILED } : { document };
  } catch (err) {
    if (!(err instanceof GraphQLError)) throw err;
    result = { errors: [err], code: DOCUMENT_CODES.PARSE_FAILED };
  }
  if (ex.documents.size >= MAX_CACHED_DOCUMENTS) ex.documents.delete(ex.documents.keys().next().value as string);
  ex.documents.set(query, result);
  return result;
}

function failure(status: number, message: string, code: string): GraphQLHttpResponse {
  return { status, body: { errors: [{ message, extensions: { code } }] } };
}
