/**
 * The Subscription type (docs/spec.md, "Record subscriptions (GraphQL)"): per object `<object>Created`,
 * `<object>Updated` and `<object>Deleted`, each with an optional `where: <Type>Where`, an input
 * type holding the object's single-valued scalar fields. `where` is the spec's field map
 * ({status: "active"}): every given field must equal its value. GraphQL itself refuses an unknown
 * field or a value of the wrong type when the subscription is validated. Pure.
 */
import { PluginError, type FieldDefinition, type ObjectDefinition } from '../../../kernel';
import { isJsonTextField } from '../../../kernel/protocol';
import { objectNames } from '../naming';
import { baseType } from '../type-mapping';

export type EventKind = 'created' | 'updated' | 'deleted';
export const EVENT_KINDS: readonly EventKind[] = ['created', 'updated', 'deleted'];
const SUFFIX: Record<EventKind, string> = { created: 'Created', updated: 'Updated', deleted: 'Deleted' };

export interface SubscriptionNames {
  object: string;
  /** The record type (`Project`). */
  type: string;
  /** The where input type (`ProjectWhere`). */
  where: string;
  /** Subscription field per event (`projectCreated`, ...). */
  fields: Record<EventKind, string>;
}

export function subscriptionNames(object: string): SubscriptionNames {
  const { type } = objectNames(object);
  const fields = {} as Record<EventKind, string>;
  for (const kind of EVENT_KINDS) fields[kind] = `${object}${SUFFIX[kind]}`;
  return { object, type, where: `${type}Where`, fields };
}

/** Fields `where` can name: one value compared for equality (no lists, no JSON text). */
export function whereFields(def: ObjectDefinition): FieldDefinition[] {
  return Object.values(def.fields).filter((f) => !f.multiple && !isJsonTextField(f));
}

/**
 * The SDL of the Subscription type and the where inputs; a where type clashing with a generated type
 * stops start-up. `resume`: the kernel has a change feed, so each field also takes `after: Int`
 * (first the changes after that position, then live ones).
 */
export function subscriptionSdl(objects: ObjectDefinition[], options: { resume?: boolean } = {}): string {
  const taken = new Map<string, string>();
  for (const def of objects) {
    const names = objectNames(def.name);
    taken.set(names.type, `the type of object '${def.name}'`);
    taken.set(names.input, `the input type of object '${def.name}'`);
  }
  const inputs: string[] = [];
  const fields: string[] = [];
  for (const def of objects) {
    const names = subscriptionNames(def.name);
    const other = taken.get(names.where);
    if (other !== undefined) {
      throw new PluginError(
        `Plugin 'graphql': object '${def.name}' maps to the subscription filter type '${names.where}', which is ${other}; rename one of them`,
      );
    }
    taken.set(names.where, `the subscription filter type of object '${def.name}'`);
    const whereLines = whereFields(def).map((f) => `  ${f.name}: ${baseType(f)}`);
    const hasWhere = whereLines.length > 0;
    if (hasWhere)
      inputs.push(
        `"""Subscription filter of ${def.name}: a field map; every field given must equal its value."""\ninput ${names.where} {\n${whereLines.join('\n')}\n}`,
      );
    const args = [...(hasWhere ? [`where: ${names.where}`] : []), ...(options.resume ? ['after: Int'] : [])];
    const arg = args.length ? `(${args.join(', ')})` : '';
    fields.push(
      `  """A ${def.name} record was created (delivered when the subscriber may read it and it matches where)."""\n  ${names.fields.created}${arg}: ${names.type}`,
      `  """A ${def.name} record was updated (the record after the change, as the subscriber sees it)."""\n  ${names.fields.updated}${arg}: ${names.type}`,
      `  """A ${def.name} record was deleted (the record before the delete, only the fields the subscriber may read)."""\n  ${names.fields.deleted}${arg}: ${names.type}`,
    );
  }
  return [...inputs, `type Subscription {\n${fields.join('\n')}\n}`].join('\n\n');
}
