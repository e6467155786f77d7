/**
 * The problems of one workflow file, each at a key path (`actions[0].url`) and, when the key can
 * be found in the file, its line: the registry keeps the parsed content only, so the file is read
 * again (once, and only when something is wrong) to locate them.
 */
import * as fs from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { describeValue, formatPath, lineOfPath, MetadataError, parseWith, type PathSegment, type Report } from '../../../kernel';

type MetadataProblem = MetadataError['problems'][number];

export type { PathSegment, Report };
export { describeValue, parseWith };

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
