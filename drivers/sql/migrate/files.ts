/**
 * Migration files: `<YYYYMMDDTHHMMSS>_<datasource>_<summary>.json`, each holding one datasource's
 * planned steps as JSON (steps.ts), not SQL: one file replays on every engine, through the same
 * checks as a live `migrate apply`. Applied files are recorded in the datasource's
 * `objectql_migrations` table with a SHA-256 checksum of their bytes; a recorded file whose bytes
 * changed is refused.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { isPlainObject, PluginError } from '../../../kernel';
import { STEP_ORDER, type MigrationStep } from './steps';

export const MIGRATION_FORMAT = 'objectql-migration/1';
export const JOURNAL_TABLE = 'objectql_migrations';

export interface MigrationFile {
  format: typeof MIGRATION_FORMAT;
  datasource: string;
  created: string;
  steps: MigrationStep[];
}

/** A file as found in the folder. */
export interface FoundMigration {
  name: string;
  checksum: string;
  content: MigrationFile;
}

function stamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, '');
}

/** A few words from the steps: `add-task-priority`, `rename-project-title`, or the count. */
function summary(steps: MigrationStep[]): string {
  const first = steps[0];
  const words =
    first.kind === 'create_table' || first.kind === 'drop_column' || first.kind === 'create_index'
      ? [first.kind.replace('_', '-'), first.object]
      : [first.kind.split('_')[0], first.object, first.kind === 'rename_column' ? first.to : first.column.name];
  const text = words
    .join('-')
    .replace(/[^A-Za-z0-9-]+/g, '-')
    .slice(0, 48);
  return steps.length > 1 ? `${text}-and-${steps.length - 1}-more` : text;
}

export function checksum(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Writes the steps as a new file in `dir` (made when missing); returns its path. */
export function writeMigrationFile(dir: string, datasource: string, steps: MigrationStep[], now = new Date()): string {
  mkdirSync(dir, { recursive: true });
  const base = `${stamp(now)}_${datasource}_${summary(steps)}`;
  let name = `${base}.json`;
  for (let n = 2; existsSync(join(dir, name)); n++) name = `${base}_${n}.json`;
  const content: MigrationFile = { format: MIGRATION_FORMAT, datasource, created: now.toISOString(), steps };
  const path = join(dir, name);
  writeFileSync(path, `${JSON.stringify(content, null, 2)}\n`);
  return path;
}

/** The folder's migration files for one datasource, oldest first (by name). */
export function readMigrationFiles(dir: string, datasource: string): FoundMigration[] {
  if (!existsSync(dir)) throw new PluginError(`Migration folder '${dir}' does not exist`);
  const out: FoundMigration[] = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const bytes = readFileSync(join(dir, name));
    const content = parseMigration(join(dir, name), bytes.toString('utf8'));
    if (content.datasource === datasource) out.push({ name, checksum: checksum(bytes), content });
  }
  return out;
}

function parseMigration(file: string, text: string): MigrationFile {
  const fail = (what: string) => new PluginError(`Migration file '${file}': ${what}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw fail(`not JSON (${(err as Error).message})`);
  }
  if (!isPlainObject(value) || value.format !== MIGRATION_FORMAT) throw fail(`'format' must be '${MIGRATION_FORMAT}'`);
  if (typeof value.datasource !== 'string' || !Array.isArray(value.steps)) throw fail("needs 'datasource' (a name) and 'steps' (a list)");
  value.steps.forEach((step: unknown, i) => {
    if (!isPlainObject(step) || !STEP_ORDER.includes(step.kind as MigrationStep['kind']) || typeof step.object !== 'string')
      throw fail(`step ${i} is not a migration step (kind one of ${STEP_ORDER.join(', ')}, and object)`);
  });
  return value as unknown as MigrationFile;
}

/** The applied files recorded in the datasource (the journal table made when missing). */
export async function appliedMigrations(knex: Knex): Promise<Map<string, string>> {
  if (!(await knex.schema.hasTable(JOURNAL_TABLE))) {
    await knex.schema.createTable(JOURNAL_TABLE, (t) => {
      t.string('name', 255).primary();
      t.string('checksum', 64).notNullable();
      t.string('applied_at', 32).notNullable();
    });
  }
  const rows: Array<{ name: string; checksum: string }> = await knex(JOURNAL_TABLE).select('name', 'checksum');
  return new Map(rows.map((r) => [r.name, r.checksum]));
}

export async function recordMigration(knex: Knex, file: FoundMigration): Promise<void> {
  await knex(JOURNAL_TABLE).insert({ name: file.name, checksum: file.checksum, applied_at: new Date().toISOString() });
}

/** The files not applied yet; refuses when an applied file's bytes changed since. */
export function pendingMigrations(files: FoundMigration[], applied: ReadonlyMap<string, string>, dir: string): FoundMigration[] {
  for (const file of files) {
    const recorded = applied.get(file.name);
    if (recorded !== undefined && recorded !== file.checksum) {
      throw new PluginError(
        `Migration file '${join(dir, file.name)}' was applied with checksum ${recorded.slice(0, 12)}… and has changed since (now ${file.checksum.slice(0, 12)}…); ` +
          'an applied migration is never edited: restore it, and write the change as a new file (objectql migrate plan --write)',
      );
    }
  }
  return files.filter((f) => !applied.has(f.name));
}
