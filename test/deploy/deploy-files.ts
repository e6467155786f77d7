/** Reading the container files of the repository (Dockerfile, docker-compose.yml, deploy/) for the deploy tests. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';

export const ROOT = resolve(__dirname, '../..');
export const read = (file: string): string => readFileSync(resolve(ROOT, file), 'utf8');

export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  profiles?: string[];
  healthcheck?: { test: string[] };
}

export interface Compose {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

export function compose(): Compose {
  return parse(read('docker-compose.yml'), { merge: true }) as Compose;
}

/** The names of the environment variables deploy/objectql.config.ts reads (`env('X')` or `optionalEnv('X')`). */
export function deployConfigVariables(): { required: string[]; optional: string[] } {
  const source = read('deploy/objectql.config.ts');
  const names = (fn: string) => [...new Set([...source.matchAll(new RegExp(`\\b${fn}\\('([A-Z0-9_]+)'\\)`, 'g'))].map((m) => m[1]))];
  return { required: names('env'), optional: names('optionalEnv') };
}

/** A compose value as the instance sees it: `${NAME:?message}` or `${NAME:-default}` filled from `given`. */
export function interpolate(value: string, given: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::[?-]([^}]*))?\}/g, (_, name: string) => given[name] ?? '');
}

/** The instructions of a Dockerfile's last stage: [instruction, rest of the line], continuation lines joined. */
export function finalStage(dockerfile: string): Array<[string, string]> {
  const lines = dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const from = lines.map((l, i) => (/^FROM\s/i.test(l) ? i : -1)).filter((i) => i >= 0);
  return lines.slice(from[from.length - 1]).map((l) => {
    const at = l.search(/\s/);
    return [l.slice(0, at).toUpperCase(), l.slice(at + 1).trim()];
  });
}
