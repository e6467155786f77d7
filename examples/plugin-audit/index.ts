/**
 * objectql-plugin-audit: one audit entry per create, update and delete, on every object, kept in
 * memory and served at `GET /api/audit` (see README.md).
 *
 * A third-party plugin written against the plugin contract only (docs/plugins.md). It imports
 * nothing at run time: everything it uses arrives through the kernel passed to `register`, and
 * the `import type` below is erased when the file is loaded. (In a package of its own, outside
 * this repository, write `from 'objectql'` instead.)
 *
 * All state lives inside the plugin instance the factory returns, so two kernels in one process,
 * each with its own instance, keep separate logs.
 */
import type { DataRecord, HookContext, Kernel, Plugin, RecordChange } from '../../kernel';

export interface AuditOptions {
  /** Where the log is served. Default `/api/audit`. */
  path?: string;
  /** Entries per response when the request gives no `?limit=`. Default 100. */
  defaultLimit?: number;
  /** The most entries one response holds; a larger `?limit=` is capped to it. Default 1000. */
  maxLimit?: number;
  /** How many entries are kept; the oldest are dropped beyond. Default 10000. */
  capacity?: number;
  /** When set, only callers with one of these roles may read the log (401 / 403 otherwise). */
  roles?: string[];
}

export interface AuditEntry {
  object: string;
  type: 'created' | 'updated' | 'deleted';
  id: string;
  /** The caller's id; null for anonymous and system writes. */
  user: string | null;
  /** When the change was committed (ISO timestamp). */
  at: string;
  /** Names of the fields the change set (create) or changed (update), sorted; empty for deletes. */
  changes: string[];
  /** The X-Request-Id of the request that made the change, when known. */
  requestId?: string;
}

/** Fields every record carries and the service maintains: never listed as changes. */
const SYSTEM_FIELDS: ReadonlySet<string> = new Set(['id', 'created_at', 'created_by', 'updated_at', 'updated_by']);

const TYPES = { afterCreate: 'created', afterUpdate: 'updated', afterDelete: 'deleted' } as const;

export default function auditPlugin(options: AuditOptions = {}): Plugin<AuditOptions> {
  const settings = checkOptions(options);
  /** The log, oldest first. */
  const log: AuditEntry[] = [];
  /**
   * Entries built by an after hook and waiting for their commit. After hooks run inside the
   * write's transaction: a later hook may still roll the write back. recordChanged fires only
   * after the commit, with the same record object the after hook saw (the stored record for a
   * create, the previous one for an update or delete), which pairs them. A rolled-back write's
   * entry is never committed and goes away with its record (a WeakMap holds nothing alive).
   */
  const pending = new WeakMap<object, Omit<AuditEntry, 'at'>>();
  /** Off until start(): the kernel loads initial data (`*.data.yml`) in between, unaudited. */
  let recording = false;

  const commit = (entry: Omit<AuditEntry, 'at'>): void => {
    const { requestId, ...rest } = entry;
    log.push({ ...rest, at: new Date().toISOString(), ...(requestId ? { requestId } : {}) });
    if (log.length > settings.capacity) log.splice(0, log.length - settings.capacity);
  };

  return {
    name: 'audit',
    register(kernel: Kernel) {
      // Under the instance's base path, as every door of the kernel's server is.
      const path = kernel.http.path(settings.path);

      for (const event of ['afterCreate', 'afterUpdate', 'afterDelete'] as const) {
        // Synchronous work: each tap returns a settled promise (tapPromise is for async hooks).
        kernel.hooks[event].for('*').tapPromise('audit', (ctx: HookContext) => {
          const key = event === 'afterCreate' ? ctx.result : ctx.previous;
          if (!recording || !key || typeof key !== 'object' || !ctx.id) return Promise.resolve();
          pending.set(key, {
            object: ctx.object,
            type: TYPES[event],
            id: ctx.id,
            user: ctx.user?.id ?? null,
            changes: event === 'afterDelete' ? [] : changedFields(ctx.previous, ctx.result as DataRecord),
            ...(ctx.request.requestId ? { requestId: ctx.request.requestId } : {}),
          });
          return Promise.resolve();
        });
      }

      kernel.hooks.recordChanged.tapPromise('audit', (change: RecordChange) => {
        if (!recording) return Promise.resolve();
        const key = change.type === 'created' ? change.record : change.previous;
        const entry = key && pending.get(key);
        if (entry) {
          pending.delete(key);
          commit(entry);
        } else {
          // Not paired (a tap before ours replaced the after hook's result): the change itself
          // has all but the request id.
          commit({
            object: change.object,
            type: change.type,
            id: change.id,
            user: change.user?.id ?? null,
            changes: change.type === 'deleted' ? [] : changedFields(change.previous, change.record),
          });
        }
        return Promise.resolve();
      });

      kernel.hooks.routes.tapPromise('audit', (router) => {
        // Express passes what a handler throws to the kernel's error handler, which renders an
        // error whose `code` is one of the spec's codes with that code and its status.
        router.get(path, (req, res) => {
          if (settings.roles) {
            const user = req.objectql.user;
            if (!user) throw codeError('UNAUTHORIZED', 'Reading the audit log requires authentication');
            if (!user.roles.some((r) => settings.roles!.includes(r))) {
              throw codeError('FORBIDDEN', 'Not allowed to read the audit log', { required_permission: 'audit', user_roles: user.roles });
            }
          }
          const object = singleParam(req.query.object, 'object');
          const limit = parseLimit(singleParam(req.query.limit, 'limit'), settings);
          const matching = object === undefined ? log : log.filter((e) => e.object === object);
          const items: AuditEntry[] = [];
          for (let i = matching.length - 1; i >= 0 && items.length < limit; i--) items.push(matching[i]);
          res.json({ items, total: matching.length });
        });
        return Promise.resolve();
      });

      kernel.hooks.capabilities.tap('audit', (list) => [
        ...list,
        { plugin: 'audit', routes: [`GET ${path}`], query: ['object', 'limit'], maxLimit: settings.maxLimit },
      ]);
    },
    start() {
      recording = true;
    },
    stop() {
      recording = false;
    },
  };
}

