/**
 * `schemaSync: 'off'`: start-up changes nothing, and refuses to start when the database is behind
 * the metadata (a missing table, column or index, a declared rename, a type change, required
 * fields with empty records), naming `objectql migrate apply`. Columns no field maps to any more
 * do not stop it (they are only reported): the metadata can drop a field before the column goes.
 */
import type { Logger } from 'pino';
import { PluginError } from '../../../kernel';
import type { ObjectDefinition } from '../../../kernel';
import { planMigration, type PlanContext } from './plan';
import { describeStep, isPending } from './steps';

export async function checkSchemaCurrent(
  ctx: PlanContext & { datasource: string },
  objects: ObjectDefinition[],
  logger: Logger,
): Promise<void> {
  const steps = await planMigration(ctx, objects);
  const behind = steps.filter(isPending);
  for (const step of steps.filter((s) => !isPending(s))) logger.warn({ datasource: ctx.datasource }, `sql: schema: ${describeStep(step)}`);
  if (behind.length === 0) return;
  throw new PluginError(
    `Datasource '${ctx.datasource}' has schemaSync 'off' and its database is behind the metadata (${behind.length} step(s)):\n` +
      behind.map((s) => `  - ${describeStep(s)}`).join('\n') +
      `\nRun \`objectql migrate plan --datasource ${ctx.datasource}\` to review them and \`objectql migrate apply --datasource ${ctx.datasource}\` to apply them, then start again.`,
  );
}
