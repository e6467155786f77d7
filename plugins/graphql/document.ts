/**
 * GraphQL documents checked against one schema — parsed, validated (without introspection when
 * it is off) and remembered by query text — and the operation of a document that is to run. One
 * set of rules for HTTP and for subscriptions' WebSocket.
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
import { DOCUMENT_CODES } from './errors';

/** A query text parsed and validated: its document, or its errors with their code. */
export type Checked = { document: DocumentNode } | { errors: readonly GraphQLError[]; code: string };

const MAX_CACHED_DOCUMENTS = 500;

/** The checked documents of one schema, by query text (the oldest forgotten past 500). */
export class Documents {
  private readonly checked = new Map<string, Checked>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly introspection: boolean,
  ) {}

  /** The parsed and validated document, or its errors; both remembered. */
  check(query: string): Checked {
    const cached = this.checked.get(query);
    if (cached) return cached;
    const result = checkDocument(this.schema, query, this.introspection);
    if (this.checked.size >= MAX_CACHED_DOCUMENTS) {
      const oldest = this.checked.keys().next();
      if (!oldest.done) this.checked.delete(oldest.value);
    }
    this.checked.set(query, result);
    return result;
  }
}

function checkDocument(schema: GraphQLSchema, query: string, introspection: boolean): Checked {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (err) {
    if (!(err instanceof GraphQLError)) throw err;
    return { errors: [err], code: DOCUMENT_CODES.PARSE_FAILED };
  }
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
