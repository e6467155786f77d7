/**
 * The relations of every object, both directions, named once for every protocol. A lookup or
 * master_detail field is a relation of its own object under the field's name (to one record, or to
 * several when `multiple`); each such field is also a one-to-many relation of the object it points
 * at, named by the field's `related_name` or, by default, `<object>_by_<field>` (`task.project`
 * gives `task_by_project` on `project`). Reverse names never collide with the target's fields or
 * with each other: the registry refuses metadata where they would. Pure.
 */
import type { ProblemList } from './problems';
import type { ObjectDefinition } from './types';

export interface Relation {
  /** The relation's name on this object: the field name (to one / to many) or the reverse name. */
  name: string;
  /** `one`: a lookup to one record; `many`: a multiple lookup; `reverse`: the records of `target` whose `field` points here. */
  kind: 'one' | 'many' | 'reverse';
  /** The related object. */
  target: string;
  /** The lookup field carrying the relation: on this object for `one`/`many`, on `target` for `reverse`. */
  field: string;
}

/** The default name of the one-to-many relation that `object.field` adds to the object it points at. */
export function defaultRelatedName(object: string, field: string): string {
  return `${object}_by_${field}`;
}

/** Every object's relations, in field order, reverse relations after the object's own. */
export function relationsOf(objects: readonly ObjectDefinition[]): Map<string, Relation[]> {
  const out = new Map<string, Relation[]>(objects.map((o) => [o.name, []]));
  for (const def of objects) {
    for (const field of Object.values(def.fields)) {
      if ((field.type !== 'lookup' && field.type !== 'master_detail') || !field.reference_to) continue;
      out.get(def.name)!.push({ name: field.name, kind: field.multiple ? 'many' : 'one', target: field.reference_to, field: field.name });
    }
  }
  for (const def of objects) {
    for (const field of Object.values(def.fields)) {
      if ((field.type !== 'lookup' && field.type !== 'master_detail') || !field.reference_to || field.multiple) continue;
      const name = field.related_name ?? defaultRelatedName(def.name, field.name);
      out.get(field.reference_to)?.push({ name, kind: 'reverse', target: def.name, field: field.name });
    }
  }
  return out;
}

/**
 * Reports a reverse name that collides with a field of the object it lands on or with another
 * reverse name there (each report names the lookup field that adds it).
 */
export function checkRelatedNames(objects: readonly ObjectDefinition[], problems: ProblemList): void {
  const byName = new Map(objects.map((o) => [o.name, o]));
  const claimed = new Map<string, string>();
  for (const def of objects) {
    for (const field of Object.values(def.fields)) {
      if ((field.type !== 'lookup' && field.type !== 'master_detail') || !field.reference_to || field.multiple) continue;
      const target = byName.get(field.reference_to);
      if (!target) continue;
      const name = field.related_name ?? defaultRelatedName(def.name, field.name);
      const key = field.related_name === undefined ? 'reference_to' : 'related_name';
      const report = problems.for(def.source ?? def.name);
      const other = claimed.get(`${target.name}.${name}`);
      if (target.fields[name]) {
        report(
          ['fields', field.name, key],
          `the relation '${name}' it adds to '${target.name}' is a field of '${target.name}'; set another related_name`,
        );
      } else if (other) {
        report(
          ['fields', field.name, key],
          `the relation '${name}' it adds to '${target.name}' is also added by ${other}; set another related_name`,
        );
      } else claimed.set(`${target.name}.${name}`, `'${def.name}.${field.name}'`);
    }
  }
}
