/**
 * create, update and delete: permission → field permission → record scope → before hooks → value
 * validation of the final data → rules, references, uniqueness → driver → after hooks, all inside
 * one transaction that the hooks' own writes join; changes are announced after the commit.
 */
import { randomUUID } from 'node:crypto';
import { ObjectQLError, validationError } from '../errors';
import { andFilters } from '../query/ast';
import { evaluateFilter } from '../query/evaluate';
import { applyDefaults, checkRecordValues } from './field-values';
import { checkId } from './scalar-values';
import type { ValueProblem } from './value-rules';
import { assertAllowed, denied, type Access } from './permissions';
import type { ObjectRepository } from './repository';
import { lastChangeStamp, toInstant } from './record-stamp';
import type { DataRecord, RecordChange, WriteOptions } from './types';
import { announceChanges, type UnitOfWork } from './unit-of-work';
import { checkReferences, checkUniqueFields, nextAutoNumbers } from './write-checks';
import { checkRules } from './validation-rules';

export async function createRecord(repo: ObjectRepository, input: DataRecord): Promise<DataRecord> {
  const access = repo.access;
  assertAllowed(access, 'create', repo.name);
  assertWritable(repo, input, access, 'create');
  assertIdChoosable(repo, input, access);
  const created = await inTransaction(repo, async (r) => {
    const ctx = r.hookContext('beforeCreate', 'create', { data: { ...input } });
    await r.runHooks(ctx);
    const specials = r.specials();
    const data = applyDefaults(r.compiled.def, ctx.data ?? {}, {
      now: specials.now.toISOString(),
      today: specials.now.toISOString().slice(0, 10),
      userId: specials.user?.id,
    });
    const { id, ...fields } = data;
    const { data: clean, errors, limit } = checkValues(r, input, fields, 'create');
    if (id !== undefined) {
      const checked = typeof id === 'string' && id.trim() ? checkId(id) : undefined;
      if (!checked || 'error' in checked) errors.id = 'must be a non-empty string of at most 255 characters, well-formed, without NUL';
    }
    throwIfInvalid(r, errors, limit);

    const now = specials.now.toISOString();
    const user = specials.user?.id ?? null;
    const record: DataRecord = {
      id: id ?? randomUUID(),
      ...clean,
      created_at: now,
      created_by: user,
      updated_at: now,
      updated_by: user,
    };
    Object.assign(record, await nextAutoNumbers(r));
    await checkFinalRecord(r, record, Object.keys(clean), 'create');

    const stored = await r.compiled.datasource.create(r.name, record, r.tx);
    const after = r.hookContext('afterCreate', 'create', { data: ctx.data, id: stored.id as string, result: stored });
    await r.runHooks(after);
    await recordChange(r, {
      object: r.name,
      type: 'created',
      id: stored.id as string,
      record: stored,
      user: r.request.user,
      requestId: r.request.requestId,
    });
    return (after.result ?? stored) as DataRecord;
  });
  return repo.mask(created, repo.access);
}

export async function updateRecord(repo: ObjectRepository, id: string, input: DataRecord, options: WriteOptions = {}): Promise<DataRecord> {
  const access = repo.access;
  assertAllowed(access, 'edit', repo.name);
  assertId(repo, id);
  assertWritable(repo, input, access, 'update');
  const response = await inTransaction(repo, async (r) => {
    const previous = await loadForWrite(r, id, 'edit');
    assertUnchanged(r, id, previous, options);
    const ctx = r.hookContext('beforeUpdate', 'update', { data: { ...input }, id, previous });
    await r.runHooks(ctx);
    const { data: clean, errors, limit } = checkValues(r, input, ctx.data ?? {}, 'update');
    throwIfInvalid(r, errors, limit);
    const changed = Object.keys(clean);
    const merged = { ...previous, ...clean };
    await checkFinalRecord(r, merged, changed, 'update', previous);

    const specials = r.specials();
    const stamp = { updated_at: specials.now.toISOString(), updated_by: specials.user?.id ?? null };
    const stored = await r.compiled.datasource.update(r.name, id, { ...clean, ...stamp }, r.tx);
    if (!stored) throw notFound(r, id);
    const result: DataRecord = { id };
    for (const key of changed) result[key] = stored[key];
    result.updated_at = stored.updated_at;
    const after = r.hookContext('afterUpdate', 'update', { data: ctx.data, id, previous, result });
    await r.runHooks(after);
    await recordChange(r, {
      object: r.name,
      type: 'updated',
      id,
      record: stored,
      previous,
      user: r.request.user,
      requestId: r.request.requestId,
    });
    return (after.result ?? result) as DataRecord;
  });
  return repo.mask(response, repo.access, Object.keys(response));
}

