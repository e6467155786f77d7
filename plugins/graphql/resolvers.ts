/**
 * The resolvers of one object: GraphQL arguments → the engine's operations, as the caller in the
 * context, and records → GraphQL values (json-like fields as JSON text). No HTTP here.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { ObjectQLError, type DataEngine, type DataRecord, type FindOptions, type ObjectDefinition } from '../../kernel';
import { assertJsonTextDepth, decodeJsonFields, isJsonTextField, listOptions, toJsonText } from '../../kernel/protocol';
import type { GraphQLContext } from './context';
import type { ObjectNames } from './naming';
import { selectedFields } from './selection';
import { withTypedArgs, type TypedArgs, type TypedQuery } from './typed-args';

export type ResolverFn = (parent: unknown, args: Record<string, unknown>, context: GraphQLContext, info: GraphQLResolveInfo) => unknown;

export interface ObjectResolvers {
  query: Record<string, ResolverFn>;
  mutation: Record<string, ResolverFn>;
  /** Field resolvers of the output type (json-like fields), plus `__resolveReference` under federation. */
  type: Record<string, unknown>;
}

export interface ListArgs {
  top?: number | null;
  skip?: number | null;
  limit?: number | null;
  filters?: string | null;
  fields?: Array<string | null> | null;
  sort?: string | null;
}

/** `typed`: what the list's `where` and `orderBy` compile against (typed-schema.ts). */
export function objectResolvers(engine: DataEngine, def: ObjectDefinition, names: ObjectNames, typed?: TypedQuery): ObjectResolvers {
  const object = def.name;
  const jsonFields = Object.values(def.fields)
    .filter(isJsonTextField)
    .map((f) => f.name);
  const byId = (id: string, fields: string[]): FindOptions => ({ fields, filter: { field: 'id', op: 'eq', value: id } });
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
    return engine.repo(object, context.request).findOne(byId(reference.id, selectedFields(info, names.type)));
  };

  /** Writes, then reads the record back with the selected fields, in one unit of work: a refused selection undoes the write. */
  const writeAndRead = (
    context: GraphQLContext,
    info: GraphQLResolveInfo,
    write: (repo: ReturnType<DataEngine['repo']>) => Promise<DataRecord>,
  ) =>
    engine.transaction(context.request, async (api) => {
      const repo = api.repo(object);
      const written = await write(repo);
      const read = await repo.findOne(byId(String(written.id), selectedFields(info, names.type)));
      // Written out of the caller's sight (record scope): what the write returned is all there is.
      return read ?? written;
    });

  return {
    type,
    query: {
      [names.one]: (_p, args, context, info) =>
        engine.repo(object, context.request).findOne(byId(String(args.id), selectedFields(info, names.type))),
      [names.list]: async (_p, args: ListArgs & TypedArgs, context, info) => {
        const listed = listFindOptions(args, selectedFields(info, names.type), engine.limits.maxJsonDepth);
        const options = typed ? withTypedArgs(object, listed, args, typed) : listed;
        return (await engine.repo(object, context.request).find(options)).items;
      },
    },
    mutation: {
      [names.create]: (_p, args, context, info) => writeAndRead(context, info, (repo) => repo.create(decoded(args.input as DataRecord))),
      [names.update]: (_p, args, context, info) =>
        writeAndRead(context, info, (repo) => repo.update(String(args.id), decoded(args.input as DataRecord))),
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
