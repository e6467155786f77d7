/** What the parts of the files plugin share, one per kernel. */
import type { Kernel, RequestContext } from '../../kernel';
import type { FileRecords } from './file-records';
import type { FilesSettings } from './options';
import type { FileStorage } from './storage/types';

export interface FilesRuntime {
  kernel: Kernel;
  storage: FileStorage;
  records: FileRecords;
  settings: FilesSettings;
  /** Where thumbnails are served: SERVICE_BASE_URL, else the files route prefix. */
  apiBase: string;
}

/** A caller holding one of the configured admin roles (or the kernel itself). */
export function isAdmin(rt: FilesRuntime, ctx: RequestContext): boolean {
  if (ctx.system) return true;
  const admin = rt.kernel.config.security.adminRoles;
  return (ctx.user?.roles ?? []).some((r) => admin.includes(r));
}
