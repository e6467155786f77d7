/** Small objects for the OData query parser's tests, and helpers to parse and to catch its errors. */
import { expect } from 'chai';
import { ObjectQLError, type Filter, type RequestFilter, type ObjectDefinition } from '../../../../kernel';
import { parseODataQuery, type ODataQuery, type ODataQuerySettings, type ODataQueryTarget } from '../../../../plugins/odata/query';
import { field, objectDef } from '../../../drivers/sql/objects';

const options = (...values: string[]) => values.map((value) => ({ label: value, value }));

export const ITEM: ObjectDefinition = objectDef('item', [
  field('name', 'text'),
  field('notes', 'textarea'),
  field('email', 'email'),
  field('qty', 'number'),
  field('target', 'number'),
  field('price', 'currency'),
  field('seq', 'auto_number'),
  field('active', 'boolean'),
  field('due', 'date'),
  field('at', 'datetime'),
  field('opens', 'time'),
  field('status', 'select', { options: options('open', 'closed') }),
  field('tags', 'select', { multiple: true, options: options('red', 'green') }),
  field('meta', 'json'),
  field('owner', 'lookup', { reference_to: 'owner' }),
  field('category', 'master_detail', { reference_to: 'category' }),
  field('ghost', 'lookup', { reference_to: 'nowhere' }),
]);

export const OWNER: ObjectDefinition = objectDef('owner', [
  field('name', 'text'),
  field('city', 'text'),
  field('org', 'lookup', { reference_to: 'org' }),
]);
export const ORG: ObjectDefinition = objectDef('org', [field('name', 'text'), field('parent', 'lookup', { reference_to: 'org' })]);
export const CATEGORY: ObjectDefinition = objectDef('category', [field('label', 'text'), field('rank', 'number')]);

const OBJECTS = new Map([ITEM, OWNER, ORG, CATEGORY].map((o) => [o.name, o]));

export const TARGET: ODataQueryTarget = { object: ITEM, resolve: (name) => OBJECTS.get(name) };
export const SETTINGS: ODataQuerySettings = { maxExpandDepth: 3, enableSearch: true, maxTop: 100 };

/** Parses a query string (as it follows '?', percent-encoding optional) against ITEM. */
export function parse(query: string, settings: Partial<ODataQuerySettings> = {}, target: ODataQueryTarget = TARGET): ODataQuery {
  return parseODataQuery(new URLSearchParams(query), target, { ...SETTINGS, ...settings });
}

/** The filter of a $filter alone. */
export function filterOf(expression: string, settings: Partial<ODataQuerySettings> = {}): RequestFilter | undefined {
  return parseODataQuery(new URLSearchParams([['$filter', expression]]), TARGET, { ...SETTINGS, ...settings }).find.filter;
}

/** The error `fn` throws, checked to be an ObjectQLError with OData details naming `target`. */
export function errorOf(
  fn: () => unknown,
  code = 'INVALID_REQUEST',
): ObjectQLError & { details: Array<{ code: string; message: string; target: string }> } {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught, 'expected an error').to.be.instanceOf(ObjectQLError);
  const error = caught as ObjectQLError & { details: Array<{ code: string; message: string; target: string }> };
  expect(error.code, error.message).to.equal(code);
  expect(error.details).to.be.an('array').with.lengthOf(1);
  expect(error.details[0]).to.deep.equal({ code, message: error.message, target: error.details[0].target });
  return error;
}

/** The error of a $filter, with its message and detail target. */
export function filterError(expression: string): { message: string; target: string } {
  const error = errorOf(() => filterOf(expression));
  return { message: error.message, target: error.details[0].target };
}

export const c = (field: string, op: string, value: unknown): Filter => ({ field, op, value }) as Filter;
export const ref = (field: string, op: string, other: string): Filter => ({ field, op, ref: other }) as Filter;
