/**
 * The cost of the operation about to run, with its variables (graphql-query-complexity): every
 * field costs 1 plus what it selects, and a list of records multiplies what it selects by the rows
 * it may answer — its `top` (or `limit`), the kernel's `limits.defaultTop` without one, never more
 * than `limits.maxTop`; federation's `_entities` by the representations asked for. So 15 aliases
 * of `projectList(top: 1000) { ... }` are refused before anything is read. Introspection counts
 * its fields without multiplying: its answer is as large as the schema, not the data.
 *
 * The walk expands fragments and stops past `maxSelections` selections, so a document whose
 * fragments spread each other many times over is refused without being walked to the end.
 */
import {
  getNamedType,
  getNullableType,
  GraphQLError,
  isCompositeType,
  isListType,
  TypeInfo,
  ValidationContext,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { createComplexityRule, type ComplexityEstimatorArgs } from 'graphql-query-complexity';
import { limitError, type QueryLimits } from './limits';

/** The error refusing the operation (maxSelections or maxCost), or undefined to run it. Variables that do not fit are left to execution to report. */
export function costProblem(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
  limits: QueryLimits,
): GraphQLError | undefined {
  const reported: GraphQLError[] = [];
  const typeInfo = new TypeInfo(schema);
  const context = new ValidationContext(schema, document, typeInfo, (error) => reported.push(error));
  const walker = createComplexityRule({
    maximumComplexity: limits.maxCost,
    variables,
    operationName: operation.name?.value,
    // The walk throws once it has counted this many.
    maxQueryNodes: limits.maxSelections + 1,
    estimators: [(args) => estimate(args, limits)],
    createError: (max) => limitError('maxCost', max, `The operation's estimated cost is more than ${max}`),
  })(context);
  try {
    visit(document, visitWithTypeInfo(typeInfo, walker));
  } catch (err) {
    if (walker.evaluatedNodes > limits.maxSelections) {
      return limitError('maxSelections', limits.maxSelections, `The operation makes more than ${limits.maxSelections} selections`);
    }
    throw err;
  }
  return reported.find((e) => (e.extensions.details as { limit?: unknown } | undefined)?.limit === 'maxCost');
}

function estimate({ type, field, args, childComplexity }: ComplexityEstimatorArgs, limits: QueryLimits): number {
  const introspection = type.name.startsWith('__') || field.name.startsWith('__');
  const records = isListType(getNullableType(field.type)) && isCompositeType(getNamedType(field.type));
  if (introspection || !records) return 1 + childComplexity;
  return 1 + rows(args, limits) * childComplexity;
}

/** The rows a list field may answer, as far as its arguments tell. */
function rows(args: Record<string, unknown>, limits: QueryLimits): number {
  const top = typeof args.top === 'number' ? args.top : typeof args.limit === 'number' ? args.limit : undefined;
  if (top !== undefined) return Math.min(Math.max(top, 0), limits.maxTop);
  if (Array.isArray(args.representations)) return args.representations.length;
  return limits.defaultTop;
}
