/**
 * GraphQL documents checked against one schema — held to the query limits (limits.ts), parsed,
 * validated (without introspection when it is off) and remembered by query text — and the
 * operation of a document that is to run. One set of rules for HTTP and for subscriptions'
 * WebSocket.
 */
import {
  getOperationAST,
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { costProblem } from './cost';
import { DOCUMENT_CODES } from './errors';
import { limitRules, scanDocument, type QueryLimits } from './limits';

/** A query text parsed and validated: its document, or its errors with their code. */
export type Checked = { document: DocumentNode } | { errors: readonly GraphQLError[]; code: string };

const MAX_CACHED_DOCUMENTS = 500;
/** Longer query texts are checked every time: 500 of them held as keys would hold up to 500 request bodies. */
const MAX_CACHED_LENGTH = 20_000;
const MAX_CACHED_VARIABLES = 1000;
const MAX_COSTS_PER_DOCUMENT = 100;

/** The code of a document beyond a query limit: a request the caller can fix. */
const LIMIT_CODE = 'INVALID_REQUEST';

/** The checked documents of one schema, by query text up to 20,000 characters (the oldest forgotten past 500). */
export class Documents {
  private readonly checked = new Map<string, Checked>();
  /** Cost answers per document, operation and variables (small ones only): the estimate walks the whole document. */
  private readonly costs = new WeakMap<DocumentNode, Map<string, GraphQLError | null>>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly introspection: boolean,
    readonly limits: QueryLimits,
  ) {}

  /** The parsed and validated document, or its errors; both remembered. */
  check(query: string): Checked {
    const cached = this.checked.get(query);
    if (cached) return cached;
    const result = checkDocument(this.schema, query, this.introspection, this.limits);
    if (query.length > MAX_CACHED_LENGTH) return result;
    if (this.checked.size >= MAX_CACHED_DOCUMENTS) {
      const oldest = this.checked.keys().next();
      if (!oldest.done) this.checked.delete(oldest.value);
    }
    this.checked.set(query, result);
    return result;
  }

  /** Why `operation` of a checked document may not run with these variables (maxSelections, maxCost), or undefined. */
  costProblem(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown> | undefined,
  ): GraphQLError | undefined {
    const text = variables === undefined ? '' : JSON.stringify(variables);
    if (text.length > MAX_CACHED_VARIABLES) return costProblem(this.schema, document, operation, variables, this.limits);
    let byKey = this.costs.get(document);
    if (!byKey) this.costs.set(document, (byKey = new Map<string, GraphQLError | null>()));
    const key = `${operation.name?.value ?? ''}\n${text}`;
    let answer = byKey.get(key);
    if (answer === undefined) {
      answer = costProblem(this.schema, document, operation, variables, this.limits) ?? null;
      if (byKey.size >= MAX_COSTS_PER_DOCUMENT) byKey.delete(byKey.keys().next().value!);
      byKey.set(key, answer);
    }
    return answer ?? undefined;
  }
}

function checkDocument(schema: GraphQLSchema, query: string, introspection: boolean, limits: QueryLimits): Checked {
  const tooLarge = scanDocument(query, limits);
  if (tooLarge) return { errors: [tooLarge], code: LIMIT_CODE };
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: limits.maxTokens });
  } catch (err) {
    if (!(err instanceof GraphQLError)) throw err;
    return { errors: [err], code: DOCUMENT_CODES.PARSE_FAILED };
  }
  // The limits first, on their own: graphql-js's rules then only see a document of bounded size.
  const beyond = validate(schema, document, limitRules(limits));
  if (beyond.length) return { errors: beyond, code: LIMIT_CODE };
  const rules = introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
  const errors = validate(schema, document, rules);
  return errors.length ? { errors, code: DOCUMENT_CODES.VALIDATION_FAILED } : { document };
}

/** The operation `operationName` names (or the only one), or why there is none to run (an INVALID_REQUEST). */
export function operationOf(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode | { problem: string } {
  const operation = getOperationAST(document, operationName);
  if (operation) return operation;
  return {
    problem: operationName
      ? `Unknown operation named '${operationName}'`
      : 'The document has several operations: name one in operationName',
  };
}
