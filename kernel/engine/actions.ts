/**
 * Record and global actions: declared in the object file, implemented in `<object>.action.ts`.
 * Params are checked like fields before the handler runs; the handler runs in one transaction
 * with an `api` acting as the same caller.
 */
import { ObjectQLError, toObjectQLError, validationError } from '../errors';
import type { ActionDefinition, FieldDefinition } from '../metadata/types';
import { isEmptyValue, normalizeFieldValue } from './field-values';
import { assertAllowed } from './permissions';
import type { ObjectRepository } from './repository';
import type { ActionRequest } from './types';
import { inTransaction, notFound } from './write-path';

export async function runAction(repo: ObjectRepository, name: string, request: ActionRequest): Promise<unknown> {
  if (typeof name !== 'string' || !name) throw new ObjectQLError('INVALID_REQUEST', `An action name is required for '${repo.name}'`);
  const action = Object.prototype.hasOwnProperty.call(repo.compiled.def.actions, name) ? repo.compiled.def.actions[name] : undefined;
  if (!action)
    throw new ObjectQLError('NOT_FOUND', `Action '${name}' not found on object '${repo.name}'`, { object: repo.name, action: name });
  assertAllowed(repo.access, 'read', repo.name);
  const { id } = request;
  if (action.type === 'record' && (typeof id !== 'string' || !id)) {
    throw new ObjectQLError('INVALID_REQUEST', `Action '${name}' of '${repo.name}' acts on a record: 'id' is required`);
  }
  const input = checkParams(repo, action, request.input ?? {});

  return inTransaction(repo, async (r) => {
    const record = action.type === 'record' ? await r.findOne(id as string) : undefined;
    if (action.type === 'record' && !record) throw notFound(r, id as string);
    try {
      return await action.handler!({
        object: r.name,
        action: name,
        id: action.type === 'record' ? id : undefined,
        record: record ?? undefined,
        input,
        user: r.request.user,
        api: r.engine.api(r.request, r.unit),
      });
    } catch (err) {
      throw toObjectQLError(err, () => {
        (r.request.logger ?? r.engine.deps.logger).error({ err, object: r.name, action: name }, 'action failed');
        return new ObjectQLError('INTERNAL_ERROR', `Action '${name}' of '${r.name}' failed`);
      });
    }
  });
}

function checkParams(repo: ObjectRepository, action: ActionDefinition, input: unknown): Record<string, unknown> {
  if (!input || typeof input !== 'object' || Array.isArray(input))
    throw new ObjectQLError('INVALID_REQUEST', `Input of action '${action.name}' must be an object`);
  const errors: Record<string, string> = {};
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    // Own params only ('toString' is no param), and defined so that a '__proto__' key is reported too.
    if (!Object.prototype.hasOwnProperty.call(action.params, key))
      Object.defineProperty(errors, key, { value: 'unknown parameter', enumerable: true, writable: true, configurable: true });
  }
  for (const [key, param] of Object.entries(action.params)) {
    const value = (input as Record<string, unknown>)[key];
    const field = { ...param, name: key } as FieldDefinition;
    if (isEmptyValue(field, value)) {
      if (param.required) errors[key] = 'is required';
      continue;
    }
    const checked = normalizeFieldValue(field, value, repo.engine.limits);
    if ('error' in checked) errors[key] = checked.error;
    else out[key] = checked.value;
  }
  if (Object.keys(errors).length)
    throw validationError(
      errors,
      `Invalid input for action '${action.name}' of '${repo.name}': ${Object.entries(errors)
        .map(([k, m]) => `${k}: ${m}`)
        .join('; ')}`,
    );
  return out;
}
