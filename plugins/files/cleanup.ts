/**
 * Orphaned files. After a write commits, each stored file learns which record fields hold it
 * (`refs`); a file whose last holder lets go of it (the record is deleted, or the field no longer
 * names it) is deleted with its record. A file uploaded but never attached is deleted once it is
 * older than `orphanTtl` seconds, by a sweep at start and then every `orphanTtl / 4` (at most
 * hourly). Listening to committed changes, not to after-hooks, means a rolled-back write never
 * deletes anything.
 */
import type { RecordChange } from '../../kernel';
import { attachmentFields, fileIdsOf } from './attachments';
import { refKey } from './file-records';
import type { FilesRuntime } from './runtime';

export class OrphanCleanup {
  private timer?: NodeJS.Timeout;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly rt: FilesRuntime) {}

  async onChange(change: RecordChange): Promise<void> {
    const def = this.rt.kernel.registry.object(change.object);
    if (!def) return;
    for (const field of attachmentFields(def)) {
      const before = fileIdsOf(change.type === 'created' ? undefined : change.previous?.[field.name], this.rt.storage);
      const after = fileIdsOf(change.type === 'deleted' ? undefined : change.record[field.name], this.rt.storage);
      const key = refKey({ object: change.object, id: change.id, field: field.name });
      for (const id of after) if (!before.has(id)) await this.rt.records.changeRef(id, key, 'add');
      for (const id of before) {
        if (after.has(id)) continue;
        const counts = await this.rt.records.changeRef(id, key, 'remove');
        if (counts && counts.before > 0 && counts.after === 0) await this.remove(id, 'no record holds it any more');
      }
    }
  }

  /** Deletes the file when its record is still unreferenced (the check and delete are one step of the store); whether it did. */
  private async remove(id: string, why: string): Promise<boolean> {
    if (!(await this.rt.records.deleteIfUnreferenced(id))) return false;
    await this.rt.storage.delete(id);
    this.rt.kernel.logger.info({ file: id }, `files: deleted a file: ${why}`);
    return true;
  }

  /** Deletes the files never attached that are older than the TTL; returns how many. */
  async sweep(now = Date.now()): Promise<number> {
    const ttlMs = this.rt.settings.orphanTtl * 1000;
    let removed = 0;
    for await (const record of this.rt.records.all()) {
      if (record.refs.length > 0 || now - Date.parse(record.uploaded_at) < ttlMs) continue;
      if (await this.remove(record.id, 'never attached to a record')) removed++;
    }
    return removed;
  }

  start(): void {
    if (this.rt.settings.orphanTtl <= 0) return;
    const every = Math.min(this.rt.settings.orphanTtl * 250, 3_600_000);
    const run = () => {
      this.running = this.sweep().catch((err: unknown) =>
        this.rt.kernel.logger.error({ err }, 'files: sweeping unattached uploads failed'),
      );
    };
    run();
    this.timer = setInterval(run, every);
    this.timer.unref();
  }

  /** Stops the sweeps and waits for one under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
