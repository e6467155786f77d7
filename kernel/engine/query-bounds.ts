/**
 * Bounds of a list query's options that no driver could honour alike: a skip beyond
 * limits.maxSkip (an engine would scan every skipped row, and past 2^53 the number is no longer
 * exact: `skip: 1e19` failed inside SQLite and PostgreSQL), and options nested deeper than
 * limits.maxJsonDepth (sort, fields, expand, groupBy, aggregate and filters are walked
 * recursively after this; a few thousand levels would overflow the stack).
 */
import { ObjectQLError } from '../errors';
import { valueDepth } from '../protocol/json-depth';
import type { FindOptions } from './types';

export function assertSkip(skip: number, max: number): void {
  if (skip > max) {
    throw new ObjectQLError(
      'INVALID_REQUEST',
      `'skip' may be at most ${max}, got ${skip}: page further with a filter on the sort key (e.g. [['id', '>', lastId]])`,
      { parameter: 'skip', limit: 'maxSkip', max },
    );
  }
}

const NESTED_OPTIONS = ['sort', 'fields', 'expand', 'groupBy', 'aggregate', 'filters'] as const;

export function assertQueryDepth(options: FindOptions, max: number): void {
  for (const name of NESTED_OPTIONS) {
    const value: unknown = options[name];
    if (value !== null && typeof value === 'object' && valueDepth(value, max) > max) {
      throw new ObjectQLError('INVALID_REQUEST', `'${name}' is nested deeper than ${max} levels`, {
        parameter: name,
        limit: 'maxJsonDepth',
        max,
      });
    }
  }
}
