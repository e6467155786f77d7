/** POST {files}/upload and /upload/batch: stream the parts into storage, remember each file, answer attachments. */
import type { Request, Response } from 'express';
import { ObjectQLError, type RequestContext } from '../../kernel';
import { assertMayUpload } from './access';
import { toAttachment } from './attachments';
import type { FileRecord } from './file-records';
import type { FilesRuntime } from './runtime';
import { caller } from './stored-file';
import { receiveUpload, type UploadRules } from './upload';

export async function uploadRoute(rt: FilesRuntime, batch: boolean, req: Request, res: Response): Promise<void> {
  try {
    const ctx = caller(rt, req);
    const form = await receiveUpload(req, batch ? 'files' : 'file', batch ? rt.settings.maxFiles : 1, {
      storage: rt.storage,
      userId: ctx.user?.id,
      // A refused field becomes a rejection, which the parser turns into the request's error.
      rules: (f) => new Promise<UploadRules>((resolve) => resolve(rulesFor(rt, ctx, f.object, f.field))),
    });
    const uploadedAt = new Date().toISOString();
    const records: FileRecord[] = form.files.map((file) => ({
      id: file.stored.id,
      name: file.name,
      type: file.type,
      size: file.stored.size,
      uploaded_at: uploadedAt,
      ...(ctx.user?.id !== undefined ? { uploaded_by: ctx.user.id } : {}),
      ...(form.object ? { object: form.object, field: form.field } : {}),
      ...(file.width !== undefined ? { width: file.width, height: file.height } : {}),
      refs: [],
    }));
    try {
      for (const record of records) await rt.records.save(record);
    } catch (err) {
      await Promise.all(
        records.map((r) => Promise.all([rt.storage.delete(r.id).catch(() => false), rt.records.delete(r.id).catch(() => undefined)])),
      );
      throw err;
    }
    const fieldType = form.object ? rt.kernel.registry.object(form.object)?.fields[form.field!]?.type : undefined;
    const out = records.map((r) => toAttachment(r, rt.storage, rt.apiBase, fieldType));
    res.status(200).json({ data: batch ? out : out[0] });
  } catch (err) {
    // The request may still be sending: answer, then let the socket close rather than read on.
    if (!req.complete) res.setHeader('Connection', 'close');
    rt.kernel.http.sendError(req, res, err);
  }
}

/** The field an upload names, checked: it exists, is a file/image field, and the caller may write it. */
function rulesFor(rt: FilesRuntime, ctx: RequestContext, object: string | undefined, field: string | undefined): UploadRules {
  const maxBytes = rt.settings.maxFileSize;
  if (object === undefined && field === undefined) return { maxBytes };
  if (!object || !field) throw new ObjectQLError('INVALID_REQUEST', 'Parts object and field go together: give both or neither');
  const def = rt.kernel.registry.object(object);
  const permissions = def && rt.kernel.engine.repo(object, ctx).permissions();
  // A field hidden from the caller reads as one that does not exist, as everywhere else.
  const f = permissions?.canRead && !permissions.readable.has(field) ? undefined : def?.fields[field];
  if (!f || (f.type !== 'file' && f.type !== 'image')) {
    throw new ObjectQLError('FILE_VALIDATION_ERROR', `'${object}.${field}' is not a file or image field`, {
      file: null,
      reason: 'invalid_field',
      object,
      field,
    });
  }
  assertMayUpload(permissions!, object, field);
  return { field: f, maxBytes };
}
