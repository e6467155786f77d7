/**
 * The SDL of `<object>Aggregate` (docs/graphql.md, "Aggregates"): the field enum to group by,
 * the row type and its parts. For `project`:
 *
 *   projectAggregate(filters, where, groupBy: [ProjectField!], top, skip, orderBy): [ProjectAggregateRow!]!
 *   type ProjectAggregateRow { group: ProjectAggregateValues!  count: Int!
 *     countdistinct: ProjectAggregateCounts!  sum: ProjectAggregateNumbers!  avg: ProjectAggregateNumbers!
 *     min: ProjectAggregateValues!  max: ProjectAggregateValues! }
 *
 * Fields that can be grouped and aggregated: neither json-like nor multiple (the engine's rule);
 * sum and avg: numeric ones. Pure.
 */
import { NUMERIC_TYPES, type FieldDefinition, type ObjectDefinition } from '../../kernel';
import { isJsonTextField } from '../../kernel/protocol';
import type { QueryNames } from './query-names';
import { scalarOf } from './where-sdl';

/** Names GraphQL does not allow as enum values. */
const NOT_ENUM_VALUES: ReadonlySet<string> = new Set(['true', 'false', 'null']);

export function groupable(def: ObjectDefinition): FieldDefinition[] {
  return Object.values(def.fields).filter((f) => !isJsonTextField(f) && !f.multiple);
}

export function numeric(def: ObjectDefinition): FieldDefinition[] {
  return groupable(def).filter((f) => NUMERIC_TYPES.has(f.type));
}

export function aggregateSdl(def: ObjectDefinition, q: QueryNames): { types: string; queries: string[] } {
  const fields = groupable(def);
  const numbers = numeric(def);
  const block = (kind: 'type' | 'enum', name: string, doc: string, lines: string[]) =>
    `"""${doc}"""\n${kind} ${name} {\n${lines.join('\n')}\n}`;
  const types = [
    block(
      'enum',
      q.field,
      `Fields of ${def.name} to group by.`,
      fields.filter((f) => !NOT_ENUM_VALUES.has(f.name)).map((f) => `  ${f.name}`),
    ),
    block(
      'type',
      q.aggregateValues,
      `Values of ${def.name} fields: a group's values (null for fields not grouped by), or each field's min or max.`,
      fields.map((f) => `  ${f.name}: ${scalarOf(f)}`),
    ),
    block(
      'type',
      q.aggregateCounts,
      `Distinct non-null values of each ${def.name} field.`,
      fields.map((f) => `  ${f.name}: Int`),
    ),
  ];
  if (numbers.length)
    types.push(
      block(
        'type',
        q.aggregateNumbers,
        `Sums or averages of the numeric ${def.name} fields.`,
        numbers.map((f) => `  ${f.name}: Float`),
      ),
    );
  const row = [
    `  """The group's values of the groupBy fields."""\n  group: ${q.aggregateValues}!`,
    '  """Records in the group."""\n  count: Int!',
    `  countdistinct: ${q.aggregateCounts}!`,
    ...(numbers.length ? [`  sum: ${q.aggregateNumbers}!`, `  avg: ${q.aggregateNumbers}!`] : []),
    `  min: ${q.aggregateValues}!`,
    `  max: ${q.aggregateValues}!`,
  ];
  types.push(block('type', q.aggregateRow, `One group of ${def.name} records (one row for all when there is no groupBy).`, row));
  const queries = [
    `  """${def.name} records grouped by groupBy, with the aggregates the rows select; orderBy may name groupBy fields only."""\n` +
      `  ${q.aggregate}(filters: String, where: ${q.filter}, groupBy: [${q.field}!], top: Int, skip: Int, orderBy: [${q.orderBy}!]): [${q.aggregateRow}!]!`,
  ];
  return { types: types.join('\n\n'), queries };
}
