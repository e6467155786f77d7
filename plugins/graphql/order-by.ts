/**
 * The typed sort (docs/graphql.md, "Typed sorting"): `orderBy: [<Type>OrderBy!]`, each element
 * naming one field with a direction (`{name: asc}`), or a field of the record a to-one relation
 * points at (`{project_record: {name: desc}}`, the kernel's sort key `project.name`). Compiled to
 * the sort keys the JSON `sort` gives (`[["name", "asc"], ["project.name", "desc"]]`), which the
 * engine checks alike. Pure.
 */
import { isJsonTextField } from '../../kernel/protocol';
import { ObjectQLError, type ObjectDefinition, type Relation, type SortKey } from '../../kernel';
import { InputFields, type QueryNames } from './query-names';
import { recordKey } from './where-sdl';

export const ORDER_DIRECTION = `"""A sort direction."""\nenum OrderDirection {\n  asc\n  desc\n}`;

/** What one input field of `<Type>OrderBy` sorts by. */
export type OrderKey = { kind: 'field'; field: string } | { kind: 'one'; relation: string; target: string };

/** The orderBy keys of every object, by object name. */
export type OrderShapes = ReadonlyMap<string, ReadonlyMap<string, OrderKey>>;

export interface OrderBySdl {
  sdl: string;
  keys: Map<string, OrderKey>;
}

/** `<Type>OrderBy`: every field that can be sorted by (not json-like, not multiple), and each to-one relation's record. */
export function orderBySdl(
  def: ObjectDefinition,
  names: QueryNames,
  relations: readonly Relation[],
  namesOf: (object: string) => QueryNames | undefined,
): OrderBySdl {
  const claimed = new InputFields(names.orderBy);
  const keys = new Map<string, OrderKey>();
  const lines: string[] = [];
  for (const field of Object.values(def.fields)) {
    if (isJsonTextField(field) || field.multiple) continue;
    claimed.add(field.name, `field '${field.name}' of object '${def.name}'`);
    keys.set(field.name, { kind: 'field', field: field.name });
    lines.push(`  ${field.name}: OrderDirection`);
  }
  for (const relation of relations) {
    const target = namesOf(relation.target);
    if (relation.kind !== 'one' || !target) continue;
    const key = recordKey(relation.name);
    claimed.add(key, `relation '${relation.name}' of object '${def.name}'`);
    keys.set(key, { kind: 'one', relation: relation.name, target: relation.target });
    lines.push(`  """By a field of the ${relation.target} record ${relation.name} points at."""\n  ${key}: ${target.orderBy}`);
  }
  const doc = `"""One sort key of ${def.name} records: give exactly one field per element of orderBy."""`;
  return { sdl: `${doc}\ninput ${names.orderBy} {\n${lines.join('\n')}\n}`, keys };
}

/** The sort keys of `orderBy` on `object`, in order; undefined when none is given. */
export function compileOrderBy(object: string, orderBy: unknown, shapes: OrderShapes): SortKey[] | undefined {
  if (orderBy === undefined || orderBy === null) return undefined;
  const list = (Array.isArray(orderBy) ? orderBy : [orderBy]) as Array<Record<string, unknown>>;
  return list.map((element, i) => key(object, element, `orderBy[${i}]`, shapes, []));
}

function key(object: string, element: Record<string, unknown>, at: string, shapes: OrderShapes, path: string[]): SortKey {
  const given = Object.entries(element).filter(([, v]) => v !== undefined && v !== null);
  if (given.length !== 1)
    throw new ObjectQLError('INVALID_REQUEST', `${at} must name exactly one field, got ${given.length}: give one field per element`, {
      parameter: 'orderBy',
    });
  const [name, value] = given[0];
  const what = shapes.get(object)?.get(name);
  if (!what) throw new ObjectQLError('INVALID_REQUEST', `orderBy: unknown field '${name}' on object '${object}'`, { field: name, object });
  if (what.kind === 'one') return key(what.target, value as Record<string, unknown>, `${at}.${name}`, shapes, [...path, what.relation]);
  return { field: [...path, what.field].join('.'), dir: value === 'desc' ? 'desc' : 'asc' };
}
