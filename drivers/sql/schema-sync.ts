/**
 * Schema sync at start-up, additive only: a new object gets its table, a new field its column
 * (nullable: `required` is the engine's business), a new index is created; a field declaring
 * `renamed_from` gets the old column, renamed with its values. Nothing is ever
 * dropped, and only one kind of column is altered: a decimal field's floating-point (or too
 * narrow decimal) column becomes its decimal type when every stored value fits exactly, a
 * conversion that keeps each value's digits (otherwise it stays, with a warning; docs/adr/0035).
 * A column whose type cannot hold the field's values any more (the field's type changed) stops
 * start-up with a message naming the object, the field, the column's type and the field's new
 * type; so does a unique index that existing duplicates prevent.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { PluginError } from '../../kernel';
import type { ObjectDefinition } from '../../kernel';
import { decimalSpec, holds, MAX_DECIMAL_SCALE } from './decimal';
import type { SqlDialect } from './dialects/base';
import { primaryKeyName, tableInfo, type IndexPlan, type TableInfo } from './table-info';
import type { StorageFamily } from './values';

export interface SyncContext {
  knex: Knex;
  dialect: SqlDialect;
  datasource: string;
  logger: Logger;
}

export async function syncSchema(ctx: SyncContext, objects: ObjectDefinition[]): Promise<TableInfo[]> {
  const out: TableInfo[] = [];
  for (const def of objects) checkScales(ctx, def);
  for (const def of objects) {
    const info = tableInfo(def, ctx.dialect);
    await syncTable(ctx, info);
    await syncIndexes(ctx, info);
    out.push(info);
  }
  return out;
}

/** The objects' table infos without changing anything (`schemaSync: 'off'`, once the schema is known current). */
export async function describeTables(ctx: SyncContext, objects: ObjectDefinition[]): Promise<TableInfo[]> {
  const out: TableInfo[] = [];
  for (const def of objects) {
    checkScales(ctx, def);
    const info = tableInfo(def, ctx.dialect);
    await readDecimalColumns(ctx, info);
    out.push(info);
  }
  return out;
}

/** A decimal column holds at most 30 decimals on MySQL: the same rule on every engine, so a config works on all. */
function checkScales(ctx: SyncContext, def: ObjectDefinition): void {
  for (const [name, field] of Object.entries(def.fields)) {
    if (decimalSpec(field) && field.scale !== undefined && field.scale > MAX_DECIMAL_SCALE) {
      throw new PluginError(
        `Cannot sync object '${def.name}' on datasource '${ctx.datasource}': field '${name}' declares scale ${field.scale}; ` +
          `a decimal field keeps at most ${MAX_DECIMAL_SCALE} decimal places`,
      );
    }
  }
}

async function syncTable(ctx: SyncContext, info: TableInfo): Promise<void> {
  const { knex, dialect } = ctx;
  if (!(await knex.schema.hasTable(info.table))) {
    try {
      await knex.schema.createTable(info.table, (t) => {
        dialect.createTableOptions(t);
        t.specificType('id', dialect.idColumnType()).notNullable();
        for (const column of info.columns.slice(1)) t.specificType(column, dialect.columnType(info.family(column), info.field(column)));
        t.primary(['id'], primaryKeyName(info.table, dialect.maxIdentifier));
      });
      ctx.logger.info({ object: info.object, table: info.table }, 'sql: created table');
      await readDecimalColumns(ctx, info);
      return;
    } catch (err) {
      // Another process may have created it meanwhile: then go on and check its columns.
      if (!(await knex.schema.hasTable(info.table))) throw failed(ctx, info, 'cannot create its table', err);
    }
  }
  const existing = await renameColumns(ctx, info, await knex(info.table).columnInfo());
  const missing: string[] = [];
  for (const column of info.columns.slice(1)) {
    const current = existing[column];
    if (!current) {
      missing.push(column);
      continue;
    }
    const need = info.family(column);
    const have = dialect.columnFamily(current);
    if (!compatible(need, have)) {
      const field = info.field(column);
      const newType = `${field?.type ?? 'text'}${field?.multiple ? ' (multiple)' : ''}`;
      throw new PluginError(
        `Cannot sync object '${info.object}' on datasource '${ctx.datasource}': field '${column}' changed type: ` +
          `its column '${info.table}.${column}' has type '${current.type}' (${have ?? 'unknown'} values), the field is now ${newType} (${need} values). ` +
          'Start-up never converts or drops stored data: `objectql migrate plan` shows the change and `objectql migrate apply` converts it, ' +
          'or migrate the column by hand, or give the field a new name.',
      );
    }
  }
  await upgradeDecimals(ctx, info, existing);
  if (missing.length) {
    try {
      await knex.schema.alterTable(info.table, (t) => {
        for (const column of missing) t.specificType(column, dialect.columnType(info.family(column), info.field(column)));
      });
    } catch (err) {
      throw failed(ctx, info, `cannot add column(s) ${missing.join(', ')}`, err);
    }
    ctx.logger.info({ object: info.object, columns: missing }, 'sql: added columns');
    await warnEmptyRequired(ctx, info, missing);
  }
  await readDecimalColumns(ctx, info);
}

