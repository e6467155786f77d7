/**
 * The resolvers of one object: GraphQL arguments → the engine's operations, as the caller in the
 * context, and records → GraphQL values (json-like fields as JSON text). No HTTP here.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { ObjectQLError, validationError, type DataEngine, type DataRecord, type FindOptions, type ObjectDefinition } from '../../kernel';
import type { GraphQLContext } from './context';
import type { ObjectNames } from './naming';
import { selectedFields } from './selection';
import { isJsonField } from './type-mapping';

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

export function objectResolvers(engine: DataEngine, def: ObjectDefinition, names: ObjectNames): ObjectResolvers {
  const object = def.name;
  const jsonFields = Object.values(def.fields)
    .filter(isJsonField)
    .map((f) => f.name);
  const byId = (id: string, fields: string[]): FindOptions => ({ fields, filter: { field: 'id', op: 'eq', value: id } });

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
      [names.list]: async (_p, args, context, info) => {
        const options = listOptions(args as ListArgs, selectedFields(info, names.type));
        return (await engine.repo(object, context.request).find(options)).items;
      },
    },
    mutation: {
      [names.create]: (_p, args, context, info) => writeAndRead(context, info, (repo) => repo.create(inputData(args.input, def))),
      [names.update]: (_p, args, context, info) =>
        writeAndRead(context, info, (repo) => repo.update(String(args.id), inputData(args.input, def))),
      [names.delete]: (_p, args, context) => engine.repo(object, context.request).delete(String(args.id)),
    },
  };
}

/** The list query's arguments as a find request; `fields` adds to what the query selects. */
export function listOptions(args: ListArgs, selected: string[]): FindOptions {
  const options: FindOptions = { fields: [...new Set([...selected, ...(args.fields ?? []).filter((f): f is string => f !== null)])] };
  if (args.top != null && args.limit != null && args.top !== args.limit) {
    throw new ObjectQLError(
      'INVALID_REQUEST',
      `'limit' is a deprecated alias of 'top'; give one of them (got top ${args.top}, limit ${args.limit})`,
      { field: 'limit' },
    );
  }
  const top = args.top ?? args.limit;
  if (top != null) options.top = top;
  if (args.skip != null) options.skip = args.skip;
  if (args.filters != null) options.filters = parseJsonArgument(args.filters, 'filters', 'a filter in the array or map form');
  if (args.sort != null) {
    const sort = args.sort.trim();
    options.sort = sort.startsWith('[')
      ? (parseJsonArgument(sort, 'sort', 'a sort such as \'-name\' or [["name", "desc"]]') as FindOptions['sort'])
      : sort;
  }
  return options;
}

function parseJsonArgument(text: string, name: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ObjectQLError('INVALID_REQUEST', `Argument '${name}' must be JSON text holding ${what}`, { field: name });
  }
}

/** An input object → field values: json-like fields arrive as JSON text and are parsed. */
export function inputData(input: unknown, def: ObjectDefinition): DataRecord {
  const data: DataRecord = { ...(input as DataRecord) };
  const problems: Record<string, string> = {};
  for (const [name, value] of Object.entries(data)) {
    const field = def.fields[name];
    if (!field || !isJsonField(field) || typeof value !== 'string') continue;
    try {
      data[name] = JSON.parse(value);
    } catch {
      problems[name] = 'must be JSON text';
    }
  }
  if (Object.keys(problems).length) throw validationError(problems);
  return data;
}

function toJsonText(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}
