import { ObjectQLError } from '../errors';
import { JSON_VALUE_TYPES, NUMERIC_TYPES } from '../metadata/types';
import { AGGREGATE_FUNCS, type AggregateSpec } from '../query/ast';
import { fieldOf, type CheckEnv } from './query-check';
import type { FindOptions } from './types';

const ALIAS = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** groupBy and aggregate entries: readable, groupable fields; known functions; numeric sum/avg; unique aliases. */
export function checkAggregate(
  options: FindOptions,
  env: CheckEnv,
): { groupBy: string[]; aggregate: AggregateSpec[]; aliases: Set<string> } {
  if (options.groupBy !== undefined && options.groupBy !== null && !Array.isArray(options.groupBy))
    throw new ObjectQLError('INVALID_REQUEST', "'groupBy' must be an array of field names");
  for (const name of options.groupBy ?? []) {
    const field = fieldOf(env, name, 'groupBy');
    if (JSON_VALUE_TYPES.has(field.type) || field.multiple)
      throw new ObjectQLError('INVALID_REQUEST', `groupBy: cannot group by '${name}' (${field.type}${field.multiple ? ', multiple' : ''})`);
  }
  // Grouping by a field twice makes the same groups: each field once.
  const groupBy = [...new Set(options.groupBy ?? [])];
  const specs = options.aggregate ?? [];
  if (!Array.isArray(specs)) throw new ObjectQLError('INVALID_REQUEST', "'aggregate' must be an array of {func, field, alias}");
  const aliases = new Set<string>(groupBy);
  const aggregate = specs.map((spec, i): AggregateSpec => {
    const where = `aggregate[${i}]`;
    if (!spec || typeof spec !== 'object') throw new ObjectQLError('INVALID_REQUEST', `${where} must be {func, field, alias}`);
    const func = String(spec.func ?? '').toLowerCase() as AggregateSpec['func'];
    if (!AGGREGATE_FUNCS.includes(func))
      throw new ObjectQLError(
        'INVALID_REQUEST',
        `${where}: unknown function ${JSON.stringify(spec.func)}; use one of ${AGGREGATE_FUNCS.join(', ')}`,
      );
    const fieldName = spec.field === '*' || spec.field === null ? undefined : spec.field;
    if (fieldName === undefined && func !== 'count') throw new ObjectQLError('INVALID_REQUEST', `${where}: ${func} needs a field`);
    if (fieldName !== undefined) {
      const field = fieldOf(env, fieldName, where);
      if ((func === 'sum' || func === 'avg') && !NUMERIC_TYPES.has(field.type))
        throw new ObjectQLError('INVALID_REQUEST', `${where}: ${func} needs a numeric field, '${field.name}' is ${field.type}`);
      if (JSON_VALUE_TYPES.has(field.type) || field.multiple)
        throw new ObjectQLError('INVALID_REQUEST', `${where}: cannot aggregate '${field.name}' (${field.type})`);
    }
    const alias = spec.alias ?? (fieldName ? `${func}_${fieldName}` : func);
    if (typeof alias !== 'string' || !ALIAS.test(alias))
      throw new ObjectQLError('INVALID_REQUEST', `${where}: alias must be an identifier, got ${JSON.stringify(spec.alias)}`);
    if (aliases.has(alias)) throw new ObjectQLError('INVALID_REQUEST', `${where}: alias '${alias}' is used twice`);
    aliases.add(alias);
    return fieldName === undefined ? { func, alias } : { func, field: fieldName, alias };
  });
  if (aggregate.length === 0 && groupBy.length === 0)
    throw new ObjectQLError('INVALID_REQUEST', "'aggregate' needs at least one entry or a 'groupBy'");
  return { groupBy, aggregate, aliases };
}
