/**
 * `objectql import FILE --object NAME` and `objectql export --object NAME`: records through the
 * engine of a kernel started from the config (on a loopback port of its own, so a running server
 * is not disturbed), as one caller. See docs/import-export.md.
 */
import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createKernel, loadConfigFile, resolveConfig, type Kernel, type RequestContext } from '../server';
import { fromCsv } from '../server/transfer/csv-values';
import { formatOf, FORMATS, readRows, recordWriter, type Format } from '../server/transfer/formats';
import { commandFailure } from './startup-failure';
import { exportRecords, importRows, type ImportProgress, type Rejected } from '../server/transfer/transfer';

export const TRANSFER_USAGE = `       objectql import FILE --object NAME [--format csv|json|ndjson] [--rejects FILE] [--batch N]
       objectql export --object NAME [--out FILE] [--format csv|json|ndjson] [--filter JSON] [--fields a,b]
`;

export const TRANSFER_HELP = `  import, export  records through the engine (validation, hooks, permissions) as --user with
                 --roles (default an admin of security.adminRoles); the format from the file's
                 extension unless --format says it; rejected rows go to --rejects (default
                 FILE.rejects.ndjson); an export pages by id and writes to --out (default stdout)
`;

const COMMON = {
  object: { type: 'string' },
  format: { type: 'string' },
  config: { type: 'string', short: 'c' },
  user: { type: 'string' },
  roles: { type: 'string' },
} as const;

class UsageError extends Error {}

export async function transfer(command: 'import' | 'export', args: string[], defaultConfig: string | undefined): Promise<number> {
  let kernel: Kernel | undefined;
  let configFile = defaultConfig;
  try {
    const parsed = parseArgs({
      args,
      allowPositionals: command === 'import',
      options: {
        ...COMMON,
        rejects: { type: 'string' },
        batch: { type: 'string' },
        out: { type: 'string', short: 'o' },
        filter: { type: 'string' },
        fields: { type: 'string' },
      },
    });
    const object = parsed.values.object;
    if (!object) throw new UsageError(`${command}: --object NAME says which object`);
    configFile = parsed.values.config ?? defaultConfig;
    const config = configFile ? await loadConfigFile(configFile) : resolveConfig({});
    kernel = await createKernel({ ...config, port: 0, host: '127.0.0.1', logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel });
    await kernel.start();
    if (!kernel.engine.has(object)) throw new UsageError(`${command}: there is no object '${object}' in ${config.metadata.join(', ')}`);
    const caller = identity(parsed.values.user, parsed.values.roles, kernel.config.security.adminRoles);
    const repo = kernel.engine.repo(object, caller);
    if (command === 'import') {
      const [file, ...extra] = parsed.positionals;
      if (!file || extra.length) throw new UsageError('import: name one FILE to read');
      if (!existsSync(file)) throw new UsageError(`import: there is no file '${file}'`);
      const format = chosenFormat(parsed.values.format, file, undefined);
      const batch = Number(parsed.values.batch ?? Math.min(500, kernel.engine.limits.maxBulkItems));
      if (!Number.isInteger(batch) || batch < 1 || batch > kernel.engine.limits.maxBulkItems)
        throw new UsageError(`import: --batch must be a whole number from 1 to ${kernel.engine.limits.maxBulkItems} (limits.maxBulkItems)`);
      const def = kernel.registry.object(object)!;
      // What an export wrote besides the id (created_at, updated_by, ...) the engine sets itself: dropped, so an export imports again.
      const maintained = Object.values(def.fields)
        .filter((f) => f.system && f.name !== 'id')
        .map((f) => f.name);
      const drop = (record: Record<string, unknown>) => {
        for (const name of maintained) delete record[name];
        return record;
      };
      return await runImport(() => readRows(file, format), {
        repo,
        object,
        batch,
        convert: format === 'csv' ? (record) => drop(fromCsv(def, record)) : drop,
        rejectsFile: parsed.values.rejects ?? `${file}.rejects.ndjson`,
      });
    }
    const out = parsed.values.out;
    const format = chosenFormat(parsed.values.format, out, 'ndjson');
    const visibility = repo.visibility();
    const fields = parsed.values.fields
      ?.split(',')
      .map((f) => f.trim())
      .filter(Boolean);
    const columns = fields
      ? ['id', ...fields.filter((f) => f !== 'id')]
      : Object.keys(kernel.registry.object(object)!.fields).filter((f) => visibility.readable.has(f));
    const filters = parsed.values.filter === undefined ? undefined : jsonOption('--filter', parsed.values.filter);
    const stream = out && out !== '-' ? createWriteStream(out) : process.stdout;
    return await runExport(
      exportRecords(repo, { filters, fields, pageSize: Math.min(1000, kernel.engine.limits.maxTop) }),
      stream,
      format,
      columns,
      object,
      out,
    );
  } catch (err) {
    const failure = commandFailure(
      err,
      { config: kernel?.config, configFile: configFile && resolve(configFile) },
      (e) => e instanceof UsageError,
    );
    process.stderr.write(`objectql: ${failure.message}\n`);
    return failure.code;
  } finally {
    await kernel?.stop();
  }
}

