/** Checks of a record about to be written that need the store: references, uniqueness, numbering. */
import { ObjectQLError } from '../errors';
import { andFilters, type Filter } from '../query/ast';
import type { ObjectRepository } from './repository';
import type { DataRecord } from './types';

/**
 * Every lookup / master_detail value must name a record that exists and that the caller may read
 * (one `in` query per field): a record outside the caller's read scope reads as missing, so the
 * answer never tells whether an id the caller may not see exists, and nobody links to it.
 */
export async function checkReferences(r: ObjectRepository, record: DataRecord, changed: string[]): Promise<Record<string, string>> {
  const errors: Record<string, string> = {};
  for (const field of r.compiled.relations) {
    if (!changed.includes(field.name) || record[field.name] === null || record[field.name] === undefined) continue;
    const ids = [...new Set((Array.isArray(record[field.name]) ? record[field.name] : [record[field.name]]) as string[])];
    if (ids.length === 0) continue;
    const target = r.engine.scopedRepo(field.reference_to!, r.request, r.unit);
    const access = target.access;
    const filter = andFilters({ field: 'id', op: 'in', value: ids }, target.scopeFilter(access));
    const found = access.allowed.read ? await target.compiled.datasource.find(target.name, { fields: ['id'], filter }, target.tx) : [];
    const missing = ids.filter((id) => !found.some((f) => f.id === id));
    if (missing.length)
      errors[field.name] =
        `refers to ${field.reference_to} record${missing.length > 1 ? 's' : ''} that do${missing.length > 1 ? '' : 'es'} not exist: ${missing.join(', ')}`;
  }
  return errors;
}

/** A unique field's value may be held by one record only: CONFLICT (409) names the field. */
export async function checkUniqueFields(r: ObjectRepository, record: DataRecord, changed: string[]): Promise<void> {
  for (const field of r.compiled.uniqueFields) {
    const value = record[field.name];
    if (!changed.includes(field.name) || value === null || value === undefined) continue;
    const filter: Filter = {
      and: [
        { field: field.name, op: 'eq', value },
        { field: 'id', op: 'ne', value: record.id },
      ],
    };
    if ((await r.compiled.datasource.count(r.name, filter, r.tx)) > 0) {
      throw new ObjectQLError('CONFLICT', `A ${r.name} record with ${field.name} ${JSON.stringify(value)} already exists`, {
        object: r.name,
        field: field.name,
      });
    }
  }
}

/** auto_number fields: one more than the highest stored, inside the write's transaction. */
export async function nextAutoNumbers(r: ObjectRepository): Promise<DataRecord> {
  const out: DataRecord = {};
  for (const field of r.compiled.autoNumbers) {
    const [row] = await r.compiled.datasource.aggregate(r.name, { aggregate: [{ func: 'max', field: field.name, alias: 'max' }] }, r.tx);
    out[field.name] = (typeof row?.max === 'number' ? row.max : 0) + 1;
  }
  return out;
}