export async function deleteRecord(repo: ObjectRepository, id: string, options: WriteOptions = {}): Promise<{ id: string; deleted: true }> {
  const access = repo.access;
  assertAllowed(access, 'delete', repo.name);
  assertId(repo, id);
  return inTransaction(repo, async (r) => {
    const previous = await loadForWrite(r, id, 'delete');
    assertUnchanged(r, id, previous, options);
    const ctx = r.hookContext('beforeDelete', 'delete', { id, previous });
    await r.runHooks(ctx);
    // A master takes its details with it, whatever the caller may see of them.
    for (const detail of r.compiled.details) {
      const children = await r.engine
        .object(detail.object)
        .datasource.find(
          detail.object,
          { fields: ['id'], filter: { field: detail.field, op: 'eq', value: id } },
          r.unit.transactions.get(r.engine.object(detail.object).def.datasource),
        );
      for (const child of children) {
        await r.engine.scopedRepo(detail.object, { ...r.request, system: true }, r.unit).delete(child.id as string);
      }
    }
    if (!(await r.compiled.datasource.delete(r.name, id, r.tx))) throw notFound(r, id);
    const result = { id, deleted: true as const };
    const after = r.hookContext('afterDelete', 'delete', { id, previous, result });
    await r.runHooks(after);
    await recordChange(r, {
      object: r.name,
      type: 'deleted',
      id,
      record: previous,
      previous,
      user: r.request.user,
      requestId: r.request.requestId,
    });
    return (after.result ?? result) as { id: string; deleted: true };
  });
}

/**
 * Runs fn in this datasource's transaction (joining one already open); announces changes after the
 * outermost commit. A transaction that fails takes the changes of its datasource recorded inside
 * it along: they were rolled back, and the unit may go on (the next item of a bulk operation) and
 * commit others. Changes of other datasources stay: their transactions commit on their own.
 * Inside engine.transaction() the unit's scope opens, commits and announces instead.
 */
export async function inTransaction<T>(repo: ObjectRepository, fn: (r: ObjectRepository) => Promise<T>): Promise<T> {
  const ds = repo.compiled.datasource;
  const scope = repo.unit.scope;
  // The scope's transactions are shared by the whole unit: once joined, repo.tx is the open one.
  if (scope) return scope.run(ds, () => fn(repo));
  if (repo.tx) return fn(repo);
  const unit = repo.unit;
  const recorded = unit.changes.length;
  let result: T;
  try {
    result = await ds.transaction((tx) => fn(repo.engine.scopedRepo(repo.name, repo.request, unit.with(ds.name, tx))));
  } catch (err) {
    const elsewhere = unit.changes.splice(recorded).filter((c) => repo.engine.object(c.object).def.datasource !== ds.name);
    unit.changes.push(...elsewhere);
    if (unit.isOutermost) await announce(repo, unit);
    throw err;
  }
  if (unit.isOutermost) await announce(repo, unit);
  return result;
}

