/**
 * JSON-RPC → engine operations and back: request checking, the op table of the spec (docs/spec.md, "JSON-RPC style API") and the
 * current (unwrapped) response shapes. No HTTP here; index.ts binds it to a route.
 */
import {
  isPlainObject,
  ObjectQLError,
  type DataEngine,
  type DataRecord,
  type FindOptions,
  type RequestContext,
  type User,
} from '../../kernel';
import { listOptions } from '../../kernel/protocol';

export const RPC_OPS = [
  'find',
  'findOne',
  'create',
  'update',
  'delete',
  'count',
  'action',
  'createMany',
  'updateMany',
  'deleteMany',
] as const;
export type RpcOp = (typeof RPC_OPS)[number];

export interface RpcRequest {
  op: RpcOp;
  object: string;
  args: unknown;
  user?: User;
  ai_context?: Record<string, unknown>;
}

const FIND_KEYS = new Set(['fields', 'filters', 'sort', 'top', 'skip', 'expand', 'groupBy', 'aggregate', 'limit']);
const FIND_ONE_KEYS = new Set(['filters', 'fields', 'expand']);
const REQUEST_KEYS = new Set(['op', 'object', 'args', 'user', 'ai_context', '@type']);

export function parseRpcRequest(body: unknown): RpcRequest {
  if (!isPlainObject(body)) throw new ObjectQLError('INVALID_REQUEST', 'Request body must be a JSON object {op, object, args}');
  for (const key of Object.keys(body)) {
    if (!REQUEST_KEYS.has(key))
      throw new ObjectQLError('INVALID_REQUEST', `Unknown request field '${key}'; expected op, object, args, user, ai_context`);
  }
  const { op, object, args, user, ai_context } = body;
  if (typeof op !== 'string' || !op) throw new ObjectQLError('INVALID_REQUEST', "'op' is required: one of " + RPC_OPS.join(', '));
  if (!(RPC_OPS as readonly string[]).includes(op))
    throw new ObjectQLError('INVALID_REQUEST', `Unknown op '${op}'; use one of ${RPC_OPS.join(', ')}`);
  const objectName = object ?? body['@type'];
  if (typeof objectName !== 'string' || !objectName)
    throw new ObjectQLError('INVALID_REQUEST', "'object' is required: the name of the target object");
  if (ai_context !== undefined && !isPlainObject(ai_context))
    throw new ObjectQLError('INVALID_REQUEST', "'ai_context' must be an object {intent, natural_language, use_case}");
  return { op: op as RpcOp, object: objectName, args, user: user === undefined ? undefined : parseBodyUser(user), ai_context };
}

function parseBodyUser(user: unknown): User {
  if (!isPlainObject(user) || typeof user.id !== 'string' || !user.id)
    throw new ObjectQLError('INVALID_REQUEST', "'user' must be {id: string, roles: string[]}");
  const roles = user.roles ?? [];
  if (!Array.isArray(roles) || !roles.every((r) => typeof r === 'string'))
    throw new ObjectQLError('INVALID_REQUEST', "'user.roles' must be an array of strings");
  return { ...user, id: user.id, roles };
}

