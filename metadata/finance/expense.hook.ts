/**
 * Keeps `project.actual_cost` equal to the sum of the project's expenses.
 *
 * After hooks run inside the same transaction as the write that triggered them, and `ctx.api`
 * reaches other objects as the same caller: if the project update below fails (for example
 * because the caller may not write `actual_cost`), the expense write is rolled back too. That is
 * why expense.permission.yml lets only managers write expenses.
 *
 * No imports: the interfaces below declare the parts of the context this file uses.
 */
type DataRecord = Record<string, unknown>;

interface Repo {
  aggregate(options: {
    filters?: unknown;
    groupBy?: string[];
    aggregate: Array<{ func: 'count' | 'sum' | 'avg' | 'min' | 'max'; field?: string; alias: string }>;
  }): Promise<DataRecord[]>;
  update(id: string, data: DataRecord): Promise<DataRecord>;
}

interface ExpenseHookContext {
  /** The expense's id. */
  id?: string;
  /** create and update: the written fields (on update, only the changed ones). */
  data?: DataRecord;
  /** update and delete: the expense as it was before. */
  previous?: DataRecord;
  api: { repo(object: string): Repo };
}

function projectOf(record: DataRecord | undefined): string | undefined {
  const value = record?.project;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

async function recomputeActualCost(api: ExpenseHookContext['api'], projectId: string): Promise<void> {
  // Without groupBy the aggregation returns a single row; sum over no rows is null.
  const [row] = await api.repo('expense').aggregate({
    filters: [['project', '=', projectId]],
    aggregate: [{ func: 'sum', field: 'amount', alias: 'total' }],
  });
  // Sums of a currency field are exact decimals on every driver (0.1 + 0.2 is 0.3): no rounding.
  await api.repo('project').update(projectId, { actual_cost: Number(row?.total ?? 0) });
}

export default {
  async afterCreate(ctx: ExpenseHookContext): Promise<void> {
    const projectId = projectOf(ctx.data);
    if (projectId) await recomputeActualCost(ctx.api, projectId);
  },

  async afterUpdate(ctx: ExpenseHookContext): Promise<void> {
    const data = ctx.data ?? {};
    // Only the amount and the project affect the totals; a changed note costs no queries.
    if (!('amount' in data) && !('project' in data)) return;
    const before = projectOf(ctx.previous);
    const after = projectOf(data) ?? before;
    if (after) await recomputeActualCost(ctx.api, after);
    // Moved to another project: the old one loses this expense.
    if (before && before !== after) await recomputeActualCost(ctx.api, before);
  },

  async afterDelete(ctx: ExpenseHookContext): Promise<void> {
    const projectId = projectOf(ctx.previous);
    if (projectId) await recomputeActualCost(ctx.api, projectId);
  },
};
