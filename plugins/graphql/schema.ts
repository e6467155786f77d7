/**
 * The executable schema, built from metadata: the generated SDL and resolvers of every object
 * plus what contributors add (the subscriptions module contributes `type Subscription`). Plain
 * (@graphql-tools/schema) or, with federation, an Apollo subgraph (@apollo/subgraph): every record
 * type keyed by `id`, `_entities` loading by id through the engine as the caller, `_service { sdl }`.
 */
import type { buildSubgraphSchema, GraphQLSchemaModule } from '@apollo/subgraph/dist/buildSubgraphSchema';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { parse, type GraphQLSchema } from 'graphql';
import { PluginError, type DataEngine, type ObjectDefinition } from '../../kernel';
import { SelectionPlanner, selectionReader } from './expand-from-selection';
import { namesOf } from './naming';
import { relationFieldsOf, relationSdl } from './relations-sdl';
import { relationResolvers } from './relations-resolve';
import { objectResolvers } from './resolvers';
import { DELETE_RESULT, FEDERATION_LINK, objectSdl } from './sdl';
import { markPages } from './page';
import { typedSchema } from './typed-schema';

/** A graphql-tools resolver map: type name → field name → resolver (or a scalar / enum value map). */
export type ResolverMap = Record<string, Record<string, unknown>>;

/** What a contributor adds to the schema: SDL (new types, `type Subscription`, `extend type Query`) and its resolvers. */
export interface SchemaContribution {
  typeDefs: string;
  resolvers: ResolverMap;
}

/** Called at every build with the objects the schema is built from. */
export type SchemaContributor = (objects: ObjectDefinition[]) => SchemaContribution;

export interface BuildOptions {
  engine: DataEngine;
  /**
   * Build an Apollo Federation 2 subgraph with @apollo/subgraph's builder, which the caller loads
   * (`loadSubgraphBuilder`) only when federation is on: it weighs ~17 MB resident.
   */
  federation?: SubgraphBuilder;
  contributors?: readonly SchemaContributor[];
}

export interface BuiltSchema {
  schema: GraphQLSchema;
  /** The SDL the schema was built from (the subgraph's SDL under federation). */
  sdl: string;
}

export type SubgraphBuilder = typeof buildSubgraphSchema;

export async function loadSubgraphBuilder(): Promise<SubgraphBuilder> {
  return (await import('@apollo/subgraph')).buildSubgraphSchema;
}

/** The schema of these objects; a name clash or a contribution that does not fit stops with a PluginError. */
export function buildSchema(objects: ObjectDefinition[], options: BuildOptions): BuiltSchema {
  if (!objects.length) throw new PluginError("Plugin 'graphql': there are no objects to build a schema from");
  const subgraph = options.federation;
  const federation = subgraph !== undefined;
  const names = namesOf(objects);
  const typed = typedSchema(objects, names, options.engine);
  const types: string[] = [DELETE_RESULT, ...typed.types];
  const queries: string[] = [...typed.queries];
  const mutations: string[] = [];
  const query: Record<string, unknown> = { ...typed.query };
  const mutation: Record<string, unknown> = {};
  const resolvers: ResolverMap = { Query: query, Mutation: mutation };
  // Relationships as nested objects: fields of their own (relations-sdl.ts), read by the root resolvers' expand.
  const relations = relationFieldsOf(objects, names);
  const planner = new SelectionPlanner(relations, options.engine.limits.maxJsonDepth, typed.typed);
  const argumentsOf = (object: string) => {
    const i = names.findIndex((n) => n.object === object);
    return { list: typed.listArguments[i], count: `where: ${typed.names[i].filter}` };
  };
  const reader = selectionReader(planner);
  const nested = relationResolvers(options.engine, relations, planner);
  objects.forEach((def, i) => {
    const sdl = objectSdl(def, names[i], federation, typed.listArguments[i], relationSdl(relations.get(names[i].type), argumentsOf));
    types.push(sdl.types);
    queries.push(...sdl.queries);
    mutations.push(...sdl.mutations);
    const r = objectResolvers(options.engine, def, names[i], reader, typed.typed);
    Object.assign(query, r.query);
    Object.assign(mutation, r.mutation);
    const { __resolveReference, ...fields } = { ...r.type, ...nested[names[i].type] };
    resolvers[names[i].type] = federation ? { ...fields, __resolveReference } : fields;
  });
  const parts = [
    ...(federation ? [FEDERATION_LINK] : []),
    ...types,
    `type Query {\n${queries.join('\n')}\n}`,
    `type Mutation {\n${mutations.join('\n')}\n}`,
  ];
  for (const contributor of options.contributors ?? []) {
    const contribution = contributor(objects);
    parts.push(contribution.typeDefs);
    for (const [typeName, fields] of Object.entries(contribution.resolvers)) resolvers[typeName] = { ...resolvers[typeName], ...fields };
  }
  const sdl = parts.join('\n\n');
  try {
    const schema = subgraph
      ? subgraph({ typeDefs: parse(sdl), resolvers: resolvers as GraphQLSchemaModule['resolvers'] })
      : makeExecutableSchema({ typeDefs: sdl, resolvers });
    markPages(schema, typed.names);
    return { schema, sdl };
  } catch (err) {
    throw new PluginError(`Plugin 'graphql': the generated schema does not build: ${err instanceof Error ? err.message : String(err)}`);
  }
}
