/**
 * The resolvers of one object: GraphQL arguments → the engine's operations, as the caller in the
 * context, and records → GraphQL values (json-like fields as JSON text). No HTTP here.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { ObjectQLError, type DataEngine, type DataRecord, type FindOptions, type ObjectDefinition } from '../../kernel';
import { assertJsonTextDepth, decodeJsonFields, isJsonTextField, listOptions, toJsonText } from '../../kernel/protocol';
import type { GraphQLContext } from './context';
import type { ObjectNames } from './naming';
import { withTypedArgs, type TypedArgs, type TypedQuery } from './typed-args';

export type ResolverFn = (parent: unknown, args: Record<string, unknown>, context: GraphQLContext, info: GraphQLResolveInfo) => unknown;

export interface ObjectResolvers {
  query: Record<string, ResolverFn>;
  mutation: Record<string, ResolverFn>;
  /** Field resolvers of the output type (json-like fields), plus `__resolveReference` under federation. */
  type: Record<string, unknown>;
}

/**
 * The selection under a root field as one engine read (expand-from-selection.ts): the record
 * fields, the relations to expand, and `settle`, to apply to the records read before answering
 * them (it tells the relation fields what was expanded).
 */
export type SelectionReader = (
  info: GraphQLResolveInfo,
  typeName: string,
) => { fields: string[]; expand?: FindOptions['expand']; settle<T>(records: T): T };

type Read = ReturnType<SelectionReader>;

export interface ListArgs {
  top?: number | null;
  skip?: number | null;
  limit?: number | null;
  filters?: string | null;
  fields?: Array<string | null> | null;
  sort?: string | null;
}

/** `typed`: what the list's `where` and `orderBy` compile against (typed-schema.ts). */
export function objectResolvers(
  engine: DataEngine,
  def: ObjectDefinition,
  names: ObjectNames,
  reader: SelectionReader,
  typed?: TypedQuery,
): ObjectResolvers {
  const object = def.name;
  const jsonFields = Object.values(def.fields)
    .filter(isJsonTextField)
    .map((f) => f.name);
  const byId = (id: string, read: Read): FindOptions => ({
    fields: read.fields,
    ...(read.expand ? { expand: read.expand } : {}),
    filter: { field: 'id', op: 'eq', value: id },
  });
  const readOne = async (repo: Pick<ReturnType<DataEngine['repo']>, 'findOne'>, id: string, info: GraphQLResolveInfo) => {
    const read = reader(info, names.type);
    return read.settle(await repo.findOne(byId(id, read)));
  };
  /** The input with its JSON text decoded, each measured first (limits.maxJsonDepth). */
  const decoded = (input: DataRecord): DataRecord => {
    for (const name of jsonFields) {
      const text = input[name];
      if (typeof text === 'string') assertJsonTextDepth(text, engine.limits.maxJsonDepth, `Field '${name}'`);
    }
    return decodeJsonFields(input, def.fields);
  };

  const type: Record<string, unknown> = {};
  for (const name of jsonFields) type[name] = (record: DataRecord) => toJsonText(record[name]);
  type.__resolveReference = (reference: { id?: unknown }, context: GraphQLContext, info: GraphQLResolveInfo) => {
    if (typeof reference.id !== 'string')
      throw new ObjectQLError('INVALID_REQUEST', `A ${names.type} representation needs 'id', a string`, { field: 'id' });
    return readOne(engine.repo(object, context.request), reference.id, info);
  };

  return {
    type,
    query: {
      [names.one]: (_p, args, context, info) => readOne(engine.repo(object, context.request), String(args.id), info),
      [names.list]: async (_p, args: ListArgs & TypedArgs, context, info) => {
        const read = reader(info, names.type);
        const listed = listFindOptions(args, read.fields, engine.limits.maxJsonDepth);
        const options = typed ? withTypedArgs(object, listed, args, typed) : listed;
        if (read.expand) options.expand = read.expand;
        return read.settle((await engine.repo(object, context.request).find(options)).items);
      },
    },
    mutation: {
      // The answer is what a read of the selection shows, in the write's transaction: a refused selection undoes the write.
      [names.create]: async (_p, args, context, info) => {
        const read = reader(info, names.type);
        const repo = engine.repo(object, context.request);
        return read.settle(await repo.createAndRead(decoded(args.input as DataRecord), { fields: read.fields, expand: read.expand }));
      },
      [names.update]: async (_p, args, context, info) => {
        const read = reader(info, names.type);
        const repo = engine.repo(object, context.request);
        return read.settle(
          await repo.updateAndRead(String(args.id), decoded(args.input as DataRecord), { fields: read.fields, expand: read.expand }),
        );
      },
      [names.delete]: (_p, args, context) => engine.repo(object, context.request).delete(String(args.id)),
    },
  };
}

/**
 * The list query's arguments as a find request: GraphQL's own syntax decoded here (`filters` and a
 * JSON `sort` arrive as JSON text; `fields` adds to what the query selects), then the protocol
 * layer's one rule for every list (top and its deprecated alias limit, skip, ...).
 */
export function listFindOptions(args: ListArgs, selected: string[], maxJsonDepth: number): FindOptions {
  return listOptions({
    top: args.top,
    limit: args.limit,
    skip: args.skip,
    fields: [...new Set([...selected, ...(args.fields ?? [])])],
    filters:
      args.filters == null ? undefined : parseJsonArgument(args.filters, 'filters', 'a filter in the array or map form', maxJsonDepth),
    sort: args.sort == null ? undefined : sortOf(args.sort, maxJsonDepth),
  });
}

/** `sort`: JSON text of the array form, or the text form ('-name', 'name desc') as it is. */
function sortOf(text: string, maxJsonDepth: number): unknown {
  const sort = text.trim();
  return sort.startsWith('[') ? parseJsonArgument(sort, 'sort', 'a sort such as \'-name\' or [["name", "desc"]]', maxJsonDepth) : sort;
}

/** JSON text measured (limits.maxJsonDepth) before it is parsed: what reads the value after it recurses. */
function parseJsonArgument(text: string, name: string, what: string, maxJsonDepth: number): unknown {
  assertJsonTextDepth(text, maxJsonDepth, `Argument '${name}'`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ObjectQLError('INVALID_REQUEST', `Argument '${name}' must be JSON text holding ${what}`, { field: name });
  }
}
