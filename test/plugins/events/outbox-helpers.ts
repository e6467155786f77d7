/** Shared by the events tests: a small application (one object with a permission file) in a temp folder, and a server on it. */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tempDir } from '../../drivers/sql/helpers';
import { startServer, type StartOptions, type TestServer } from '../../helpers/server';

/**
 * `note` (title, owner, secret, status): managers do everything; members read and write their own
 * notes only and never see `secret`.
 */
export function notesApp(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'objectql-events-'));
  writeFileSync(
    join(dir, 'note.object.yml'),
    [
      'label: Note',
      'fields:',
      '  title: {type: text}',
      '  owner: {type: text}',
      '  secret: {type: number}',
      '  status: {type: text}',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'note.permission.yml'),
    [
      'permissions:',
      '  - profile: manager',
      '    allow_read: true',
      '    allow_create: true',
      '    allow_edit: true',
      '    allow_delete: true',
      '  - profile: member',
      '    allow_read: true',
      '    allow_create: true',
      '    allow_edit: true',
      '    allow_delete: true',
      '    record_filters:',
      '      - [owner, "=", $current_user]',
      '    fields:',
      '      secret: {allow_read: false}',
      '',
    ].join('\n'),
  );
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export const MANAGER = { id: 'mia', roles: ['manager'] };
export const MEMBER = { id: 'max', roles: ['member'] };
export const ADMIN = { id: 'root', roles: ['admin'] };

/**
 * A real server on the notes application, its events plugin recording into a SQLite file (no
 * dispatcher), with `plugins` beside it; writes go through REST with `managerHeaders`. Shared by the
 * realtime and GraphQL resume tests.
 */
export async function startNotesServer(
  plugins: Record<string, unknown>,
  managerHeaders: Record<string, string>,
  options: StartOptions = {},
): Promise<NotesServer> {
  const app = notesApp();
  const tmp = tempDir();
  const server = await startServer(
    {
      metadata: [app.dir],
      datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: join(tmp.dir, 'notes.sqlite') } } },
      plugins: { rest: true, events: { dispatcher: { enabled: false } }, ...plugins },
    },
    options,
  );
  const path = `${server.kernel.http.routes.data}/note`;
  const write = async (method: string, at: string, body?: unknown): Promise<any> => {
    const res = await server.request(method, at, body, managerHeaders);
    expect(res.status, JSON.stringify(res.body)).to.be.lessThan(300);
    return res.body;
  };
  return {
    server,
    path,
    write,
    create: (title, owner = 'max', extra = {}) => write('POST', path, { title, owner, secret: 1, ...extra }),
    async head() {
      const feed = server.kernel.resolve('changeFeed')!;
      let next = 0;
      for (;;) {
        const page = await feed.read(MANAGER, { after: next, limit: 1000 });
        if (page.next === next) return next;
        next = page.next;
      }
    },
    async stop() {
      await server.stop();
      app.remove();
      tmp.remove();
    },
  };
}

export interface NotesServer {
  server: TestServer;
  /** The notes' REST collection. */
  path: string;
  /** A REST request as the manager; expects a 2xx and returns the body. */
  write(method: string, path: string, body?: unknown): Promise<any>;
  /** Creates a note (owned by max unless said, `secret` 1) as the manager. */
  create(title: string, owner?: string, extra?: object): Promise<any>;
  /** The last position of the change feed, as the manager sees it. */
  head(): Promise<number>;
  stop(): Promise<void>;
}