/** Keeps a change to announce once committed, and gives it to `recordChanging` inside the write's transaction. */
async function recordChange(r: ObjectRepository, change: RecordChange): Promise<void> {
  r.unit.changes.push(change);
  const hook = r.engine.deps.hooks.recordChanging;
  if (hook.isUsed() && r.tx) await hook.promise(change, { datasource: r.compiled.datasource, tx: r.tx });
}

function announce(repo: ObjectRepository, unit: UnitOfWork): Promise<void> {
  // The write has committed: a failing listener must not turn it into an error.
  return announceChanges(repo.engine.deps.hooks, repo.request.logger ?? repo.engine.deps.logger, unit.changes.splice(0));
}

/** The stored record: NOT_FOUND when the caller may not see it, FORBIDDEN when they may see but not `op` it. */
async function loadForWrite(r: ObjectRepository, id: string, op: 'edit' | 'delete'): Promise<DataRecord> {
  const filter = andFilters({ field: 'id', op: 'eq', value: id }, r.scopeFilter());
  const [previous] = await r.compiled.datasource.find(r.name, { filter, top: 1 }, r.tx);
  if (!previous) throw notFound(r, id);
  const scope = r.scopeFilter(undefined, op);
  if (scope && !evaluateFilter(scope, previous)) {
    throw denied(r.access, `${op} record '${id}' of '${r.name}'`, { required_permission: 'record_filters', object: r.name });
  }
  return previous;
}

/**
 * The precondition of `ifUnchangedSince`: the stored record's last-change stamp, as the caller may
 * see it (the stamp their ETag was made of), is one of the expected instants. Runs after
 * loadForWrite, so a caller who may not write the record gets that answer, never this one.
 */
function assertUnchanged(r: ObjectRepository, id: string, previous: DataRecord, options: WriteOptions): void {
  const expected = options.ifUnchangedSince;
  if (expected === undefined) return;
  const current = lastChangeStamp(previous, r.access.readable);
  const accepted = (typeof expected === 'string' ? [expected] : expected).map(toInstant);
  if (current !== undefined && accepted.includes(current)) return;
  throw new ObjectQLError(
    'PRECONDITION_FAILED',
    `Record '${id}' of '${r.name}' has changed since it was read (or its version is unknown): reload it and retry`,
    { object: r.name, id },
  );
}

async function checkFinalRecord(
  r: ObjectRepository,
  record: DataRecord,
  changed: string[],
  mode: 'create' | 'update',
  previous?: DataRecord,
): Promise<void> {
  const ds = r.compiled.datasource;
  const errors = await checkRules(r.compiled.def, record, {
    mode,
    previous,
    changed,
    specials: r.specials(),
    countMatching: (filter) => ds.count(r.name, filter, r.tx),
  });
  Object.assign(errors, await checkReferences(r, record, changed));
  throwIfInvalid(r, errors);
  await checkUniqueFields(r, record, changed);
  const scope = r.scopeFilter(undefined, mode === 'create' ? 'create' : 'edit');
  if (scope && !evaluateFilter(scope, record)) {
    throw denied(r.access, `${mode === 'create' ? 'create' : 'change'} a record of '${r.name}' outside the caller's record scope`, {
      required_permission: 'record_filters',
      object: r.name,
    });
  }
}

/**
 * Value validation of the final data. Readonly and formula fields are closed to callers but open
 * to hooks: a value a before hook put there (absent from the caller's input) is kept as the hook
 * wrote it.
 */
function checkValues(r: ObjectRepository, input: DataRecord, data: DataRecord, mode: 'create' | 'update') {
  const fields = r.compiled.def.fields;
  const hookOnly = ([key]: [string, unknown]) => {
    const field = Object.prototype.hasOwnProperty.call(fields, key) ? fields[key] : undefined;
    return Boolean(field && !field.system && (field.readonly || field.type === 'formula') && !(key in input));
  };
  // fromEntries, not assignment: an own '__proto__' key of parsed JSON stays a key (reported as unknown).
  const entries = Object.entries(data);
  const fromHooks: DataRecord = Object.fromEntries(entries.filter(hookOnly));
  const rest: DataRecord = Object.fromEntries(entries.filter((e) => !hookOnly(e)));
  const checked = checkRecordValues(r.compiled.def, rest, mode, r.engine.limits);
  return { data: { ...checked.data, ...fromHooks }, errors: checked.errors, limit: checked.limit };
}

