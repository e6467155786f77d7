/**
 * Upload records in a datasource, so that every instance using it sees the same ones. Two tables
 * the plugin syncs itself and never registers as objects (no protocol serves them, no permission
 * applies): `objectql_file` (one row per upload) and `objectql_file_ref` (one row per record field
 * holding a file, its id derived from both). A ref is added or removed by inserting or deleting
 * its own row, so two instances changing the refs of one file never overwrite each other.
 */
import { createHash } from 'node:crypto';
import { ObjectQLError, storageField as field, storageTable, type Datasource, type DbRecord, type ObjectDefinition } from '../../kernel';
import type { FileRecord, FileRecords } from './file-records';
import { isValidFileId } from './storage/types';

export const FILE_TABLE = 'objectql_file';
export const REF_TABLE = 'objectql_file_ref';
const PAGE = 500;

export class DatasourceFileRecords implements FileRecords {
  constructor(private readonly ds: Datasource) {}

  async open(): Promise<void> {
    await this.ds.syncSchema([fileTable(this.ds.name), refTable(this.ds.name)]);
  }

  async get(id: string): Promise<FileRecord | undefined> {
    if (!isValidFileId(id)) return undefined;
    const [row] = await this.ds.find(FILE_TABLE, { filter: { field: 'id', op: 'eq', value: id }, top: 1 });
    if (!row) return undefined;
    return { ...toRecord(row), refs: await this.refsOf(id) };
  }

  /** Only new uploads are saved (refs change through changeRef): one insert. */
  async save(record: FileRecord): Promise<void> {
    await this.ds.create(FILE_TABLE, { id: record.id, ...toRow(record) });
  }

  async delete(id: string): Promise<void> {
    if (!isValidFileId(id)) return;
    await this.ds.transaction(async (tx) => {
      for (const ref of await this.ds.find(REF_TABLE, { filter: { field: 'file', op: 'eq', value: id }, fields: ['id'] }, tx)) {
        await this.ds.delete(REF_TABLE, String(ref.id), tx);
      }
      await this.ds.delete(FILE_TABLE, id, tx);
    });
  }

  async *all(): AsyncGenerator<FileRecord> {
    for (let skip = 0; ; skip += PAGE) {
      const rows = await this.ds.find(FILE_TABLE, { sort: [{ field: 'id', dir: 'asc' }], top: PAGE, skip });
      for (const row of rows) yield { ...toRecord(row), refs: await this.refsOf(String(row.id)) };
      if (rows.length < PAGE) return;
    }
  }

  async changeRef(id: string, ref: string, op: 'add' | 'remove'): Promise<{ before: number; after: number } | undefined> {
    if (!(await this.get(id))) return undefined;
    const refId = refRowId(id, ref);
    let changed: boolean;
    if (op === 'add') {
      changed = await this.ds.create(REF_TABLE, { id: refId, file: id, ref }).then(
        () => true,
        (err: unknown) => {
          // Held already: another instance (or a replayed change) added it first.
          if (err instanceof ObjectQLError && err.code === 'CONFLICT') return false;
          throw err;
        },
      );
    } else {
      changed = await this.ds.delete(REF_TABLE, refId);
    }
    const after = await this.ds.count(REF_TABLE, { field: 'file', op: 'eq', value: id });
    return { before: changed ? after + (op === 'add' ? -1 : 1) : after, after };
  }

  deleteIfUnreferenced(id: string): Promise<boolean> {
    if (!isValidFileId(id)) return Promise.resolve(false);
    return this.ds.transaction(async (tx) => {
      if ((await this.ds.count(REF_TABLE, { field: 'file', op: 'eq', value: id }, tx)) > 0) return false;
      return this.ds.delete(FILE_TABLE, id, tx);
    });
  }

  /** Nothing is cached: every read asks the datasource. */
  clear(): void {}

  private async refsOf(id: string): Promise<string[]> {
    const rows = await this.ds.find(REF_TABLE, { filter: { field: 'file', op: 'eq', value: id }, fields: ['ref'] });
    return rows.map((r) => String(r.ref)).sort();
  }
}

/** A ref row's id: the same for the same file and ref on every instance, at most 64 characters. */
function refRowId(file: string, ref: string): string {
  return createHash('sha256').update(`${file}\n${ref}`).digest('hex');
}

function toRow(r: FileRecord): DbRecord {
  return {
    name: r.name,
    type: r.type,
    size: r.size,
    uploaded_at: r.uploaded_at,
    uploaded_by: r.uploaded_by ?? null,
    object: r.object ?? null,
    field: r.field ?? null,
    width: r.width ?? null,
    height: r.height ?? null,
  };
}

function toRecord(row: DbRecord): Omit<FileRecord, 'refs'> {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const num = (v: unknown) => (v == null ? undefined : Number(v));
  const out: Omit<FileRecord, 'refs'> = {
    id: String(row.id),
    name: String(row.name),
    type: String(row.type),
    size: Number(row.size),
    uploaded_at: String(row.uploaded_at),
  };
  const optional = {
    uploaded_by: text(row.uploaded_by),
    object: text(row.object),
    field: text(row.field),
    width: num(row.width),
    height: num(row.height),
  };
  for (const [k, v] of Object.entries(optional)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

function fileTable(datasource: string): ObjectDefinition {
  return storageTable(FILE_TABLE, datasource, [
    field('name', 'text'),
    field('type', 'text'),
    field('size', 'number'),
    // Text, not datetime: the ISO string comes back exactly as written on every driver.
    field('uploaded_at', 'text'),
    field('uploaded_by', 'text'),
    field('object', 'text'),
    field('field', 'text'),
    field('width', 'number'),
    field('height', 'number'),
  ]);
}

function refTable(datasource: string): ObjectDefinition {
  return storageTable(REF_TABLE, datasource, [field('file', 'text', { index: true }), field('ref', 'text')]);
}
