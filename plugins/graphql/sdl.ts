/**
 * The generated SDL, one block per object (docs/spec.md, "GraphQL API"): the output type, its input type,
 * the two queries and the three mutations. Pure: metadata in, text out.
 */
import type { ObjectDefinition } from '../../kernel';
import type { ObjectNames } from './naming';
import { baseType, isInputField, outputType } from './type-mapping';

export const FEDERATION_LINK = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.0", import: ["@key"])';

export const DELETE_RESULT = `"""What a delete mutation answers."""
type DeleteResult {
  id: String!
  deleted: Boolean!
}`;

export interface ObjectSdl {
  types: string;
  queries: string[];
  mutations: string[];
}

/**
 * The arguments of `<object>List`; `listArguments` are the typed ones after `sort`
 * (typed-schema.ts: `where`, `orderBy`). A reverse relation's list field takes the same
 * (relations-sdl.ts): what the list gains, the nested lists gain.
 */
export function listArgs(listArguments = ''): string {
  return `top: Int, skip: Int, filters: String, fields: [String], sort: String, ${listArguments ? `${listArguments}, ` : ''}limit: Int @deprecated(reason: "Use top.")`;
}

/** `extraFields`: SDL lines added to the output type (the relation fields, relations-sdl.ts). */
export function objectSdl(
  def: ObjectDefinition,
  names: ObjectNames,
  federation: boolean,
  listArguments = '',
  extraFields: string[] = [],
): ObjectSdl {
  const fields = Object.values(def.fields);
  const key = federation ? ' @key(fields: "id")' : '';
  const output = [...fields.map((f) => `${describe(f.description ?? f.label, '  ')}  ${f.name}: ${outputType(f)}`), ...extraFields];
  const input = fields.filter(isInputField).map((f) => `  ${f.name}: ${baseType(f)}`);
  const types = [`${describe(def.description ?? def.label, '')}type ${names.type}${key} {\n${output.join('\n')}\n}`];
  const queries = [
    `  """One ${def.name} record by id; null when there is none the caller may see."""\n  ${names.one}(id: String!): ${names.type}`,
    `  """${def.name} records. filters and sort are JSON text (the spec's array forms); sort also takes '-name' or 'name desc'."""\n` +
      `  ${names.list}(${listArgs(listArguments)}): [${names.type}]`,
  ];
  const mutations = [`  ${names.delete}(id: String!): DeleteResult`];
  if (input.length) {
    types.push(`"""Field values of a ${def.name}; every field optional."""\ninput ${names.input} {\n${input.join('\n')}\n}`);
    mutations.unshift(
      `  ${names.create}(input: ${names.input}!): ${names.type}`,
      `  ${names.update}(id: String!, input: ${names.input}!): ${names.type}`,
    );
  }
  return { types: types.join('\n\n'), queries, mutations };
}

/** A description as a string (JSON's escapes are GraphQL's); empty when there is none. */
function describe(text: string | undefined, indent: string): string {
  return text ? `${indent}${JSON.stringify(text)}\n` : '';
}
