/**
 * GraphQL names generated from object names (docs/spec.md, "GraphQL API"): object `project` gives the type
 * `Project`, the input `ProjectInput`, the queries `project` and `projectList` and the mutations
 * `createProject`, `updateProject` and `deleteProject`. Pure.
 */
import { PluginError, type ObjectDefinition } from '../../kernel';

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** Types of the generated schema that no object may take. */
export const RESERVED_TYPES = ['Query', 'Mutation', 'Subscription', 'DeleteResult', 'String', 'Int', 'Float', 'Boolean', 'ID'] as const;

export interface ObjectNames {
  object: string;
  type: string;
  input: string;
  one: string;
  list: string;
  create: string;
  update: string;
  delete: string;
}

/** The object name with its first letter capitalised: `project` → `Project`. */
export function typeName(object: string): string {
  return object.charAt(0).toUpperCase() + object.slice(1);
}

export function objectNames(object: string): ObjectNames {
  const type = typeName(object);
  return {
    object,
    type,
    input: `${type}Input`,
    one: object,
    list: `${object}List`,
    create: `create${type}`,
    update: `update${type}`,
    delete: `delete${type}`,
  };
}

/**
 * The names of every object, checked: each object and field name must be a GraphQL name, and no
 * two objects may produce the same type, input or root field (`project` and `Project` would both
 * be `Project`). A clash stops start-up with a message naming both objects.
 */
export function namesOf(objects: ObjectDefinition[]): ObjectNames[] {
  const types = new Map<string, string>(RESERVED_TYPES.map((t) => [t, `the built-in type ${t}`]));
  const rootFields = new Map<string, string>();
  const claim = (map: Map<string, string>, name: string, owner: string, what: string) => {
    const other = map.get(name);
    if (other !== undefined)
      throw new PluginError(`Plugin 'graphql': ${owner} maps to the ${what} '${name}', which ${other} maps to as well; rename one of them`);
    map.set(name, owner);
  };
  return objects.map((def) => {
    const owner = `object '${def.name}'`;
    if (!GRAPHQL_NAME.test(def.name) || def.name.startsWith('__')) {
      throw new PluginError(
        `Plugin 'graphql': ${owner} has no valid GraphQL name (letters, digits and _, not starting with a digit or __)`,
      );
    }
    for (const field of Object.keys(def.fields)) {
      if (!GRAPHQL_NAME.test(field) || field.startsWith('__')) {
        throw new PluginError(
          `Plugin 'graphql': field '${field}' of ${owner} has no valid GraphQL name (letters, digits and _, not starting with a digit or __)`,
        );
      }
    }
    const names = objectNames(def.name);
    claim(types, names.type, owner, 'type');
    claim(types, names.input, owner, 'input type');
    for (const root of [names.one, names.list, names.create, names.update, names.delete]) claim(rootFields, root, owner, 'root field');
    return names;
  });
}