/** Fields declaring `renamed_from` whose column is still under the old name: renamed, values kept. Returns the columns as they now are. */
async function renameColumns(
  ctx: SyncContext,
  info: TableInfo,
  existing: Record<string, Knex.ColumnInfo>,
): Promise<Record<string, Knex.ColumnInfo>> {
  const renames = info.columns.flatMap((column) => {
    const from = info.field(column)?.renamed_from;
    return from && !existing[column] && existing[from] ? [{ from, to: column }] : [];
  });
  if (renames.length === 0) return existing;
  for (const { from, to } of renames) {
    try {
      await ctx.knex.raw('ALTER TABLE ?? RENAME COLUMN ?? TO ??', [info.table, from, to]);
    } catch (err) {
      throw failed(ctx, info, `cannot rename column '${from}' to '${to}'`, err);
    }
    ctx.logger.info({ object: info.object, from, to }, 'sql: renamed column');
  }
  return ctx.knex(info.table).columnInfo();
}

/** A required field just added to a table with records leaves them empty: said, with the command that fills them. */
async function warnEmptyRequired(ctx: SyncContext, info: TableInfo, added: string[]): Promise<void> {
  const required = added.filter((c) => info.field(c)?.required);
  if (required.length === 0) return;
  const [row] = await ctx.knex(info.table).count<Array<{ n: unknown }>>({ n: '*' });
  const rows = Number(row?.n ?? 0);
  if (rows === 0) return;
  for (const column of required) {
    ctx.logger.warn(
      { object: info.object, field: column, records: rows },
      `sql: required field ${info.object}.${column} was added to ${rows} record(s) that hold no value; fill them with \`objectql migrate apply --backfill ${info.object}.${column}=VALUE\``,
    );
  }
}

/** Remembers the decimal columns as they now are: writes are checked against them (never rounded). */
async function readDecimalColumns(ctx: SyncContext, info: TableInfo): Promise<void> {
  info.decimalColumns.clear();
  for (const [column, spec] of await ctx.dialect.decimalColumns(ctx.knex, info.table)) info.decimalColumns.set(column, spec);
}

/**
 * Decimal fields whose column is floating-point, or a decimal narrower than the field's: each is
 * converted when all its values fit the decimal type exactly; otherwise it is left as it is (it
 * keeps working, with the engine's floating-point sums) and a warning says how many values stand
 * in the way.
 */
