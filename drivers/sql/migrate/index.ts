/**
 * Schema migrations of a SQL datasource (docs/migrations.md): plan the steps between its tables
 * and the metadata, apply them, write them as files, replay files. `bin/migrate.ts` is the
 * command line over these.
 */
import type { ObjectDefinition } from '../../../kernel';
import type { SqlDatasource } from '../sql-datasource';
import { applyMigration, type ApplyOptions, type ApplyReport } from './apply';
import { appliedMigrations, pendingMigrations, readMigrationFiles, recordMigration, writeMigrationFile } from './files';
import { planMigration } from './plan';
import type { MigrationStep } from './steps';

export { describeStep, formatStep, isDestructive, isPending, type MigrationStep, type ColumnSpec } from './steps';
export { transactionalDdl, type ApplyOptions, type ApplyReport } from './apply';
export { JOURNAL_TABLE, MIGRATION_FORMAT, type MigrationFile } from './files';

export function planDatasource(ds: SqlDatasource, objects: ObjectDefinition[]): Promise<MigrationStep[]> {
  return ds.migrationSession((ctx) => planMigration(ctx, objects));
}

/** Plans, then applies what it planned. */
export function migrateDatasource(
  ds: SqlDatasource,
  objects: ObjectDefinition[],
  options: ApplyOptions = {},
): Promise<{ steps: MigrationStep[]; report: ApplyReport }> {
  return ds.migrationSession(async (ctx) => {
    const steps = await planMigration(ctx, objects);
    return { steps, report: await applyMigration(ctx, steps, options) };
  });
}

/**
 * Writes the plan as a file in `dir`; undefined when there is nothing to do. Backfill values given
 * now are written into their steps, so the file replays without them.
 */
export async function writePlan(
  ds: SqlDatasource,
  objects: ObjectDefinition[],
  dir: string,
  backfill: ReadonlyMap<string, unknown> = new Map(),
): Promise<{ path: string; steps: MigrationStep[] } | undefined> {
  const planned = await planDatasource(ds, objects);
  if (planned.length === 0) return undefined;
  const steps = planned.map((step) => {
    const value = step.kind === 'backfill' ? backfill.get(`${step.object}.${step.column.name}`) : undefined;
    return step.kind === 'backfill' && value !== undefined ? { ...step, value } : step;
  });
  return { path: writeMigrationFile(dir, ds.name, steps), steps };
}

/** Replays the files of `dir` not applied to this datasource yet, oldest first, each recorded as it commits. */
export function applyFiles(
  ds: SqlDatasource,
  dir: string,
  options: Omit<ApplyOptions, 'finish'> = {},
): Promise<Array<{ name: string; report: ApplyReport }>> {
  return ds.migrationSession(async (ctx) => {
    const files = readMigrationFiles(dir, ds.name);
    const pending = pendingMigrations(files, await appliedMigrations(ctx.knex), dir);
    const out: Array<{ name: string; report: ApplyReport }> = [];
    for (const file of pending) {
      const report = await applyMigration(ctx, file.content.steps, { ...options, finish: (db) => recordMigration(db, file) });
      out.push({ name: file.name, report });
    }
    return out;
  });
}
