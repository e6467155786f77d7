/** `objectql init [DIR]`: a new application in DIR (default: the current folder), from server/scaffold/project.ts. */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { hashApiKey } from '../plugins/auth/api-keys';
import { projectFiles } from '../server/scaffold/project';

export const INIT_USAGE = `       objectql init [DIR]
`;

export const INIT_HELP = `  init DIR       a new application in DIR (default the current folder, which must be empty):
                 config, one object, its permissions, a README and npm scripts
`;

export function init(args: string[]): number {
  if (args.length > 1 || args.some((a) => a.startsWith('-'))) {
    process.stderr.write(`init takes one folder, got '${args.join(' ')}'\n\nUsage:\n${INIT_USAGE}\n${INIT_HELP}`);
    return 2;
  }
  const dir = resolve(args[0] ?? '.');
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    process.stderr.write(`objectql: ${dir} is not empty: init writes a new application into an empty or new folder\n`);
    return 1;
  }
  const name = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '');
  const key = (role: string) => {
    const plain = `oql_${role}_${randomBytes(24).toString('base64url')}`;
    return { key: plain, hash: hashApiKey(plain) };
  };
  const keys = { admin: key('admin'), member: key('member') };
  const files = projectFiles({ name: name || 'objectql-app', version: ownVersion(), keys });
  for (const [path, content] of Object.entries(files)) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  const where = relative(process.cwd(), dir) || '.';
  process.stdout.write(
    [
      `Created ${where}: ${Object.keys(files).join(', ')}`,
      '',
      'Next:',
      ...(where === '.' ? [] : [`  cd ${where}`]),
      '  npm install',
      '  npm start        # http://localhost:3000',
      '',
      'API keys (shown once: only their hashes are in objectql.config.ts):',
      `  admin   X-API-Key: ${keys.admin.key}`,
      `  member  X-API-Key: ${keys.member.key}`,
      '',
    ].join('\n'),
  );
  return 0;
}

/** The version of this objectql: from its package.json, found up from this file (dist/bin/ or bin/). */
function ownVersion(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version: string };
    if (pkg.name === 'objectql') return pkg.version;
  }
  throw new Error('init: cannot find the package.json of objectql');
}
