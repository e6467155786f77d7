import type { DbRecord, Transaction } from '../../kernel';

/** A staged write: the new record (null = deleted) and the committed version it was based on. */
export interface StagedWrite {
  record: DbRecord | null;
  base: DbRecord | undefined;
}

/**
 * A transaction of the memory driver: an overlay of staged writes per object, applied to the
 * committed tables only when the transaction's function resolves.
 */
export class MemoryTransaction implements Transaction {
  active = true;
  readonly staged = new Map<string, Map<string, StagedWrite>>();

  constructor(
    readonly datasource: string,
    readonly owner: object,
  ) {}

  /** The staged write for a record, if this transaction wrote it. */
  lookup(object: string, id: string): StagedWrite | undefined {
    return this.staged.get(object)?.get(id);
  }

  /** Stages a write; `base` is only recorded on the first write to a record. */
  stage(object: string, id: string, record: DbRecord | null, base: DbRecord | undefined): void {
    let writes = this.staged.get(object);
    if (!writes) {
      writes = new Map();
      this.staged.set(object, writes);
    }
    const previous = writes.get(id);
    writes.set(id, { record, base: previous ? previous.base : base });
  }
}
