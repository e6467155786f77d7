/**
 * Counts and pages (docs/graphql.md, "Counts and pages"): `<object>Count(filters, where): Int!`
 * (`repo.count`) and `<object>Page(top, skip, filters, where, sort, orderBy): <Type>Page` with
 * `items` and the page information the spec's find answers in `meta` (`repo.find`): total, page,
 * size, pages, has_next. The spec's `<object>List` is left as it is.
 */
import { GraphQLObjectType, type GraphQLSchema } from 'graphql';
import type { DataEngine } from '../../kernel';
import type { QueryNames } from './query-names';
import { listFindOptions, type ListArgs, type ResolverFn } from './resolvers';
import { selectedFields } from './selection';
import { subSelections } from './sub-selection';
import { typedListArguments, withTypedArgs, type TypedArgs, type TypedQuery } from './typed-args';

export function pageSdl(q: QueryNames): { types: string; queries: string[] } {
  const types =
    `"""A page of ${q.object} records, and where it lies among all that match."""\n` +
    `type ${q.page} {\n` +
    `  items: [${q.type}!]!\n` +
    `  """Records that match, on every page."""\n  total: Int!\n` +
    `  """This page's number, from 1 (skip / size + 1)."""\n  page: Int!\n` +
    `  """Records per page: top."""\n  size: Int!\n` +
    `  """Pages in all."""\n  pages: Int!\n` +
    `  """Whether records follow this page."""\n  has_next: Boolean!\n}`;
  const queries = [
    `  """How many ${q.object} records match filters (JSON text) and where."""\n  ${q.count}(filters: String, where: ${q.filter}): Int!`,
    `  """A page of ${q.object} records with its total; the arguments as ${q.object}List's."""\n` +
      `  ${q.pageQuery}(top: Int, skip: Int, filters: String, sort: String, ${typedListArguments(q.filter, q.orderBy)}): ${q.page}`,
  ];
  return { types, queries };
}

type PageArgs = ListArgs & TypedArgs;

export function pageResolvers(engine: DataEngine, q: QueryNames, typed: TypedQuery): Record<string, ResolverFn> {
  const depth = engine.limits.maxJsonDepth;
  return {
    [q.count]: (_p, args: { filters?: string | null } & TypedArgs, context) => {
      const options = withTypedArgs(q.object, listFindOptions({ filters: args.filters }, [], depth), args, typed);
      return engine.repo(q.object, context.request).count({ filters: options.filters, filter: options.filter });
    },
    [q.pageQuery]: async (_p, args: PageArgs, context, info) => {
      const items = subSelections(info.fieldNodes, info).get('items') ?? [];
      const selected = selectedFields({ ...info, fieldNodes: items }, q.type);
      const options = withTypedArgs(q.object, listFindOptions(args, selected, depth), args, typed);
      const { items: records, meta } = await engine.repo(q.object, context.request).find(options);
      return { items: records, ...meta };
    },
  };
}

/** Marks each page query and its `items` for the cost estimate (cost.ts): the rows are the page's `top`. */
export function markPages(schema: GraphQLSchema, names: readonly QueryNames[]): void {
  const query = schema.getQueryType()?.getFields();
  for (const q of names) {
    const field = query?.[q.pageQuery];
    const page = schema.getType(q.page);
    if (field) field.extensions = { ...field.extensions, objectqlCost: 'page' };
    const items = page instanceof GraphQLObjectType ? page.getFields().items : undefined;
    if (items) items.extensions = { ...items.extensions, objectqlCost: 'page-items' };
  }
}
