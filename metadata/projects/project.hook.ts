/**
 * Lifecycle hooks of `project`, found by name: `<object>.hook.ts` (or `.js`) beside the object.
 *
 * The default export maps hook events (beforeFind, afterFind, beforeCreate, afterCreate,
 * beforeUpdate, afterUpdate, beforeDelete, afterDelete) to functions, sync or async. Each call
 * gets one context; before hooks may change `ctx.data`, and the changed data is what gets
 * validated and stored, so a hook can fill or normalise values but not bypass validation.
 *
 * This file has no imports on purpose: everything a hook needs arrives through `ctx`. The
 * interface below declares just the parts used here (the full shape is HookContext in the
 * kernel). To abort an operation, throw an Error with a `code` from the spec's error table, e.g.
 * `Object.assign(new Error('...'), { code: 'FORBIDDEN' })`; see project.action.ts.
 */
interface ProjectHookContext {
  /** The caller; absent for anonymous calls. */
  user?: { id: string; roles: string[] };
  /** create and update: the incoming fields (on update, only the fields being changed). */
  data?: Record<string, unknown>;
}

/** Trims the name, so '  Apollo ' and 'Apollo' cannot both pass the unique check. */
function trimName(data: Record<string, unknown>): void {
  if (typeof data.name === 'string') data.name = data.name.trim();
}

export default {
  beforeCreate(ctx: ProjectHookContext): void {
    if (!ctx.data) return;
    trimName(ctx.data);
    // The creator owns the project unless an owner is given. Members only see projects they
    // own (project.permission.yml), so this is what makes a member's new project visible to
    // them.
    const owner = ctx.data.owner;
    if ((owner === undefined || owner === null || owner === '') && ctx.user?.id) {
      ctx.data.owner = ctx.user.id;
    }
  },

  beforeUpdate(ctx: ProjectHookContext): void {
    // An update carries only the changed fields: touch the name only when it is being changed.
    // A name trimmed to '' is then refused by `required: true`, which is checked after the hooks.
    if (ctx.data && 'name' in ctx.data) trimName(ctx.data);
  },
};