async function upgradeDecimals(ctx: SyncContext, info: TableInfo, existing: Record<string, Knex.ColumnInfo>): Promise<void> {
  const { knex, dialect } = ctx;
  const wanted = info.columns.filter(
    (c) => existing[c] && info.family(c) === 'decimal' && dialect.decimalType(decimalSpec(info.field(c))!),
  );
  if (wanted.length === 0) return;
  const decimals = await dialect.decimalColumns(knex, info.table);
  for (const column of wanted) {
    const spec = decimalSpec(info.field(column))!;
    const have = dialect.columnFamily(existing[column]);
    const current = decimals.get(column);
    // An unconstrained numeric holds any value; a decimal column at least as wide needs nothing.
    if (have === 'decimal' && (!current || holds(current, spec))) continue;
    const type = dialect.decimalType(spec)!;
    const where = { object: info.object, field: column, from: existing[column].type, to: type };
    try {
      const misfits = await dialect.decimalMisfits(knex, info.table, column, spec);
      if (misfits > 0) {
        ctx.logger.warn(
          { ...where, misfits },
          `sql: ${info.object}.${column} stays ${existing[column].type}: ${misfits} stored value(s) do not fit ${type} exactly; ` +
            'correct them (or widen the column by hand) and restart to convert it',
        );
        continue;
      }
      await dialect.alterToDecimal(knex, info.table, column, spec);
    } catch (err) {
      throw failed(ctx, info, `cannot convert column '${column}' to ${type}`, err);
    }
    ctx.logger.info(where, 'sql: converted column to decimal');
  }
}

/**
 * Same family; an integer field in a floating-point or decimal column (auto_number in a number
 * column); a number field in a decimal column; a decimal field in a floating-point column (which
 * upgradeDecimals converts when it can, and SQLite's storage for decimals).
 */
export function compatible(need: StorageFamily, have: StorageFamily | undefined): boolean {
  if (need === have) return true;
  const numeric = have === 'number' || have === 'decimal';
  return numeric && (need === 'integer' || need === 'number' || need === 'decimal');
}

async function syncIndexes(ctx: SyncContext, info: TableInfo): Promise<void> {
  if (info.indexes.length === 0) return;
  const existing = await ctx.dialect.listIndexes(ctx.knex, info.table);
  for (const plan of info.indexes) {
    if (existing.has(plan.name)) continue;
    await createIndex(ctx, info, plan);
  }
}

async function createIndex(ctx: SyncContext, info: TableInfo, plan: IndexPlan): Promise<void> {
  const unknown = plan.fields.filter((f) => !info.field(f));
  if (unknown.length) {
    throw new PluginError(
      `Cannot sync object '${info.object}' on datasource '${ctx.datasource}': index '${plan.name}' names unknown field(s) ${unknown.join(', ')}`,
    );
  }
  const columns = plan.fields.map((name) => ({ name, family: info.family(name), field: info.field(name) }));
  const statement = ctx.dialect.createIndexSql(info.table, plan.name, columns, plan.unique);
  if (!statement) {
    const message = `sql: ${ctx.dialect.name} cannot index JSON columns; index '${plan.name}' on ${info.object} (${plan.fields.join(', ')}) is not created`;
    if (plan.unique)
      throw new PluginError(
        `Cannot sync object '${info.object}' on datasource '${ctx.datasource}': ${ctx.dialect.name} cannot enforce a unique index over JSON field(s) ${plan.fields.join(', ')}`,
      );
    ctx.logger.warn({ object: info.object, index: plan.name }, message);
    return;
  }
  try {
    await ctx.knex.raw(statement.sql, statement.bindings as Knex.RawBinding[]);
  } catch (err) {
    if (plan.unique && ctx.dialect.uniqueViolation(err)) {
      throw new PluginError(
        `Cannot sync object '${info.object}' on datasource '${ctx.datasource}': a unique index on ${plan.fields.join(', ')} cannot be created because stored records share values; remove the duplicates first`,
      );
    }
    // Created meanwhile by another process?
    if ((await ctx.dialect.listIndexes(ctx.knex, info.table)).has(plan.name)) return;
    throw failed(ctx, info, `cannot create index '${plan.name}'`, err);
  }
  ctx.logger.info({ object: info.object, index: plan.name }, 'sql: created index');
}

function failed(ctx: SyncContext, info: TableInfo, what: string, err: unknown): PluginError {
  ctx.logger.error({ err, object: info.object }, `sql: schema sync failed: ${what}`);
  return new PluginError(
    `Cannot sync object '${info.object}' on datasource '${ctx.datasource}': ${what} (${(err as Error)?.message ?? String(err)})`,
  );
}
