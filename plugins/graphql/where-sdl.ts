/**
 * The typed filter inputs (docs/graphql.md, "Typed filters"): one operator input per GraphQL
 * scalar, covering the spec's filter language (eq, ne, gt, ge, lt, le, in, nin, like,
 * startswith, endswith, contains, between, isnull; the text operators on `StringFilter` only),
 * and per object `<Type>Filter`: its fields, `_and` / `_or` / `_not`, `<lookup>_record` (the
 * related record matches) and each one-to-many relation (`tasks: TaskRelationFilter {some, every,
 * none}`). What each input field means is returned beside the SDL, for where.ts. Pure.
 */
import type { FieldDefinition, ObjectDefinition, Relation } from '../../kernel';
import { InputFields, type QueryNames } from './query-names';
import { baseType, type ScalarName } from './type-mapping';

const COMPARE = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const;
const TEXT = ['like', 'startswith', 'endswith', 'contains'] as const;

function operatorInput(scalar: ScalarName, text: boolean, ordered: boolean): string {
  const compare = ordered ? COMPARE : (['eq', 'ne'] as const);
  const lines = [
    ...compare.map((op) => `  ${op}: ${scalar}`),
    `  in: [${scalar}!]`,
    `  nin: [${scalar}!]`,
    ...(text ? TEXT.map((op) => `  ${op}: String`) : []),
    ...(ordered ? [`  """[low, high], both included."""\n  between: [${scalar}!]`] : []),
    '  """true: the field is null; false: it is not."""\n  isnull: Boolean',
  ];
  return `"""Conditions on one ${scalar} field; several given must all hold. eq: null and ne: null test for null."""\ninput ${scalar}Filter {\n${lines.join('\n')}\n}`;
}

/** The operator inputs, once per schema. */
export const SCALAR_FILTERS = [
  operatorInput('String', true, true),
  operatorInput('Float', false, true),
  operatorInput('Int', false, true),
  operatorInput('Boolean', false, false),
].join('\n\n');

/** What one input field of `<Type>Filter` tests. */
export type WhereKey =
  | { kind: 'field'; field: string }
  /** A to-one relation: the related record matches. */
  | { kind: 'one'; relation: string; target: string }
  /** A to-many relation (a multiple lookup, or one-to-many): some, every or none of the related records match. */
  | { kind: 'many'; relation: string; target: string };

export const LOGICAL_KEYS = ['_and', '_or', '_not'] as const;

/** The GraphQL scalar a field's values have (lists: their items'). */
export function scalarOf(field: FieldDefinition): ScalarName {
  return baseType(field).replace(/[[\]]/g, '') as ScalarName;
}

/** The input field of a lookup's related record: `<field>_record`, as the nested record's output field. */
export function recordKey(field: string): string {
  return `${field}_record`;
}

export interface WhereSdl {
  sdl: string;
  keys: Map<string, WhereKey>;
}

/**
 * `<Type>Filter` of one object. `relations`: the object's relations (relationsOf); `namesOf`: the
 * typed names of a related object, undefined when it is not in the schema.
 */
export function whereSdl(
  def: ObjectDefinition,
  names: QueryNames,
  relations: readonly Relation[],
  namesOf: (object: string) => QueryNames | undefined,
): WhereSdl {
  const claimed = new InputFields(names.filter);
  const keys = new Map<string, WhereKey>();
  const lines: string[] = [];
  for (const key of LOGICAL_KEYS) claimed.add(key, `the operator '${key}'`);
  lines.push(`  _and: [${names.filter}!]`, `  _or: [${names.filter}!]`, `  _not: ${names.filter}`);
  for (const field of Object.values(def.fields)) {
    claimed.add(field.name, `field '${field.name}' of object '${def.name}'`);
    keys.set(field.name, { kind: 'field', field: field.name });
    lines.push(`  ${field.name}: ${scalarOf(field)}Filter`);
  }
  for (const relation of relations) {
    const target = namesOf(relation.target);
    if (!target) continue;
    const owner = `relation '${relation.name}' of object '${def.name}'`;
    if (relation.kind === 'reverse') {
      claimed.add(relation.name, owner);
      keys.set(relation.name, { kind: 'many', relation: relation.name, target: relation.target });
      lines.push(
        `  """${relation.target} records whose ${relation.field} is this record."""\n  ${relation.name}: ${target.relationFilter}`,
      );
    } else {
      const key = recordKey(relation.name);
      claimed.add(key, owner);
      const many = relation.kind === 'many';
      keys.set(key, { kind: many ? 'many' : 'one', relation: relation.name, target: relation.target });
      lines.push(
        `  """The ${relation.target} record${many ? 's' : ''} ${relation.name} points at."""\n  ${key}: ${many ? target.relationFilter : target.filter}`,
      );
    }
  }
  const doc = `"""Conditions on ${def.name} records: every key given must hold. _and, _or and _not combine filters; <lookup>_record tests the related record; a one-to-many relation tests its records."""`;
  return { sdl: `${doc}\ninput ${names.filter} {\n${lines.join('\n')}\n}`, keys };
}

/** `<Type>RelationFilter`: conditions on several related records of this type. */
export function relationFilterSdl(names: QueryNames): string {
  return (
    `"""Conditions on several related ${names.object} records; several given must all hold."""\n` +
    `input ${names.relationFilter} {\n` +
    `  """At least one related record matches."""\n  some: ${names.filter}\n` +
    `  """Every related record matches (true when there is none)."""\n  every: ${names.filter}\n` +
    `  """No related record matches."""\n  none: ${names.filter}\n}`
  );
}
