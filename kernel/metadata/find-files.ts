/**
 * Finds the metadata files of a set of folders: `<identifier>.<type>.yml|yaml` and
 * `<object>.hook|action.(ts|js)`, searched recursively, skipping node_modules and dot folders.
 * Other files (README, helper modules imported by hooks) are not metadata and are left alone,
 * unless their name is a near miss of a metadata file's (`invoice.hooks.ts`,
 * `invoice.permission.json`), and a YAML file of a type that is not known stops start-up.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MetadataTypes } from './metadata-types';
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
/** Any `<identifier>.<type>.<code extension>`: checked for a near miss of a hook or action file. */
const TYPED_CODE_FILE = /^(.+)\.([^.]+)\.(ts|js|mts|cts|mjs|cjs)$/i;
const TYPED_JSON_FILE = /^(.+)\.([^.]+)\.json$/i;

interface Walk {
  found: FoundFile[];
  seenDirs: Set<string>;
  problems: ProblemList;
  types: MetadataTypes;
}

export function findMetadataFiles(folders: string[], problems: ProblemList, types: MetadataTypes): FoundFile[] {
  const walk: Walk = { found: [], seenDirs: new Set<string>(), problems, types };
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
    walkDir(root, walk);
  }
  return walk.found;
}

function walkDir(dir: string, walk: Walk): void {
  const { seenDirs, problems } = walk;
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
      if (entry.name !== 'node_modules') walkDir(full, walk);
    } else if (isFile) {
      const hit = classify(full, entry.name, walk);
      if (hit) walk.found.push(hit);
    }
  }
}

function classify(file: string, name: string, { problems, types }: Walk): FoundFile | undefined {
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
    const identifier = stem.slice(0, dot);
    const type = stem.slice(dot + 1);
    const problem = types.yamlProblem(identifier, type, name.slice(stem.length));
    if (problem) {
      problems.add(file, [], problem);
      return undefined;
    }
    return { file, kind: 'yaml', identifier, type };
  }
  const code = CODE_FILE.exec(name);
  if (code) return { file, kind: 'code', identifier: code[1], type: code[2] };
  const typedCode = TYPED_CODE_FILE.exec(name);
  const typedJson = TYPED_JSON_FILE.exec(name);
  const problem =
    (typedCode && types.codeProblem(typedCode[1], typedCode[2])) || (typedJson && types.jsonProblem(typedJson[1], typedJson[2]));
  if (problem) problems.add(file, [], problem);
  return undefined;
}
