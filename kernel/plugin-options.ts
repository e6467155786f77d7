/**
 * Plugin options checked with a zod schema, for every plugin alike: the parsed options, or a
 * PluginError `Plugin '<name>': <problems>` naming each wrong key. Problems read as one line: `jwt.secret must be at least 32 characters (256 bits)
 * long`, `apiKeys[0].user.id must be a non-empty string`, `unknown option 'jwt.kid'`. The value
 * given is never repeated (it may be a secret).
 */
import type { z } from 'zod';
import { PluginError } from './plugin-order';

export function parsePluginOptions<S extends z.ZodType>(plugin: string, schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw new PluginError(`Plugin '${plugin}': ${formatOptionIssues(parsed.error.issues)}`);
}

type Issue = z.core.$ZodIssue;
type Path = ReadonlyArray<PropertyKey>;

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
};

export function formatOptionIssues(issues: readonly Issue[]): string {
  return issues.map((issue) => formatIssue(issue, [])).join('; ');
}

function formatIssue(issue: Issue, parent: Path): string {
  const path = [...parent, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => `unknown option '${keyName([...path, k])}'`).join('; ');
  }
  if (issue.code === 'invalid_union') {
    // The branch that got furthest says most (e.g. the url inside {redis: {url}}).
    const deepest = issue.errors
      .map((branch) => branch[0])
      .filter((i): i is Issue => !!i)
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (deepest && deepest.path.length > 0) return formatIssue(deepest, path);
  }
  const message =
    issue.code === 'invalid_type' && !issue.message.startsWith('must')
      ? `must be ${EXPECTED[issue.expected] ?? issue.expected}`
      : issue.message;
  const key = path.length ? keyName(path) : 'options';
  return message.startsWith('must') ? `${key} ${message}` : `${key}: ${message}`;
}

/** ['apiKeys', 0, 'user'] → 'apiKeys[0].user'. */
function keyName(path: Path): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');
}
