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
  Kind,
  getNullableType,
  GraphQLError,
  isCompositeType,
  isListType,
  TypeInfo,
  ValidationContext,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
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
  const pages: Pages = { items: new Map(), fragments: fragmentsOf(document) };
  const typeInfo = new TypeInfo(schema);
  const context = new ValidationContext(schema, document, typeInfo, (error) => reported.push(error));
  const walker = createComplexityRule({
    maximumComplexity: limits.maxCost,
    variables,
    operationName: operation.name?.value,
    // The walk throws once it has counted this many.
    maxQueryNodes: limits.maxSelections + 1,
    estimators: [(args) => estimate(args, limits, pages)],
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

/** The cost of each page's `items` field counted once (by its node), and the document's fragments to find them. */
interface Pages {
  items: Map<FieldNode, number>;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
}

function estimate({ type, field, node, args, childComplexity }: ComplexityEstimatorArgs, limits: QueryLimits, pages: Pages): number {
  const introspection = type.name.startsWith('__') || field.name.startsWith('__');
  const marked = field.extensions.objectqlCost;
  if (marked === 'page-items') {
    pages.items.set(node, 1 + childComplexity);
    return 1 + childComplexity;
  }
  // Children are estimated first: the items' cost is known here, counted once so far.
  if (marked === 'page') return 1 + childComplexity + (rows(args, limits) - 1) * itemsCost(node.selectionSet, pages, new Set());
  const records = isListType(getNullableType(field.type)) && isCompositeType(getNamedType(field.type));
  if (introspection || !records) return 1 + childComplexity;
  return 1 + rows(args, limits) * childComplexity;
}

/** What the `items` fields directly under a page's selection cost once (through its fragments). */
function itemsCost(set: SelectionSetNode | undefined, pages: Pages, seen: Set<string>): number {
  let cost = 0;
  for (const node of set?.selections ?? []) {
    if (node.kind === Kind.FIELD) cost += pages.items.get(node) ?? 0;
    else if (node.kind === Kind.INLINE_FRAGMENT) cost += itemsCost(node.selectionSet, pages, seen);
    else if (!seen.has(node.name.value)) {
      seen.add(node.name.value);
      cost += itemsCost(pages.fragments.get(node.name.value)?.selectionSet, pages, seen);
    }
  }
  return cost;
}

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const out = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) out.set(d.name.value, d);
  return out;
}

/** The rows a list field may answer, as far as its arguments tell. */
function rows(args: Record<string, unknown>, limits: QueryLimits): number {
  const top = typeof args.top === 'number' ? args.top : typeof args.limit === 'number' ? args.limit : undefined;
  if (top !== undefined) return Math.min(Math.max(top, 0), limits.maxTop);
  if (Array.isArray(args.representations)) return args.representations.length;
  return limits.defaultTop;
}
