/**
 * Runs a migration's steps. Everything that can refuse is checked first, before any statement
 * runs: destructive steps without permission, type changes with no conversion or with rows that
 * would not convert, required fields with empty records and no backfill value. Then the steps run
 * in one transaction where the engine's DDL is transactional (PostgreSQL, SQLite); MySQL and
 * MariaDB commit each DDL statement by themselves, so there they run one after the other.
 * A step already done (the table, column or index is there) is skipped, so a migration file
 * replays on a database that start-up's sync already extended.
 */
import type { Knex } from 'knex';
import { PluginError } from '../../../kernel';
import type { SqlDialect } from '../dialects/base';
import { ident, sql, type Frag } from '../fragment';
import { primaryKeyName } from '../table-info';
import { encodeValue, storageFamily } from '../values';
import { compatible } from '../schema-sync';
import { conversionStatements, findMisfits } from './convert';
import { countRows } from './plan';
import { describeStep, formatStep, isDestructive, specField, type ColumnSpec, type MigrationStep } from './steps';

export interface ApplyContext {
  knex: Knex;
  dialect: SqlDialect;
  datasource: string;
}

export interface ApplyOptions {
  allowDestructive?: boolean;
  /** 'object.field' → the value (as typed on the command line, or already typed from a file) for its empty records. */
  backfill?: ReadonlyMap<string, unknown>;
  /** Runs last, inside the transaction when there is one (records an applied migration file). */
  finish?: (db: Knex) => Promise<void>;
}

export interface ApplyReport {
  applied: string[];
  skipped: string[];
  /** False on MySQL / MariaDB: each DDL statement committed by itself. */
  transactional: boolean;
}

/** Engines whose DDL runs inside a transaction (rolled back with it). */
export function transactionalDdl(dialect: SqlDialect): boolean {
  return dialect.name !== 'mysql';
}

export async function applyMigration(ctx: ApplyContext, steps: MigrationStep[], options: ApplyOptions = {}): Promise<ApplyReport> {
  const prepared = await check(ctx, steps, options);
  const report: ApplyReport = { applied: [], skipped: [], transactional: transactionalDdl(ctx.dialect) };
  const run = async (db: Knex) => {
    for (const step of prepared) {
      const done = await runStep(db, ctx.dialect, step);
      (done ? report.applied : report.skipped).push(describeStep(step));
    }
    await options.finish?.(db);
  };
  if (report.transactional) await ctx.knex.transaction((trx) => run(trx as unknown as Knex));
  else await run(ctx.knex);
  return report;
}

function refuse(ctx: ApplyContext, what: string, lines: string[]): PluginError {
  return new PluginError(`Migration refused on datasource '${ctx.datasource}': ${what}:\n${lines.map((l) => `  ${l}`).join('\n')}`);
}

/** The refusals, before anything runs; returns the steps with their backfill values resolved. */
async function check(ctx: ApplyContext, steps: MigrationStep[], options: ApplyOptions): Promise<MigrationStep[]> {
  const destructive = steps.filter(isDestructive);
  if (destructive.length > 0 && !options.allowDestructive) {
    throw refuse(ctx, `${destructive.length} destructive step(s) need --allow-destructive`, destructive.map(formatStep));
  }
  const stuck = steps.filter((s) => s.kind === 'change_type' && !s.convertible);
  if (stuck.length > 0) {
    throw refuse(
      ctx,
      'no automatic conversion for these type changes; migrate the columns by hand, or give the fields new names',
      stuck.map(describeStep),
    );
  }
  const out: MigrationStep[] = [];
  const missing: string[] = [];
  for (const step of steps) {
    if (step.kind === 'change_type') await checkConversion(ctx, steps, step);
    if (step.kind !== 'backfill') {
      out.push(step);
      continue;
    }
    const key = `${step.object}.${step.column.name}`;
    const given = step.value ?? options.backfill?.get(key);
    const empty = await emptyRecords(ctx.knex, steps, step.object, step.column.name);
    if (given === undefined) {
      if (empty > 0) missing.push(`${key}: ${empty} record(s) hold no value; give one with --backfill ${key}=VALUE`);
      continue;
    }
    out.push({ ...step, value: typedValue(ctx, step.column, given, key) });
  }
  if (missing.length > 0) throw refuse(ctx, 'required fields need a backfill value', missing);
  return out;
}

/** Where a field's values are now: under the name a rename of this migration moves them from, or its own. */
function currentColumn(
  existing: Record<string, Knex.ColumnInfo>,
  steps: MigrationStep[],
  object: string,
  column: string,
): string | undefined {
  const rename = steps.find((s) => s.kind === 'rename_column' && s.object === object && s.to === column);
  const from = rename?.kind === 'rename_column' ? rename.from : undefined;
  return from && existing[from] ? from : existing[column] ? column : undefined;
}

async function columnsOf(knex: Knex, table: string): Promise<Record<string, Knex.ColumnInfo> | undefined> {
  return (await knex.schema.hasTable(table)) ? knex(table).columnInfo() : undefined;
}

/** Records that will hold no value in the column once the earlier steps ran (all of them when the column is new). */
async function emptyRecords(knex: Knex, steps: MigrationStep[], object: string, column: string): Promise<number> {
  const existing = await columnsOf(knex, object);
  if (!existing) return 0;
  const stored = currentColumn(existing, steps, object, column);
  return stored ? countRows(knex, object, stored) : countRows(knex, object);
}

