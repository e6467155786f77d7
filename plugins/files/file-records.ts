/**
 * What the plugin knows of each stored file: its name, sniffed type, uploader, the field it was
 * uploaded for, image dimensions, and the record fields that hold it (`refs`). Kept in memory per
 * kernel and, when a folder is given, as one JSON file per upload, so that access rules and
 * clean-up survive a restart and are shared by instances on one disk. With a folder every read
 * goes to the disk: another instance may have changed the refs.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { isValidFileId } from './storage/types';

export interface FileRecord {
  id: string;
  name: string;
  type: string;
  size: number;
  uploaded_at: string;
  uploaded_by?: string;
  /** The object and field named at upload, whose rules the content was checked against. */
  object?: string;
  field?: string;
  width?: number;
  height?: number;
  /** `object/recordId/field` of every record field holding this file; empty until attached. */
  refs: string[];
}

export interface FileRef {
  object: string;
  id: string;
  field: string;
}

export const refKey = (ref: FileRef): string => `${ref.object}/${ref.id}/${ref.field}`;

export function parseRef(key: string): FileRef {
  const [object, ...rest] = key.split('/');
  const field = rest.pop() ?? '';
  return { object, id: rest.join('/'), field };
}

export class FileRecordStore {
  private readonly memory = new Map<string, FileRecord>();

  /** `dir`: where the JSON records live; undefined keeps them in memory only. */
  constructor(private readonly dir?: string) {}

  async open(): Promise<void> {
    if (this.dir) await mkdir(this.dir, { recursive: true });
  }

  async get(id: string): Promise<FileRecord | undefined> {
    if (!isValidFileId(id)) return undefined;
    if (!this.dir) return this.memory.get(id);
    try {
      const record = JSON.parse(await readFile(this.pathOf(id), 'utf8')) as FileRecord;
      return record?.id === id ? { ...record, refs: record.refs ?? [] } : undefined;
    } catch {
      return undefined;
    }
  }

  async save(record: FileRecord): Promise<void> {
    if (!this.dir) {
      this.memory.set(record.id, record);
      return;
    }
    // Written aside and renamed: a reader never sees half a record.
    const tmp = join(this.dir, `.${randomUUID()}.tmp`);
    await writeFile(tmp, JSON.stringify(record));
    await rename(tmp, this.pathOf(record.id));
  }

  async delete(id: string): Promise<void> {
    this.memory.delete(id);
    if (this.dir && isValidFileId(id)) await rm(this.pathOf(id), { force: true });
  }

  /** Every record (for the sweep of files never attached). */
  async *all(): AsyncGenerator<FileRecord> {
    if (!this.dir) {
      yield* [...this.memory.values()];
      return;
    }
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      if (!name.endsWith('.json')) continue;
      const record = await this.get(name.slice(0, -'.json'.length));
      if (record) yield record;
    }
  }

  clear(): void {
    this.memory.clear();
  }

  private pathOf(id: string): string {
    return join(this.dir!, `${id}.json`);
  }
}
