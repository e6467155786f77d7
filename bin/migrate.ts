/**
 * `objectql migrate plan` and `objectql migrate apply`: schema migrations of the config's SQL
 * datasources (drivers/sql/migrate/, docs/migrations.md), without starting a server.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigFile, resolveConfig, type ResolvedConfig } from '../server';
import { MetadataRegistry } from '../kernel/metadata';
import { createSqlDatasource, type SqlDatasource } from '../drivers/sql';
import {
  applyFiles,
  formatStep,
  migrateDatasource,
  planDatasource,
  transactionalDdl,
  writePlan,
  type ApplyReport,
} from '../drivers/sql/migrate';

export const MIGRATE_USAGE = `       objectql migrate plan [--config FILE] [--datasource NAME] [--write DIR] [--backfill OBJECT.FIELD=VALUE ...]
       objectql migrate apply [--config FILE] [--datasource NAME] [--allow-destructive] [--backfill OBJECT.FIELD=VALUE ...] [--from DIR]
`;

export const MIGRATE_HELP = `  migrate plan   lists what separates each SQL datasource's tables from the metadata, each step
                 [safe] or [destructive]; exits 0 when there is nothing to do, 1 otherwise;
                 --write DIR writes the steps as a migration file there instead
  migrate apply  applies the plan (or with --from DIR the migration files not applied yet);
                 destructive steps need --allow-destructive; required fields with empty
                 records need --backfill OBJECT.FIELD=VALUE (docs/migrations.md)
`;

class UsageError extends Error {}

interface Target {
  ds: SqlDatasource;
  objects: ReturnType<MetadataRegistry['objects']>;
}

export async function migrate(args: string[], defaultConfig: string | undefined): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        datasource: { type: 'string' },
        write: { type: 'string' },
        from: { type: 'string' },
        backfill: { type: 'string', multiple: true },
        'allow-destructive': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`migrate: ${(err as Error).message}\n\nUsage:\n${MIGRATE_USAGE}\n${MIGRATE_HELP}`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(`Usage:\n${MIGRATE_USAGE}\n${MIGRATE_HELP}`);
    return 0;
  }
  const misplaced =
    command === 'plan'
      ? ['from', 'allow-destructive'].find((o) => values[o as keyof typeof values] !== undefined)
      : values.write !== undefined
        ? 'write'
        : undefined;
  if ((command !== 'plan' && command !== 'apply') || rest.length > 0 || misplaced) {
    const why = misplaced ? `--${misplaced} does not apply to 'migrate ${command}'` : "say 'plan' or 'apply'";
    process.stderr.write(`migrate: ${why}\n\nUsage:\n${MIGRATE_USAGE}\n${MIGRATE_HELP}`);
    return 2;
  }
  const targets: Target[] = [];
  try {
    const backfill = parseBackfill(values.backfill ?? []);
    const configFile = values.config ?? defaultConfig;
    const config = configFile ? await loadConfigFile(configFile) : resolveConfig({});
    const registry = await MetadataRegistry.load(config.metadata, { customTypes: config.metadataTypes });
    for (const name of chosenDatasources(config, values.datasource)) {
      const ds = createSqlDatasource(name, config.datasources[name], { baseDir: config.baseDir });
      targets.push({ ds, objects: registry.objects().filter((o) => o.datasource === name) });
      await ds.connect();
    }
    let code = 0;
    for (const target of targets) {
      const outcome =
        command === 'plan'
          ? await plan(target, values.write, backfill)
          : await apply(target, { allowDestructive: values['allow-destructive'] === true, backfill, from: values.from });
      code = Math.max(code, outcome);
    }
    return code;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`migrate: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(`objectql: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await Promise.all(targets.map((t) => t.ds.disconnect().catch(() => undefined)));
  }
}

/** `object.field=value` pairs; the value is text, read as the field's type when applied. */
function parseBackfill(pairs: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of pairs) {
    const match = /^([A-Za-z_]\w*\.[A-Za-z_]\w*)=(.*)$/s.exec(pair);
    if (!match) throw new UsageError(`--backfill takes OBJECT.FIELD=VALUE (got '${pair}')`);
    out.set(match[1], match[2]);
  }
  return out;
}

/** The SQL datasources to migrate: the one named, or every one the config has (others are skipped with a note). */
function chosenDatasources(config: ResolvedConfig, named: string | undefined): string[] {
  const all = Object.keys(config.datasources);
  if (named !== undefined) {
    if (!config.datasources[named]) throw new UsageError(`there is no datasource '${named}'; configured: ${all.join(', ')}`);
    if (config.datasources[named].driver !== 'sql')
      throw new UsageError(`datasource '${named}' uses driver '${config.datasources[named].driver}'; migrations apply to SQL datasources`);
    return [named];
  }
  for (const name of all.filter((n) => config.datasources[n].driver !== 'sql')) {
    process.stdout.write(`datasource '${name}' (driver '${config.datasources[name].driver}'): not a SQL datasource, skipped\n`);
  }
  return all.filter((n) => config.datasources[n].driver === 'sql');
}

async function plan({ ds, objects }: Target, write: string | undefined, backfill: Map<string, string>): Promise<number> {
  if (write !== undefined) {
    const written = await writePlan(ds, objects, resolve(write), backfill);
    if (!written) process.stdout.write(`datasource '${ds.name}': the database matches the metadata; no file written\n`);
    else
      process.stdout.write(
        `datasource '${ds.name}': wrote ${written.steps.length} step(s) to ${written.path}\n${list(written.steps.map(formatStep))}`,
      );
    return 0;
  }
  const steps = await planDatasource(ds, objects);
  if (steps.length === 0) {
    process.stdout.write(`datasource '${ds.name}': the database matches the metadata; nothing to do\n`);
    return 0;
  }
  process.stdout.write(`datasource '${ds.name}' (${ds.dialect.name}): ${steps.length} step(s)\n${list(steps.map(formatStep))}`);
  return 1;
}

async function apply(
  { ds, objects }: Target,
  options: { allowDestructive: boolean; backfill: Map<string, string>; from: string | undefined },
): Promise<number> {
  const note = transactionalDdl(ds.dialect) ? '' : ' (MySQL / MariaDB: each DDL statement commits by itself; no transaction around them)';
  if (options.from !== undefined) {
    const files = await applyFiles(ds, resolve(options.from), options);
    if (files.length === 0) process.stdout.write(`datasource '${ds.name}': every migration file in ${options.from} is applied\n`);
    for (const file of files) process.stdout.write(`datasource '${ds.name}': applied ${file.name}${note}\n${describe(file.report)}`);
    // The files may not be all the metadata asks for (a change not written as a file yet): said, not failed.
    const remaining = await planDatasource(ds, objects);
    if (remaining.length > 0)
      process.stdout.write(
        `datasource '${ds.name}': ${remaining.length} step(s) still separate the database from the metadata (objectql migrate plan lists them)\n`,
      );
    return 0;
  }
  const { steps, report } = await migrateDatasource(ds, objects, options);
  if (steps.length === 0) process.stdout.write(`datasource '${ds.name}': the database matches the metadata; nothing to do\n`);
  else process.stdout.write(`datasource '${ds.name}': applied ${report.applied.length} step(s)${note}\n${describe(report)}`);
  return 0;
}

function list(lines: string[]): string {
  return lines.map((l) => `  ${l}\n`).join('');
}

function describe(report: ApplyReport): string {
  return list([...report.applied, ...report.skipped.map((s) => `${s} (already done, skipped)`)]);
}
