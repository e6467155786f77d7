/** Shared by the events tests: a small application (one object with a permission file) in a temp folder. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