function identity(user: string | undefined, roles: string | undefined, adminRoles: readonly string[]): RequestContext {
  const roleList =
    roles
      ?.split(',')
      .map((r) => r.trim())
      .filter(Boolean) ?? (user ? [] : adminRoles.slice(0, 1));
  if (!user && roleList.length === 0)
    throw new UsageError('say who imports or exports with --user ID --roles a,b (security.adminRoles is empty)');
  return { user: { id: user ?? 'objectql-cli', roles: roleList } };
}

function chosenFormat(given: string | undefined, file: string | undefined, fallback: Format | undefined): Format {
  if (given !== undefined) {
    if (!FORMATS.includes(given as Format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got '${given}'`);
    return given as Format;
  }
  const format = (file && formatOf(file)) || fallback;
  if (!format) throw new UsageError(`cannot tell the format of '${file}' from its extension: add --format ${FORMATS.join('|')}`);
  return format;
}

function jsonOption(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${name} must be JSON (the spec's filter, array or map form)`);
  }
}

interface ImportRun {
  repo: ReturnType<Kernel['engine']['repo']>;
  object: string;
  batch: number;
  convert?: (record: Record<string, unknown>) => Record<string, unknown>;
  rejectsFile: string;
}

async function runImport(rows: () => ReturnType<typeof readRows>, run: ImportRun): Promise<number> {
  const started = Date.now();
  let rejects: WriteStream | undefined;
  const onRejected = async (rejected: Rejected) => {
    rejects ??= createWriteStream(run.rejectsFile);
    if (!rejects.write(`${JSON.stringify(rejected)}\n`)) await once(rejects, 'drain');
  };
  const tty = process.stderr.isTTY === true;
  const line = (p: ImportProgress) => {
    const seconds = (Date.now() - started) / 1000;
    return `${p.created.toLocaleString('en')} of ${p.read.toLocaleString('en')} rows imported into '${run.object}' in ${seconds.toFixed(1)} s (${Math.round(p.read / Math.max(seconds, 0.001)).toLocaleString('en')} rows/s), ${p.rejected.toLocaleString('en')} rejected`;
  };
  let progress: ImportProgress = { read: 0, created: 0, rejected: 0 };
  try {
    progress = await importRows(run.repo, rows(), {
      batch: run.batch,
      convert: run.convert,
      onRejected,
      onProgress: (p) => {
        progress = p;
        if (tty) process.stderr.write(`\r${line(p)}`);
      },
    });
  } catch (err) {
    // A file that stops parsing: what was created stays (each record is its own transaction).
    if (tty) process.stderr.write('\n');
    throw new UsageError(`${(err as Error).message}; ${line(progress)} before it`);
  } finally {
    if (rejects) await new Promise((resolve) => rejects!.end(resolve));
  }
  process.stderr.write(
    `${tty ? '\r' : ''}${line(progress)}${progress.rejected ? `; the rejected rows and why are in ${run.rejectsFile}` : ''}\n`,
  );
  return progress.rejected > 0 ? 1 : 0;
}

async function runExport(
  records: AsyncGenerator<Record<string, unknown>>,
  stream: Writable,
  format: Format,
  columns: string[],
  object: string,
  out: string | undefined,
): Promise<number> {
  const started = Date.now();
  const writer = recordWriter(format, stream, columns);
  let n = 0;
  for await (const record of records) {
    await writer.write(record);
    n++;
  }
  await writer.end();
  if (stream !== process.stdout) await new Promise<void>((resolve) => stream.end(() => resolve()));
  const seconds = (Date.now() - started) / 1000;
  process.stderr.write(
    `exported ${n.toLocaleString('en')} records of '${object}'${out && out !== '-' ? ` to ${out}` : ''} in ${seconds.toFixed(1)} s (${Math.round(n / Math.max(seconds, 0.001)).toLocaleString('en')} records/s)\n`,
  );
  return 0;
}
