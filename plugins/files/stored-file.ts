/** The caller of a file route and the stored file its `:fileId` names, access checked. */
import type { Request } from 'express';
import { isAnonymous, ObjectQLError, type RequestContext } from '../../kernel';
import { accessDenied, mayRead } from './access';
import type { FileRecord } from './file-records';
import type { FilesRuntime } from './runtime';
import { isValidFileId } from './storage/types';

export interface LocatedFile {
  id: string;
  record: FileRecord;
  size: number;
  mtime: Date;
}

/** The authenticated caller; UNAUTHORIZED for an anonymous one. */
export function caller(rt: FilesRuntime, req: Request): RequestContext {
  const ctx = rt.kernel.http.context(req);
  if (isAnonymous(ctx.user)) throw new ObjectQLError('UNAUTHORIZED', 'Authentication required');
  return ctx;
}

/**
 * FILE_NOT_FOUND for an id that is malformed, not stored, or unknown to the plugin (so a file
 * nobody can vouch for is never served); FILE_ACCESS_DENIED when the caller may not read it.
 */
export async function locate(rt: FilesRuntime, req: Request): Promise<LocatedFile> {
  const ctx = caller(rt, req);
  const id = String((req.params as Record<string, string>).fileId ?? '');
  const notFound = () => new ObjectQLError('FILE_NOT_FOUND', `File '${id.slice(0, 200)}' not found`, { file: id.slice(0, 200) });
  if (!isValidFileId(id)) throw notFound();
  const [stat, record] = await Promise.all([rt.storage.stat(id), rt.records.get(id)]);
  if (!stat || !record) throw notFound();
  if (!(await mayRead(rt, ctx, record))) throw accessDenied(`Not allowed to access file '${id}'`, { file: id });
  return { id, record, size: stat.size, mtime: stat.mtime };
}