/** Runs one request and returns the response body of the spec's op table. */
export async function executeRpc(engine: DataEngine, req: RpcRequest, ctx: RequestContext): Promise<Record<string, unknown>> {
  const repo = engine.repo(req.object, ctx);
  const type = { '@type': req.object };
  const args = req.args;
  switch (req.op) {
    case 'find': {
      const a = optionalObject(args, 'find');
      checkKeys(a, FIND_KEYS, 'find');
      const result = await repo.find(listOptions(a));
      return { items: result.items, meta: result.meta };
    }
    case 'findOne': {
      const record = await repo.findOne(findOneArgs(args));
      if (!record) {
        throw new ObjectQLError(
          'NOT_FOUND',
          typeof args === 'string' ? `Record '${args}' of '${req.object}' not found` : `No '${req.object}' record matches the filters`,
          { object: req.object, ...(typeof args === 'string' ? { id: args } : {}) },
        );
      }
      return { ...record, ...type };
    }
    case 'create':
      return { ...(await repo.create(requiredObject(args, 'create', 'a map of field values'))), ...type };
    case 'update': {
      const a = requiredObject(args, 'update', '{id, data}');
      checkKeys(a, new Set(['id', 'data']), 'update');
      if (!isPlainObject(a.data)) throw new ObjectQLError('INVALID_REQUEST', "update needs 'data', a map of field values");
      return { ...(await repo.update(requiredId(a.id, 'update'), a.data)), ...type };
    }
    case 'delete': {
      const a = typeof args === 'string' ? { id: args } : requiredObject(args, 'delete', '{id}');
      checkKeys(a, new Set(['id']), 'delete');
      return { ...(await repo.delete(requiredId(a.id, 'delete'))), ...type };
    }
    case 'count': {
      const a = optionalObject(args, 'count');
      checkKeys(a, new Set(['filters']), 'count');
      return { count: await repo.count({ filters: a.filters }), ...type };
    }
    case 'action': {
      const a = requiredObject(args, 'action', '{action, id?, input?}');
      checkKeys(a, new Set(['action', 'id', 'input']), 'action');
      if (typeof a.action !== 'string' || !a.action) throw new ObjectQLError('INVALID_REQUEST', "action needs 'action', the action's name");
      if (a.id !== undefined && typeof a.id !== 'string') throw new ObjectQLError('INVALID_REQUEST', "action 'id' must be a string");
      if (a.input !== undefined && !isPlainObject(a.input)) throw new ObjectQLError('INVALID_REQUEST', "action 'input' must be an object");
      const result = await repo.action(a.action, { id: a.id, input: a.input });
      return { ...(isPlainObject(result) ? result : { result: result ?? null }), ...type };
    }
    case 'createMany': {
      if (!Array.isArray(args)) throw new ObjectQLError('INVALID_REQUEST', 'createMany needs an array of records in args');
      // Untyped JSON on purpose: the engine checks every item and lists one that is not a record in `errors`.
      return { ...(await repo.createMany(args as DataRecord[])), ...type };
    }
    case 'updateMany': {
      const a = requiredObject(args, 'updateMany', '{filters, data}');
      checkKeys(a, new Set(['filters', 'data']), 'updateMany');
      if (!isPlainObject(a.data)) throw new ObjectQLError('INVALID_REQUEST', "updateMany needs 'data', a map of field values");
      return { ...(await repo.updateMany(a.filters, a.data)), ...type };
    }
    case 'deleteMany': {
      const a = requiredObject(args, 'deleteMany', '{filters}');
      checkKeys(a, new Set(['filters']), 'deleteMany');
      return { ...(await repo.deleteMany(a.filters)), ...type };
    }
  }
}

/** findOne's args: a record id, or {filters, fields?, expand?} read by the same rules as find's. */
function findOneArgs(args: unknown): string | FindOptions {
  if (typeof args === 'string') return args;
  const a = requiredObject(args, 'findOne', '{filters} or a record id');
  checkKeys(a, FIND_ONE_KEYS, 'findOne');
  return listOptions(a);
}

/** Arguments are never silently ignored, and no engine-internal option (such as a raw `filter` tree) passes. */
function checkKeys(args: Record<string, unknown>, allowed: ReadonlySet<string>, op: string): void {
  for (const key of Object.keys(args))
    if (!allowed.has(key))
      throw new ObjectQLError('INVALID_REQUEST', `Unknown ${op} argument '${key}'; expected ${[...allowed].join(', ')}`);
}

function optionalObject(args: unknown, op: string): Record<string, unknown> {
  if (args === undefined || args === null) return {};
  if (!isPlainObject(args)) throw new ObjectQLError('INVALID_REQUEST', `${op} args must be an object`);
  return args;
}

function requiredObject(args: unknown, op: string, shape: string): Record<string, unknown> {
  if (!isPlainObject(args)) throw new ObjectQLError('INVALID_REQUEST', `${op} args must be ${shape}`);
  return args;
}

function requiredId(id: unknown, op: string): string {
  if (typeof id !== 'string' || !id) throw new ObjectQLError('INVALID_REQUEST', `${op} needs 'id', a record id string`);
  return id;
}
