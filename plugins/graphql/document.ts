/**
 * GraphQL documents checked against one schema — held to the query limits (limits.ts), parsed,
 * validated (without introspection when it is off) and remembered by query text — and the
 * operation of a document that is to run. One set of rules for HTTP and for subscriptions'
 * WebSocket.
 */
import {
  execute,
  getNamedType,
  getOperationAST,
  isInputObjectType,
  typeFromAST,
  type GraphQLInputObjectType,
  type GraphQLType,
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
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

/** An operation run compiled: what graphql-js's `execute` answers, from a function built for it. */
export type CompiledOperation = (
  context: unknown,
  variables: Record<string, unknown> | undefined,
) => Promise<ExecutionResult> | ExecutionResult;
type Compilation = { runs: number; run?: CompiledOperation | null };

/** The code of a document beyond a query limit: a request the caller can fix. */
const LIMIT_CODE = 'INVALID_REQUEST';

/** The checked documents of one schema, by query text up to 20,000 characters (the oldest forgotten past 500). */
export class Documents {
  private readonly checked = new Map<string, Checked>();
  /** Cost answers per document, operation and variables (small ones only): the estimate walks the whole document. */
  private readonly costs = new WeakMap<DocumentNode, Map<string, GraphQLError | null>>();
  /** Per remembered document (a document checked every time is never seen twice) and operation name. */
  private readonly compilations = new WeakMap<DocumentNode, Map<string, Compilation>>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly introspection: boolean,
    readonly limits: QueryLimits,
    /**
     * From this run on, an operation runs compiled by graphql-jit; 0: never. Compiling costs about
     * one run; each compiled run then skips graphql-js's walk of the document field by field (a
     * list of records costs a third less). A document run once never pays it.
     */
    private readonly compileOnRun = 0,
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

  /** The operation compiled once it runs again, else undefined: run it with graphql-js's `execute`. */
  compiled(document: DocumentNode, operationName: string | undefined): CompiledOperation | undefined {
    if (this.compileOnRun === 0) return undefined;
    let byName = this.compilations.get(document);
    if (!byName) this.compilations.set(document, (byName = new Map<string, Compilation>()));
    const key = operationName ?? '';
    let entry = byName.get(key);
    if (!entry) byName.set(key, (entry = { runs: 0 }));
    if (entry.run !== undefined) return entry.run ?? undefined;
    if (++entry.runs < this.compileOnRun) return undefined;
    entry.run = compile(this.schema, document, operationName);
    return entry.run ?? undefined;
  }
}

/**
 * null for what the compiler refuses (it answers errors) or cannot do (code generation disallowed),
 * and for an operation with a variable of a recursive input type (`where: ProjectFilter`, which
 * reaches itself through `_and` and relations): graphql-jit unrolls its coercion, which took 6 s
 * for one such variable. graphql-js runs those.
 */
function compile(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): CompiledOperation | null {
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.variableDefinitions?.some((v) => reachesItself(typeFromAST(schema, v.type)))) return null;
  try {
    // Loaded at the first compilation: graphql-jit and its JSON-schema tools weigh several MB resident.
    const { compileQuery, isCompiledQuery } = require('graphql-jit') as typeof import('graphql-jit');
    const compiled = compileQuery(schema, document, operationName, { disablingCapturingStackErrors: true });
    if (!isCompiledQuery(compiled)) return null;
    // Without `data` the operation never ran (variables that do not fit): graphql-js words those
    // errors, so that an answer does not depend on which run it was.
    const worded = (result: ExecutionResult, context: unknown, variables: Record<string, unknown> | undefined) =>
      'data' in result ? result : execute({ schema, document, operationName, contextValue: context, variableValues: variables });
    return (context, variables) => {
      const result = compiled.query(undefined, context, variables);
      return result instanceof Promise ? result.then((r) => worded(r, context, variables)) : worded(result, context, variables);
    };
  } catch {
    return null;
  }
}

/** Whether an input type contains an input object type that contains itself. */
function reachesItself(type: GraphQLType | undefined): boolean {
  const onPath = new Set<GraphQLInputObjectType>();
  const done = new Set<GraphQLInputObjectType>();
  const visit = (t: GraphQLType): boolean => {
    const named = getNamedType(t);
    if (!isInputObjectType(named) || done.has(named)) return false;
    if (onPath.has(named)) return true;
    onPath.add(named);
    const cyclic = Object.values(named.getFields()).some((f) => visit(f.type));
    onPath.delete(named);
    done.add(named);
    return cyclic;
  };
  return type !== undefined && visit(type);
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
