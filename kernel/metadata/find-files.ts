/**
 * Finds the metadata files of a set of folders: `<identifier>.<type>.yml|yaml` and
 * `<object>.hook|action.(ts|js)`, searched recursively, skipping node_modules and dot folders.
 * Other files (README, helper modules imported by hooks) are not metadata and are left alone.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProblemList } from './problems';

export type CodeKind = 'hook' | 'action';

export interface FoundFile {
  /** Absolute path. */
  file: string;
  kind: 'yaml' | 'code';
  identifier: string;
  /** The metadata type (object, app, ...) for YAML files; 'hook' or 'action' for code files. */
  type: string;
}

const YAML_FILE = /\.ya?ml$/i;
const CODE_FILE = /^(.+)\.(hook|action)\.(ts|js|mts|cts|mjs|cjs)$/;

export function findMetadataFiles(folders: string[], problems: ProblemList): FoundFile[] {
  const found: FoundFile[] = [];
  const seenDirs = new Set<string>();
  for (const folder of folders) {
    const root = path.resolve(folder);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(root);
    } catch {
      problems.add(root, [], 'metadata folder does not exist');
      continue;
    }
    if (!stat.isDirectory()) {
      problems.add(root, [], 'metadata folder is not a directory');
      continue;
    }
    walk(root, found, seenDirs, problems);
  }
  return found;
}

function walk(dir: string, found: FoundFile[], seenDirs: Set<string>, problems: ProblemList): void {
  const real = fs.realpathSync(dir);
  if (seenDirs.has(real)) return;
  seenDirs.add(real);
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    problems.add(dir, [], `cannot read folder: ${(err as Error).message}`);
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      try {
        const st = fs.statSync(full);
        isDir = st.isDirectory();
        isFile = st.isFile();
      } catch {
        continue; // dangling link
      }
    }
    if (isDir) {
      if (entry.name !== 'node_modules') walk(full, found, seenDirs, problems);
    } else if (isFile) {
      const hit = classify(full, entry.name, problems);
      if (hit) found.push(hit);
    }
  }
}

function classify(file: string, name: string, problems: ProblemList): FoundFile | undefined {
  if (YAML_FILE.test(name)) {
    const stem = name.replace(YAML_FILE, '');
    const dot = stem.lastIndexOf('.');
    if (dot <= 0 || dot === stem.length - 1) {
      problems.add(
        file,
        [],
        `file name has no type part: name it <identifier>.<type>${name.slice(stem.length)} (for example ${stem || 'book'}.object.yml)`,
      );
      return undefined;
    }
    return { file, kind: 'yaml', identifier: stem.slice(0, dot), type: stem.slice(dot + 1) };
  }
  const code = CODE_FILE.exec(name);
  if (code) return { file, kind: 'code', identifier: code[1], type: code[2] };
  return undefined;
}
