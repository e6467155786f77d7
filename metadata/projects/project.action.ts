/**
 * Handlers of the actions declared under `actions:` in project.object.yml, merged by name. (An
 * export may also carry the whole declaration: `{type, label, params, handler}`.) The params are
 * validated against their declaration before a handler runs, and what the handler returns is
 * sent back to the caller.
 *
 * `ctx.api` reaches data as the caller, so permissions, validation rules and hooks all apply to
 * what a handler does: `close` cannot move a project along a transition the state machine in
 * project.validation.yml forbids, and `summary` only counts the projects the caller may see.
 *
 * No imports: the interfaces below declare the parts of the context this file uses (the full
 * shape is ActionContext in the kernel).
 */
type DataRecord = Record<string, unknown>;

interface ProjectRepo {
  findOne(id: string): Promise<DataRecord | null>;
  update(id: string, data: DataRecord): Promise<DataRecord>;
  aggregate(options: {
    groupBy?: string[];
    aggregate: Array<{ func: 'count' | 'sum' | 'avg' | 'min' | 'max'; field?: string; alias: string }>;
    sort?: string;
  }): Promise<DataRecord[]>;
}

interface ProjectActionContext {
  /** Record actions: the record's id, and the record as the caller may see it. */
  id?: string;
  record?: DataRecord;
  /** The validated params. */
  input: Record<string, unknown>;
  user?: { id: string; roles: string[] };
  api: { repo(object: string): ProjectRepo };
}

/** An error the service turns into its response: the `code` picks the status (400 here). */
function validationError(field: string, message: string): Error {
  return Object.assign(new Error(message), { code: 'VALIDATION_ERROR', details: { fields: { [field]: message } } });
}

export default {
  close: {
    async handler(ctx: ProjectActionContext) {
      const { id, record } = ctx;
      if (!id || !record) throw Object.assign(new Error('close needs a project id'), { code: 'INVALID_REQUEST' });
      if (record.status === 'done') throw validationError('status', 'The project is already closed.');

      const reason = String(ctx.input.reason).trim();
      const today = new Date().toISOString().slice(0, 10);
      const projects = ctx.api.repo('project');
      // From 'planning' this fails: the state machine only allows planning -> active | on_hold.
      await projects.update(id, { status: 'done', end_date: today });
      return {
        success: true,
        message: `Project "${String(record.name)}" closed: ${reason}`,
        record: await projects.findOne(id),
      };
    },
  },

  summary: {
    async handler(ctx: ProjectActionContext) {
      // One row per status: [{status: 'active', count: 1, total_budget: 120000}, ...]
      const groups = await ctx.api.repo('project').aggregate({
        groupBy: ['status'],
        aggregate: [
          { func: 'count', alias: 'count' },
          { func: 'sum', field: 'budget', alias: 'total_budget' },
        ],
        sort: 'status',
      });
      return { success: true, groups };
    },
  },
};