async function checkConversion(
  ctx: ApplyContext,
  steps: MigrationStep[],
  step: Extract<MigrationStep, { kind: 'change_type' }>,
): Promise<void> {
  const existing = await columnsOf(ctx.knex, step.object);
  const stored = existing && currentColumn(existing, steps, step.object, step.column.name);
  if (!stored) return;
  const { count, rows } = await findMisfits(ctx.knex, step.object, stored, step.column);
  if (count === 0) return;
  const lines = rows.map((r) => `id ${JSON.stringify(r.id)}: ${JSON.stringify(r.value)} ${r.reason}`);
  if (count > rows.length) lines.push(`… and ${count - rows.length} more`);
  throw refuse(
    ctx,
    `${count} record(s) of '${step.object}.${step.column.name}' do not convert to ${step.column.type}; correct them first`,
    lines,
  );
}

/** A backfill value typed for its field: text from the command line is read as the field's type. */
function typedValue(ctx: ApplyContext, column: ColumnSpec, given: unknown, key: string): unknown {
  if (typeof given !== 'string') return given;
  const family = storageFamily(specField(column));
  const bad = (what: string) =>
    new PluginError(`Backfill value for '${key}' on datasource '${ctx.datasource}' ${what} (got ${JSON.stringify(given)})`);
  switch (family) {
    case 'number':
    case 'decimal':
    case 'integer': {
      const n = Number(given);
      if (given.trim() === '' || !Number.isFinite(n)) throw bad('must be a number');
      if (family === 'integer' && !Number.isInteger(n)) throw bad('must be a whole number');
      return n;
    }
    case 'boolean':
      if (given === 'true' || given === 'false') return given === 'true';
      throw bad('must be true or false');
    case 'json':
      try {
        return JSON.parse(given) as unknown;
      } catch {
        throw bad('must be JSON');
      }
    default:
      return given;
  }
}

function raw(db: Knex, statement: Frag): Promise<unknown> {
  return db.raw(statement.sql, statement.bindings as Knex.RawBinding[]);
}

/** Runs one step; false when it was already done. */
async function runStep(db: Knex, dialect: SqlDialect, step: MigrationStep): Promise<boolean> {
  const table = step.object;
  const columnType = (c: ColumnSpec) => dialect.columnType(storageFamily(specField(c)), specField(c));
  const existing = await columnsOf(db, table);
  switch (step.kind) {
    case 'create_table':
      if (existing) return false;
      await db.schema.createTable(table, (t) => {
        dialect.createTableOptions(t);
        t.specificType('id', dialect.idColumnType()).notNullable();
        for (const column of step.columns) t.specificType(column.name, columnType(column));
        t.primary(['id'], primaryKeyName(table, dialect.maxIdentifier));
      });
      return true;
    case 'rename_column':
      if (!existing?.[step.from] && existing?.[step.to]) return false;
      await raw(db, sql`ALTER TABLE ${ident(table)} RENAME COLUMN ${ident(step.from)} TO ${ident(step.to)}`);
      return true;
    case 'add_column':
      if (existing?.[step.column.name]) return false;
      await db.schema.alterTable(table, (t) => void t.specificType(step.column.name, columnType(step.column)));
      return true;
    case 'change_type': {
      const current = existing?.[step.column.name];
      const from = current && dialect.columnFamily(current);
      if (!current || !from || compatible(storageFamily(specField(step.column)), from)) return false;
      const indexes = dialect.name === 'sqlite' ? await sqliteIndexesOn(db, table, step.column.name) : [];
      for (const index of indexes) await raw(db, sql`DROP INDEX ${ident(index.name)}`);
      for (const statement of conversionStatements(dialect, table, from, step.column)) await raw(db, statement);
      for (const index of indexes) await db.raw(index.sql);
      return true;
    }
    case 'backfill': {
      const family = storageFamily(specField(step.column));
      const changed = await db(table)
        .whereNull(step.column.name)
        .update({ [step.column.name]: encodeValue(dialect, family, step.value) as Knex.Value });
      return Number(changed) > 0;
    }
    case 'drop_column':
      if (!existing?.[step.column]) return false;
      // SQLite refuses to drop an indexed column; PostgreSQL and MySQL drop (or shrink) its indexes themselves.
      if (dialect.name === 'sqlite')
        for (const index of await sqliteIndexesOn(db, table, step.column)) await raw(db, sql`DROP INDEX ${ident(index.name)}`);
      await db.schema.alterTable(table, (t) => void t.dropColumn(step.column));
      return true;
    case 'create_index': {
      if ((await dialect.listIndexes(db, table)).has(step.index)) return false;
      const columns = step.columns.map((c) => ({ name: c.name, family: storageFamily(specField(c)), field: specField(c) }));
      const statement = dialect.createIndexSql(table, step.index, columns, step.unique);
      if (!statement) return false;
      try {
        await raw(db, statement);
      } catch (err) {
        if (step.unique && dialect.uniqueViolation(err))
          throw new PluginError(
            `Cannot create unique index '${step.index}' on '${table}': stored records share values of ${step.columns.map((c) => c.name).join(', ')}; remove the duplicates first`,
          );
        throw err;
      }
      return true;
    }
  }
}

/** The explicit indexes of a SQLite table that include a column, with the SQL that made them. */
async function sqliteIndexesOn(db: Knex, table: string, column: string): Promise<Array<{ name: string; sql: string }>> {
  const indexes: Array<{ name: string; sql: string }> = await db.raw(
    "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
    [table],
  );
  const out: Array<{ name: string; sql: string }> = [];
  for (const index of indexes) {
    const parts: Array<{ name: string }> = await db.raw(`SELECT name FROM pragma_index_info(?)`, [index.name]);
    if (parts.some((p) => p.name === column)) out.push(index);
  }
  return out;
}
