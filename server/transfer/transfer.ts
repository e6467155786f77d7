/**
 * Records into and out of an object through the engine, as one caller: an import goes through
 * createMany in batches (each record with its own validation, hooks and transaction, as the spec's
 * bulk create does; a refused record is reported, the others go on); an export pages by id
 * (keyset, so neither memory nor the engine's skip limit grows with the object).
 */
import type { Repository, RequestFilter } from '../../kernel';
import type { ReadRow } from './formats';

export interface Rejected {
  row: number;
  record: Record<string, unknown>;
  error: { code: string; message: string; details?: unknown };
}

export interface ImportProgress {
  read: number;
  created: number;
  rejected: number;
}

export interface ImportOptions {
  /** Records per createMany (at most the engine's limits.maxBulkItems). */
  batch: number;
  /** Turns a row as read into the values to create (CSV cells into typed values). */
  convert?: (record: Record<string, unknown>) => Record<string, unknown>;
  onRejected(rejected: Rejected): void | Promise<void>;
  onProgress?(progress: ImportProgress): void;
}

export async function importRows(repo: Repository, rows: AsyncIterable<ReadRow>, options: ImportOptions): Promise<ImportProgress> {
  const progress: ImportProgress = { read: 0, created: 0, rejected: 0 };
  let pending: ReadRow[] = [];
  const flush = async () => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    const result = await repo.createMany(batch.map((r) => (options.convert ? options.convert(r.record) : r.record)));
    progress.created += result.count;
    for (const failure of result.errors ?? []) {
      progress.rejected++;
      const { row, record } = batch[failure.index];
      await options.onRejected({ row, record, error: failure.error });
    }
    options.onProgress?.({ ...progress });
  };
  for await (const row of rows) {
    progress.read++;
    pending.push(row);
    if (pending.length >= options.batch) await flush();
  }
  await flush();
  return progress;
}

export interface ExportOptions {
  /** The spec's filter (array or map form), as `find` takes it. */
  filters?: unknown;
  fields?: string[];
  pageSize: number;
}

export async function* exportRecords(repo: Repository, options: ExportOptions): AsyncGenerator<Record<string, unknown>> {
  let after: string | undefined;
  for (;;) {
    const filter: RequestFilter | undefined = after === undefined ? undefined : { field: 'id', op: 'gt', value: after };
    const { items } = await repo.find({
      filters: options.filters,
      filter,
      fields: options.fields,
      sort: [['id', 'asc']],
      top: options.pageSize,
    });
    for (const item of items) yield item;
    if (items.length < options.pageSize) return;
    after = String(items[items.length - 1].id);
  }
}
