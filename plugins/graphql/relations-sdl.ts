/**
 * Relationships as nested objects (docs/graphql.md, "Relationships"): the GraphQL fields every
 * relation of `relationsOf(objects)` adds to its object's type, named so that none can take the
 * name of the spec's fields, and their SDL. The spec's lookup field stays the `String` id it is.
 *
 * - a lookup / master_detail `project` (kind `one`): `project_record: Project`, the record it
 *   points at, null when there is none the caller may see;
 * - a multiple lookup `members` (kind `many`): `members_records: [User!]!`;
 * - a reverse relation `tasks` (kind `reverse`, named by the kernel: `related_name` or
 *   `<object>_by_<field>`): `tasks(<the target's list arguments>): [Task!]!` and
 *   `tasks_count(<the target's count arguments>): Int!`.
 *
 * A generated name that is a field of the object, or another generated name, stops start-up with
 * a PluginError naming both. Pure.
 */
import { PluginError, relationsOf, type ObjectDefinition, type Relation } from '../../kernel';
import type { ObjectNames } from './naming';
import { listArgs } from './sdl';

/** What a generated field answers: the record or records a lookup points at, or a reverse relation's list or count. */
export type RelationRole = 'record' | 'records' | 'list' | 'count';

export interface RelationField {
  /** The field's name on the GraphQL type. */
  name: string;
  role: RelationRole;
  /** The kernel's relation: its name is the key of the kernel's `expand` map. */
  relation: Relation;
  /** The object holding the relation. */
  object: string;
  /** The related object's GraphQL names. */
  target: ObjectNames;
}

/** The relation fields of every record type, by GraphQL type name, then by field name. */
export type RelationFields = ReadonlyMap<string, ReadonlyMap<string, RelationField>>;

/** The generated fields of every object, checked for clashes; relations to objects outside the schema are left out. */
export function relationFieldsOf(objects: readonly ObjectDefinition[], names: readonly ObjectNames[]): RelationFields {
  const byObject = new Map(names.map((n) => [n.object, n]));
  const relations = relationsOf(objects);
  const out = new Map<string, Map<string, RelationField>>();
  for (const def of objects) {
    const own = byObject.get(def.name)!;
    const claimed = new Map<string, string>(Object.keys(def.fields).map((f) => [f, `field '${f}' of object '${def.name}'`]));
    const fields = new Map<string, RelationField>();
    const claim = (field: RelationField, owner: string) => {
      const other = claimed.get(field.name);
      if (other !== undefined) {
        throw new PluginError(
          `Plugin 'graphql': ${owner} maps to the field '${field.name}' of type '${own.type}', which ${other} maps to as well; ` +
            'rename one of them (or set another related_name)',
        );
      }
      claimed.set(field.name, owner);
      fields.set(field.name, field);
    };
    for (const relation of relations.get(def.name) ?? []) {
      const target = byObject.get(relation.target);
      if (!target) continue;
      const base = { relation, object: def.name, target };
      if (relation.kind === 'reverse') {
        const owner = `the reverse relation '${relation.name}' (from '${relation.target}.${relation.field}')`;
        claim({ ...base, name: relation.name, role: 'list' }, owner);
        claim({ ...base, name: `${relation.name}_count`, role: 'count' }, `the count of ${owner}`);
      } else {
        const owner = `the related record of lookup '${def.name}.${relation.field}'`;
        claim(
          {
            ...base,
            name: `${relation.field}_${relation.kind === 'many' ? 'records' : 'record'}`,
            role: relation.kind === 'many' ? 'records' : 'record',
          },
          owner,
        );
      }
    }
    out.set(own.type, fields);
  }
  return out;
}

/** The arguments a relation's target takes beyond the spec's: the typed list arguments, and the count's (typed-schema.ts). */
export type ArgumentsOf = (object: string) => { list: string; count: string };

/** The SDL lines the relation fields add to their type. */
export function relationSdl(fields: ReadonlyMap<string, RelationField> | undefined, argumentsOf: ArgumentsOf): string[] {
  return [...(fields?.values() ?? [])].map((f) => {
    const { relation, target } = f;
    switch (f.role) {
      case 'record':
        return `  ${JSON.stringify(`The ${relation.target} that '${relation.field}' points at; null when there is none the caller may see.`)}\n  ${f.name}: ${target.type}`;
      case 'records':
        return `  ${JSON.stringify(`The ${relation.target} records that '${relation.field}' points at, those the caller may see.`)}\n  ${f.name}: [${target.type}!]!`;
      case 'list':
        return (
          `  ${JSON.stringify(`The ${relation.target} records whose '${relation.field}' points at this ${f.object}; the arguments of ${target.list}, per ${f.object}.`)}\n` +
          `  ${f.name}(${listArgs(argumentsOf(relation.target).list)}): [${target.type}!]!`
        );
      case 'count':
        return `  ${JSON.stringify(`How many ${relation.target} records the caller may see point at this ${f.object} through '${relation.field}'.`)}\n  ${f.name}(filters: String, ${argumentsOf(relation.target).count}): Int!`;
    }
  });
}