/** Sorted names of the non-system fields whose value in `after` differs from `before`. */
function changedFields(before: DataRecord | undefined, after: DataRecord | undefined): string[] {
  if (!after || typeof after !== 'object') return [];
  return Object.keys(after)
    .filter((key) => !SYSTEM_FIELDS.has(key) && !sameValue(before?.[key], after[key]))
    .sort();
}

/** Deep equality of stored values (JSON-like: scalars, arrays, plain objects); null equals absent. */
function sameValue(a: unknown, b: unknown): boolean {
  if ((a ?? null) === (b ?? null)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => sameValue((a as DataRecord)[k], (b as DataRecord)[k]));
}

function singleParam(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw codeError('INVALID_REQUEST', `Query parameter '${name}' must be given once, as a string`);
  return value;
}

function parseLimit(value: string | undefined, settings: Required<Pick<AuditOptions, 'defaultLimit' | 'maxLimit'>>): number {
  if (value === undefined) return settings.defaultLimit;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw codeError('INVALID_REQUEST', `Query parameter 'limit' must be a positive integer, got '${value}'`);
  return Math.min(Number(value), settings.maxLimit);
}

/** A plain Error with a spec error code: the kernel renders it with that code and status. */
function codeError(code: string, message: string, details?: unknown): Error {
  return Object.assign(new Error(message), { code }, details === undefined ? {} : { details });
}

/** Checks the options once, when the plugin is made: a mistake stops start-up naming the option. */
function checkOptions(options: AuditOptions) {
  if (!options || typeof options !== 'object') throw new Error('audit plugin: options must be an object');
  const known = ['path', 'defaultLimit', 'maxLimit', 'capacity', 'roles'];
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  if (unknown.length)
    throw new Error(`audit plugin: unknown option(s) ${unknown.map((k) => `'${k}'`).join(', ')}; known: ${known.join(', ')}`);
  const path = options.path ?? '/api/audit';
  if (typeof path !== 'string' || !/^\/[^\s?#:*()]*$/.test(path))
    throw new Error(`audit plugin: option 'path' must be a path starting with "/", got ${JSON.stringify(path)}`);
  const positive = (name: 'defaultLimit' | 'maxLimit' | 'capacity', fallback: number): number => {
    const value = options[name] ?? fallback;
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`audit plugin: option '${name}' must be a positive integer, got ${JSON.stringify(value)}`);
    return value;
  };
  const maxLimit = positive('maxLimit', 1000);
  const defaultLimit = Math.min(positive('defaultLimit', 100), maxLimit);
  const roles = options.roles;
  if (roles !== undefined && (!Array.isArray(roles) || roles.some((r) => typeof r !== 'string'))) {
    throw new Error(`audit plugin: option 'roles' must be a list of role names, got ${JSON.stringify(roles)}`);
  }
  return {
    path: path.length > 1 ? path.replace(/\/+$/, '') || '/' : path,
    defaultLimit,
    maxLimit,
    capacity: positive('capacity', 10_000),
    roles,
  };
}
