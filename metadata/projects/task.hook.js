/**
 * Lifecycle hooks of `task`, in plain JavaScript: a `.hook.js` file exports the same map of
 * events to functions as a `.hook.ts` file, through module.exports. No import is needed; to
 * abort an operation throw an Error with a `code` property (e.g. 'VALIDATION_ERROR').
 */
module.exports = {
  /** The caller becomes the assignee unless one is given (members only see their own tasks). */
  beforeCreate(ctx) {
    if (!ctx.data) return;
    const assignee = ctx.data.assignee;
    if ((assignee === undefined || assignee === null || assignee === '') && ctx.user && ctx.user.id) {
      ctx.data.assignee = ctx.user.id;
    }
  },

  /** Keeps `done` in step with `status`: it becomes true when the status becomes 'done'. */
  beforeUpdate(ctx) {
    // ctx.data holds only the fields being changed; ctx.previous the stored record.
    if (!ctx.data || !('status' in ctx.data)) return;
    const wasDone = Boolean(ctx.previous && ctx.previous.status === 'done');
    const isDone = ctx.data.status === 'done';
    if (isDone && !wasDone) ctx.data.done = true;
    if (!isDone && wasDone) ctx.data.done = false; // reopened
  },
};
