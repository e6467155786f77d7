/**
 * What the plugin knows of each stored file: its name, sniffed type, uploader, the field it was
 * uploaded for, image dimensions, and the record fields that hold it (`refs`). Kept in memory per
 * kernel and, when a folder is given, as one JSON file per upload, so that access rules and
 * clean-up survive a restart and are shared by instances on one disk. With a folder every read
 * asks the disk, since another instance may have changed the refs: a `stat`, and the file is read
 * and parsed again only when it is not the one last read (inode, size or mtime differ).
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Mutex } from 'async-mutex';
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

/** Where upload records live: a folder or memory (this file), or a datasource (datasource-records.ts). */
export interface FileRecords {
  open(): Promise<void>;
  get(id: string): Promise<FileRecord | undefined>;
  /** Stores the record of a new upload. */
  save(record: FileRecord): Promise<void>;
  delete(id: string): Promise<void>;
  /** Every record (for the sweep of files never attached). */
  all(): AsyncGenerator<FileRecord>;
  /**
   * Adds or removes one ref, atomically against other writers (other instances too): resolves with
   * how many refs the file had before and after, undefined when there is no such record.
   */
  changeRef(id: string, ref: string, op: 'add' | 'remove'): Promise<{ before: number; after: number } | undefined>;
  /** Deletes the record when no ref holds it (checked and deleted as one step); whether it did. */
  deleteIfUnreferenced(id: string): Promise<boolean>;
  clear(): void;
}

/** Parsed records kept beside their file's identity, at most this many (oldest read dropped first). */
const PARSED_CACHE_SIZE = 10_000;

export class FileRecordStore implements FileRecords {
  /** Ref changes are read-modify-write of one record: one at a time (instances sharing a folder are not serialised). */
  private readonly lock = new Mutex();
  private readonly memory = new Map<string, FileRecord>();
  private readonly parsed = new Map<string, { version: string; record: FileRecord }>();

  /** `dir`: where the JSON records live; undefined keeps them in memory only. */
  constructor(private readonly dir?: string) {}

  async open(): Promise<void> {
    if (this.dir) await mkdir(this.dir, { recursive: true });
  }

  async get(id: string): Promise<FileRecord | undefined> {
    if (!isValidFileId(id)) return undefined;
    if (!this.dir) return this.memory.get(id);
    const path = this.pathOf(id);
    const st = await stat(path).catch(() => null);
    if (!st) {
      this.parsed.delete(id);
      return undefined;
    }
    const version = `${st.ino}:${st.size}:${st.mtimeMs}`;
    const known = this.parsed.get(id);
    if (known?.version === version) return { ...known.record, refs: [...known.record.refs] };
    try {
      const record = JSON.parse(await readFile(path, 'utf8')) as FileRecord;
      if (record?.id !== id) return undefined;
      const clean = { ...record, refs: record.refs ?? [] };
      this.parsed.delete(id);
      this.parsed.set(id, { version, record: clean });
      if (this.parsed.size > PARSED_CACHE_SIZE) this.parsed.delete(this.parsed.keys().next().value!);
      return { ...clean, refs: [...clean.refs] };
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
    this.parsed.delete(id);
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

  changeRef(id: string, ref: string, op: 'add' | 'remove'): Promise<{ before: number; after: number } | undefined> {
    return this.lock.runExclusive(async () => {
      const record = await this.get(id);
      if (!record) return undefined;
      const refs = new Set(record.refs);
      const before = refs.size;
      if (op === 'add') refs.add(ref);
      else refs.delete(ref);
      if (refs.size !== before) await this.save({ ...record, refs: [...refs] });
      return { before, after: refs.size };
    });
  }

  deleteIfUnreferenced(id: string): Promise<boolean> {
    return this.lock.runExclusive(async () => {
      const record = await this.get(id);
      if (!record || record.refs.length > 0) return false;
      await this.delete(id);
      return true;
    });
  }

  clear(): void {
    this.memory.clear();
    this.parsed.clear();
  }

  private pathOf(id: string): string {
    return join(this.dir!, `${id}.json`);
  }
}
