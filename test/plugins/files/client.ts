/** A File API client for the tests: multipart uploads and downloads as a given user (X-Test-User). */
import { identityHeader, type TestServer } from '../../helpers/server';

export type FilePart = [part: string, content: Buffer | string, name: string];

export function form(parts: Record<string, string>, files: FilePart[]): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(parts)) f.append(k, v);
  for (const [part, content, name] of files)
    f.append(part, new Blob([typeof content === 'string' ? content : new Uint8Array(content)]), name);
  return f;
}

export const as = (user: object | null): Record<string, string> => identityHeader(user);

export function filesClient(s: TestServer, prefix = '/api/files') {
  return {
    async post(path: string, body: FormData, user: object | null) {
      const res = await fetch(`${s.url}${prefix}${path}`, { method: 'POST', body, headers: as(user) });
      return { status: res.status, body: (await res.json()) as any };
    },
    /** Uploads one file and returns its attachment, failing loudly when the upload fails. */
    async upload(user: object, content: Buffer | string, name: string, parts: Record<string, string> = {}) {
      const r = await this.post('/upload', form(parts, [['file', content, name]]), user);
      if (r.status !== 200) throw new Error(`upload of ${name} failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.data as Record<string, any>;
    },
    async get(path: string, headers: Record<string, string> = {}, user: object | null = null) {
      const res = await fetch(`${s.url}${prefix}${path}`, { headers: { ...as(user), ...headers } });
      return { status: res.status, headers: res.headers, buffer: Buffer.from(await res.arrayBuffer()) };
    },
  };
}