/**
 * Field-level permission on what the caller sends, before any hook or record is touched. A field
 * the caller may not read is reported exactly as a field that does not exist ('unknown field'),
 * at the same step, so no answer tells them apart; a visible field they may not edit is forbidden.
 */
export function assertWritable(repo: ObjectRepository, data: DataRecord, access: Access, mode: 'create' | 'update'): void {
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    throw new ObjectQLError('INVALID_REQUEST', `Data for '${repo.name}' must be an object of field values`);
  }
  if (access.all) return;
  const fields = repo.compiled.def.fields;
  const unknown: Record<string, string> = {};
  for (const key of Object.keys(data)) {
    const field = Object.prototype.hasOwnProperty.call(fields, key) ? fields[key] : undefined;
    // defineProperty: an own '__proto__' key of parsed JSON is reported like any other name.
    if (!field || !access.readable.has(key))
      Object.defineProperty(unknown, key, { value: 'unknown field', enumerable: true, writable: true, configurable: true });
    // Fields nobody may write (system, readonly, generated) are reported by value validation.
    else if (field.system || field.readonly || field.type === 'auto_number' || field.type === 'formula') continue;
    else if (!access.editable.has(key)) {
      throw denied(access, `${mode === 'create' ? 'set' : 'edit'} field '${key}' of '${repo.name}'`, {
        required_permission: 'allow_edit',
        object: repo.name,
        field: key,
      });
    }
  }
  throwIfInvalid(repo, unknown);
}

/**
 * A caller may choose the id of a new record only when it could read any record with that id (no
 * record scope, read allowed). Otherwise a taken id would answer CONFLICT where a read of it
 * answers NOT_FOUND: an oracle for what the caller may not see (docs/adr/0008, docs/security.md).
 * Checked on the caller's input, before hooks (which may set an id) and whatever the id is.
 */
function assertIdChoosable(repo: ObjectRepository, input: DataRecord, access: Access): void {
  if (input.id === undefined || input.id === null || access.all || (access.allowed.read && !access.scopes.read)) return;
  throw validationError(
    { id: `cannot be chosen by a caller who may not read every record of '${repo.name}': leave it out and the service assigns one` },
    `Invalid ${repo.name}: id cannot be chosen by a caller who may not read every record of '${repo.name}'`,
  );
}

/** VALIDATION_ERROR naming every field in `errors`, with the configured limit exceeded (`limit`, `max`) when one was. */
export function throwIfInvalid(r: ObjectRepository, errors: Record<string, string>, limit?: ValueProblem['limit']): void {
  const names = Object.keys(errors);
  if (names.length === 0) return;
  const error = validationError(errors, `Invalid ${r.name}: ${names.map((n) => `${n}: ${errors[n]}`).join('; ')}`);
  throw limit ? new ObjectQLError(error.code, error.message, { ...(error.details as object), ...limit }) : error;
}

/** A record id naming the record to change: what no stored id can be is refused before any driver sees it. */
function assertId(r: ObjectRepository, id: unknown): void {
  if (typeof id !== 'string' || !id) throw new ObjectQLError('INVALID_REQUEST', `A record id (string) is required for '${r.name}'`);
  const checked = checkId(id);
  if ('error' in checked) throw validationError({ id: checked.error }, `Record id of '${r.name}' ${checked.error}`);
}

export function notFound(r: ObjectRepository, id: string): ObjectQLError {
  return new ObjectQLError('NOT_FOUND', `Record '${id}' of '${r.name}' not found`, { object: r.name, id });
}
