/**
 * The problems of one workflow file, each at a key path (`actions[0].url`) and, when the key can
 * be found in the file, its line: the registry keeps the parsed content only, so the file is read
 * again (once, and only when something is wrong) to locate them.
 */
import * as fs from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { formatPath, lineOfPath, MetadataError, type PathSegment } from '../../../kernel';

type MetadataProblem = MetadataError['problems'][number];

export type { PathSegment };

/** Reports one problem at a path inside the file being read. */
export type Report = (path: PathSegment[], reason: string) => void;

export { formatPath };

export class WorkflowProblems {
  private readonly list: { file: string; path: PathSegment[]; reason: string }[] = [];

  for(file: string): Report {
    return (path, reason) => this.list.push({ file, path: [...path], reason });
  }

  get count(): number {
    return this.list.length;
  }

  /** Throws one MetadataError listing every problem (file, key path, line), grouped by file. */
  throwIfAny(): void {
    if (this.list.length === 0) return;
    const located = new Map<string, Locator | undefined>();
    const problems: MetadataProblem[] = this.list.map(({ file, path, reason }) => {
      if (!located.has(file)) located.set(file, Locator.read(file));
      const line = located.get(file)?.line(path);
      return { file, path: formatPath(path), reason, ...(line !== undefined ? { line } : {}) };
    });
    problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    throw MetadataError.fromProblems(problems);
  }
}

/** Finds the line of a key path in a YAML file (the deepest node of the path that exists). */
export class Locator {
  private constructor(
    private readonly contents: unknown,
    private readonly lines: LineCounter,
  ) {}

  static read(file: string): Locator | undefined {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    return Locator.parse(text);
  }

  static parse(text: string): Locator {
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, merge: true });
    return new Locator(doc.contents, lines);
  }

  line(path: readonly PathSegment[]): number | undefined {
    return lineOfPath(this.contents, this.lines, path);
  }
}

export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `the string ${JSON.stringify(v)}`;
  if (typeof v === 'object' || typeof v === 'function') return 'a map';
  if (v === undefined) return 'undefined';
  if (typeof v === 'bigint' || typeof v === 'symbol') return `${typeof v} ${v.toString()}`;
  return `${typeof v} ${JSON.stringify(v)}`;
}

const EXPECTED: Record<string, string> = {
  object: 'a map',
  record: 'a map',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
};

/** Reasons for zod's issues where a schema gives none of its own. */
const errorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${describeValue(issue.input)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => String(v)).join(', ')} (got ${describeValue(issue.input)})`;
    case 'too_small':
      if ((issue.origin === 'array' || issue.origin === 'string') && Number(issue.minimum) === 1) return 'must not be empty';
      return `must be ${issue.inclusive ? 'at least' : 'greater than'} ${String(issue.minimum)}`;
    case 'too_big':
      return `must be ${issue.inclusive ? 'at most' : 'less than'} ${String(issue.maximum)}`;
    default:
      return undefined;
  }
};

/** Parses `value` with `schema`; each issue is reported at its path below `base`. Undefined when invalid. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, base: PathSegment[], report: Report): z.output<S> | undefined {
  const result = schema.safeParse(value, { error: errorMap });
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    const at = [...base, ...issue.path.filter((p): p is PathSegment => typeof p !== 'symbol')];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) report([...at, key], 'unknown key');
    } else {
      report(at, issue.message);
    }
  }
  return undefined;
}
