/**
 * One GraphQL-over-HTTP request: the parameters (POST body or GET query string) checked, the
 * document parsed and validated (cached per query text and schema), the operation run as the
 * caller. No HTTP framework here; index.ts binds it.
 *
 * Statuses: 200 when the operation ran (errors of its fields are in `errors`); 400 for a request
 * that cannot run (no query, variables that are not a JSON object or are nested too deep, a
 * document that does not parse or validate or is beyond a query limit, an operation that costs
 * too much, variables that do not fit, an unknown operationName, a subscription over HTTP);
 * 405 with `Allow: POST` for a mutation sent by GET.
 *
 * Refused before that (refusal()): another method, 405 with `Allow: GET, POST`; a POST whose body
 * is not declared as JSON, 415 (GraphQL over HTTP), with the protocol layer's message.
 *
 * A hash of Apollo's persisted queries stands for its query (persisted-queries.ts): unknown,
 * 200 with PERSISTED_QUERY_NOT_FOUND; a query sent with its hash is kept once it is checked.
 */
import { execute, OperationTypeNode, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { ObjectQLError } from '../../kernel';
import { assertJsonTextDepth, assertValueDepth, jsonBodyProblem } from '../../kernel/protocol';
import type { GraphQLContext } from './context';
import { operationOf, type Documents } from './document';
import { DOCUMENT_CODES, formatError, type Log } from './errors';
import { resolvePersisted, type PersistedQueries } from './persisted-queries';

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
  /** The documents checked against `schema`. */
  documents: Documents;
  log: Log;
  /** Apollo's persisted queries: the plugin's settings and store. */
  persisted?: PersistedQueries;
}

/** The answer to a request the endpoint does not read at all, or undefined. Header names in lower case. */
export function refusal(method: string, headers: Readonly<Record<string, string | string[] | undefined>>): GraphQLHttpResponse | undefined {
  if (method !== 'GET' && method !== 'POST') {
    return {
      ...failure(405, `${method} is not served here; use POST (or GET for queries)`, 'INVALID_REQUEST'),
      headers: { Allow: 'GET, POST' },
    };
  }
  const problem = method === 'POST' ? jsonBodyProblem(headers) : undefined;
  return problem === undefined ? undefined : failure(415, problem, 'INVALID_REQUEST');
}

export async function executeHttp(ex: Executor, req: GraphQLHttpRequest, context: GraphQLContext): Promise<GraphQLHttpResponse> {
  const maxJsonDepth = ex.documents.limits.maxJsonDepth;
  let sent = req.params;
  let remember: (() => void) | undefined;
  if (ex.persisted && typeof sent === 'object' && sent !== null && !Array.isArray(sent)) {
    const outcome = resolvePersisted(sent as Record<string, unknown>, ex.persisted, maxJsonDepth);
    if ('answer' in outcome) return failure(outcome.answer.status, outcome.answer.message, outcome.answer.code, outcome.answer.details);
    sent = outcome.params;
    remember = outcome.remember;
  }
  const params = readParams({ method: req.method, params: sent }, maxJsonDepth);
  if ('error' in params) return failure(400, params.error, 'INVALID_REQUEST', params.details);
  const checked = ex.documents.check(params.query);
  if ('errors' in checked) return { status: 400, body: { errors: checked.errors.map((e) => formatError(e, ex.log, checked.code)) } };
  remember?.();
  const document = checked.document;
  const operation = operationOf(document, params.operationName);
  if ('problem' in operation) return failure(400, operation.problem, 'INVALID_REQUEST');
  if (req.method === 'GET' && operation.operation !== OperationTypeNode.QUERY) {
    return { ...failure(405, `A ${operation.operation} cannot be sent with GET; use POST`, 'INVALID_REQUEST'), headers: { Allow: 'POST' } };
  }
  if (operation.operation === OperationTypeNode.SUBSCRIPTION)
    return failure(400, 'Subscriptions are served over WebSocket (graphql-ws) at this address, not over HTTP', 'INVALID_REQUEST');
  const tooCostly = ex.documents.costProblem(document, operation, params.variables);
  if (tooCostly) return { status: 400, body: { errors: [formatError(tooCostly, ex.log, 'INVALID_REQUEST')] } };
  const compiled = ex.documents.compiled(document, params.operationName);
  const result = await (compiled
    ? compiled(context, params.variables)
    : execute({
        schema: ex.schema,
        document,
        variableValues: params.variables,
        operationName: params.operationName,
        contextValue: context,
      }));
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

function readParams(req: GraphQLHttpRequest, maxJsonDepth: number): Params | { error: string; details?: unknown } {
  const p = req.params;
  if (typeof p !== 'object' || p === null || Array.isArray(p))
    return { error: 'The request body must be a JSON object {query, variables?, operationName?}' };
  const { query, variables, operationName } = p as Record<string, unknown>;
  if (typeof query !== 'string' || !query.trim()) return { error: "'query' is required: the GraphQL document as a string" };
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    return { error: "'operationName' must be a string" };
  let vars = variables;
  try {
    // Measured before anything walks them (JSON.parse copes; coercing them to the operation's types recurses).
    if (req.method === 'GET' && typeof vars === 'string') {
      assertJsonTextDepth(vars, maxJsonDepth, "'variables'");
      vars = parseVariables(vars);
    } else assertValueDepth(vars, maxJsonDepth, "'variables'");
  } catch (err) {
    if (!(err instanceof ObjectQLError)) throw err;
    return { error: err.message, details: err.details };
  }
  if (vars !== undefined && vars !== null && (typeof vars !== 'object' || Array.isArray(vars)))
    return { error: "'variables' must be a JSON object" };
  return {
    query,
    variables: (vars ?? undefined) as Record<string, unknown> | undefined,
    operationName: operationName ?? undefined,
  };
}

function parseVariables(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ObjectQLError('INVALID_REQUEST', "'variables' must be a JSON object");
  }
}

function failure(status: number, message: string, code: string, details?: unknown): GraphQLHttpResponse {
  return { status, body: { errors: [{ message, extensions: details === undefined ? { code } : { code, details } }] } };
}
