/**
 * Who may upload for a field and who may read a stored file. Uploading for object.field needs the
 * right to create or edit that object and to write that field. A file not yet attached to any
 * record is its uploader's (and admins'); once attached, it is readable by whoever may read a
 * record holding it, field included, through the engine (record filters, hidden fields).
 */
import { ObjectQLError, type CallerPermissions, type RequestContext } from '../../kernel';
import { fileIdsOf } from './attachments';
import { parseRef, type FileRecord } from './file-records';
import { isAdmin, type FilesRuntime } from './runtime';

export function accessDenied(message: string, details?: Record<string, unknown>): ObjectQLError {
  return new ObjectQLError('FILE_ACCESS_DENIED', message, details);
}

/** Throws FILE_ACCESS_DENIED unless the caller (whose permissions on `object` these are) may write its `field`. */
export function assertMayUpload(permissions: CallerPermissions, object: string, field: string): void {
  const mayWrite = (permissions.canCreate || permissions.canEdit) && permissions.editable.has(field) && permissions.readable.has(field);
  if (!mayWrite) throw accessDenied(`Not allowed to upload files for '${object}.${field}'`, { object, field });
}

/** Whether the caller may read the stored file (download, thumbnail, preview, attaching it elsewhere). */
export async function mayRead(rt: FilesRuntime, ctx: RequestContext, record: FileRecord): Promise<boolean> {
  if (isAdmin(rt, ctx)) return true;
  if (record.refs.length === 0) return record.uploaded_by !== undefined && record.uploaded_by === ctx.user?.id;
  for (const key of record.refs) {
    const ref = parseRef(key);
    if (!rt.kernel.engine.has(ref.object)) continue;
    try {
      const holder = await rt.kernel.engine.repo(ref.object, ctx).findOne({ filters: [['id', '=', ref.id]], fields: ['id', ref.field] });
      if (holder && fileIdsOf(holder[ref.field], rt.storage).has(record.id)) return true;
    } catch (err) {
      // Not readable (forbidden, hidden field): try the next holder. A failing store is the server's.
      if (err instanceof ObjectQLError && err.status >= 500) throw err;
    }
  }
  return false;
}
