/**
 * The plan: what separates a datasource's tables from its objects' metadata, as steps (steps.ts).
 * Read-only: it looks at tables, columns, indexes and counts rows, and changes nothing.
 */
import type { Knex } from 'knex';
import type { ObjectDefinition } from '../../../kernel';
import type { SqlDialect } from '../dialects/base';
import { compatible } from '../schema-sync';
import { tableInfo, type TableInfo } from '../table-info';
import { conversion } from './convert';
import { columnSpec, sortSteps, type ColumnSpec, type MigrationStep } from './steps';

export interface PlanContext {
  knex: Knex;
  dialect: SqlDialect;
}

/** The steps that bring the database to the metadata, in the order they run. */
export async function planMigration(ctx: PlanContext, objects: ObjectDefinition[]): Promise<MigrationStep[]> {
  const steps: MigrationStep[] = [];
  for (const def of objects) steps.push(...(await planTable(ctx, tableInfo(def, ctx.dialect))));
  return sortSteps(steps);
}

function spec(info: TableInfo, column: string): ColumnSpec {
  const field = info.field(column);
  return field ? columnSpec(field) : { name: column, type: 'text' };
}

async function planTable(ctx: PlanContext, info: TableInfo): Promise<MigrationStep[]> {
  const { knex, dialect } = ctx;
  const columns = info.columns.slice(1);
  if (!(await knex.schema.hasTable(info.table))) {
    return [
      { kind: 'create_table', object: info.object, columns: columns.map((c) => spec(info, c)) },
      ...info.indexes.map((plan) => indexStep(info, plan.name, plan.fields, plan.unique)),
    ];
  }
  const steps: MigrationStep[] = [];
  const existing = await knex(info.table).columnInfo();
  const renamedFrom = new Set<string>();
  const rows = await countRows(knex, info.table);
  for (const column of columns) {
    const field = info.field(column)!;
    let current = existing[column];
    let stored = column;
    if (!current && field.renamed_from && existing[field.renamed_from]) {
      stored = field.renamed_from;
      current = existing[stored];
      renamedFrom.add(stored);
      steps.push({ kind: 'rename_column', object: info.object, from: stored, to: column });
    }
    if (!current) {
      steps.push({ kind: 'add_column', object: info.object, column: spec(info, column) });
      if (field.required && rows > 0) steps.push({ kind: 'backfill', object: info.object, column: spec(info, column), nulls: rows });
      continue;
    }
    const have = dialect.columnFamily(current);
    const need = info.family(column);
    if (!compatible(need, have)) {
      const how = conversion(have, need);
      steps.push({
        kind: 'change_type',
        object: info.object,
        column: spec(info, column),
        from: `${current.type} (${have ?? 'unknown'} values)`,
        lossy: how?.lossy ?? true,
        convertible: how !== undefined,
      });
    }
    if (field.required && !field.system && rows > 0) {
      const nulls = await countRows(knex, info.table, stored);
      if (nulls > 0) steps.push({ kind: 'backfill', object: info.object, column: spec(info, column), nulls });
    }
  }
  for (const column of Object.keys(existing)) {
    if (column !== 'id' && !info.field(column) && !renamedFrom.has(column))
      steps.push({ kind: 'drop_column', object: info.object, column });
  }
  const indexes = await dialect.listIndexes(knex, info.table);
  for (const plan of info.indexes) if (!indexes.has(plan.name)) steps.push(indexStep(info, plan.name, plan.fields, plan.unique));
  return steps;
}

function indexStep(info: TableInfo, index: string, fields: string[], unique: boolean): MigrationStep {
  return { kind: 'create_index', object: info.object, index, columns: fields.map((f) => spec(info, f)), unique };
}

/** Rows of a table, or those where `nullColumn` is null. */
export async function countRows(knex: Knex, table: string, nullColumn?: string): Promise<number> {
  const query = knex(table).count({ n: '*' });
  if (nullColumn) query.whereNull(nullColumn);
  const [row] = (await query) as Array<{ n: unknown }>;
  return Number(row?.n ?? 0);
}
