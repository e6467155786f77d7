/**
 * Before a create or update stores an attachment, the file it names must exist and the caller
 * must be allowed to read it (its uploader, or a reader of a record already holding it). The
 * value is then replaced by what the plugin knows of the file, so size, type and dimensions are
 * the measured ones and the engine's field checks (accept, sizes, image bounds) hold for real.
 * Attachments a record already holds pass unchanged; links to anything else are left alone.
 */
import { isPlainObject, validationError, type HookContext } from '../../kernel';
import { accessDenied, mayRead } from './access';
import { attachmentFields, storedFileId, fileIdsOf, toAttachment, type Attachment } from './attachments';
import type { FilesRuntime } from './runtime';

export async function checkAttachments(rt: FilesRuntime, ctx: HookContext): Promise<void> {
  // The kernel's own writes (seed data, cascades) are trusted.
  if (!ctx.data || ctx.request.system) return;
  const data = ctx.data;
  for (const field of attachmentFields(rt.kernel.registry.object(ctx.object)!)) {
    const value: unknown = data[field.name];
    if (value == null) continue;
    const held = fileIdsOf(ctx.previous?.[field.name], rt.storage);
    const resolve = async (a: Attachment): Promise<Attachment> => {
      const id = storedFileId(a, rt.storage);
      if (id === undefined || held.has(id)) return a;
      const record = await rt.records.get(id);
      if (!record || !(await rt.storage.stat(id))) {
        throw validationError({ [field.name]: `file '${id}' does not exist (upload it first)` });
      }
      if (!(await mayRead(rt, ctx.request, record))) {
        throw accessDenied(`Not allowed to attach file '${id}' to '${ctx.object}.${field.name}'`, {
          object: ctx.object,
          field: field.name,
          file: id,
        });
      }
      return toAttachment(record, rt.storage, rt.apiBase, field.type);
    };
    if (Array.isArray(value)) data[field.name] = await Promise.all(value.map((v: unknown) => (isPlainObject(v) ? resolve(v) : v)));
    else if (isPlainObject(value)) data[field.name] = await resolve(value);
  }
}
