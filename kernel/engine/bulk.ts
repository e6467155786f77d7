/**
 * createMany, updateMany, deleteMany: record by record, each in its own transaction with its own
 * validation and hooks; not atomic. Each failed item is reported with its error and the others go on.
 */
import { ObjectQLError, toObjectQLError } from '../errors';
import { checkRecordValues } from './field-values';
import { assertAllowed } from './permissions';
import type { ObjectRepository } from './repository';
import type { BulkCountResult, BulkItemError, CreateManyResult, DataRecord } from './types';
import { assertWritable, throwIfInvalid } from './write-path';

export async function createMany(repo: ObjectRepository, items: DataRecord[]): Promise<CreateManyResult> {
  if (!Array.isArray(items)) throw new ObjectQLError('INVALID_REQUEST', `createMany on '${repo.name}' needs an array of records`);
  checkSize(repo, items.length);
  assertAllowed(repo.access, 'create', repo.name);
  const created: DataRecord[] = [];
  const errors: BulkItemError[] = [];
  for (const [index, item] of items.entries()) {
    try {
      created.push(await repo.create(item));
    } catch (err) {
      errors.push({ index, error: itemError(repo, err) });
    }
  }
  return { items: created, count: created.length, ...(errors.length ? { errors } : {}) };
}

export async function updateMany(repo: ObjectRepository, filters: unknown, data: DataRecord): Promise<BulkCountResult> {
  assertAllowed(repo.access, 'edit', repo.name);
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new ObjectQLError('INVALID_REQUEST', `updateMany on '${repo.name}' needs 'data', a map of field values`);
  // The caller's data must hold on its own, whether or not anything matches; hooks may add to it per record.
  assertWritable(repo, data, repo.access, 'update');
  const checked = checkRecordValues(repo.compiled.def, data, 'update', repo.engine.limits);
  throwIfInvalid(repo, checked.errors, checked.limit);
  const ids = await matchingIds(repo, filters, 'updateMany');
  return eachRecord(repo, ids, (id) => repo.update(id, data));
}

export async function deleteMany(repo: ObjectRepository, filters: unknown): Promise<BulkCountResult> {
  assertAllowed(repo.access, 'delete', repo.name);
  const ids = await matchingIds(repo, filters, 'deleteMany');
  return eachRecord(repo, ids, (id) => repo.delete(id));
}

async function eachRecord(repo: ObjectRepository, ids: string[], fn: (id: string) => Promise<unknown>): Promise<BulkCountResult> {
  let count = 0;
  const errors: BulkItemError[] = [];
  for (const [index, id] of ids.entries()) {
    try {
      await fn(id);
      count += 1;
    } catch (err) {
      errors.push({ index, id, error: itemError(repo, err) });
    }
  }
  return { count, ...(errors.length ? { errors } : {}) };
}

/** The ids the caller may see that match; a bulk request never touches more than maxBulkItems records. */
async function matchingIds(repo: ObjectRepository, filters: unknown, op: string): Promise<string[]> {
  if (filters === undefined || filters === null) {
    throw new ObjectQLError('INVALID_REQUEST', `${op} on '${repo.name}' needs 'filters' (use {} to match every record)`);
  }
  const max = repo.engine.limits.maxBulkItems;
  const { items, meta } = await repo.findWith({ filters, fields: ['id'], top: max }, 'find', { depth: 0, unlimitedTop: true });
  if (meta.total > max)
    throw new ObjectQLError(
      'INVALID_REQUEST',
      `${op} on '${repo.name}' matches ${meta.total} records; at most ${max} may be changed in one request`,
    );
  return items.map((r) => r.id as string);
}

function checkSize(repo: ObjectRepository, n: number): void {
  const max = repo.engine.limits.maxBulkItems;
  if (n > max) throw new ObjectQLError('INVALID_REQUEST', `At most ${max} records may be sent to '${repo.name}' in one request, got ${n}`);
}

function itemError(repo: ObjectRepository, err: unknown) {
  return toObjectQLError(err, () => {
    (repo.request.logger ?? repo.engine.deps.logger).error({ err, object: repo.name }, 'bulk item failed');
    return new ObjectQLError('INTERNAL_ERROR', 'Internal server error');
  }).toBody().error;
}
