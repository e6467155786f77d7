/**
 * Collects the problems of one load. Paths are kept as segments until reported, so they can be
 * printed uniformly (`fields.price.maxx`, `rules[2].pattern`) and located in the YAML source.
 */
import { isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import { MetadataError, type MetadataProblem } from './metadata-error';

export type PathSegment = string | number;

/** Reports one problem at a path inside the file it is bound to. */
export type Report = (path: PathSegment[], reason: string) => void;

export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

interface Source {
  doc: Document;
  lines: LineCounter;
}

export class ProblemList {
  private readonly list: MetadataProblem[] = [];
  private readonly sources = new Map<string, Source>();

  /** Remembers a parsed YAML file so problems in it can carry a line number. */
  addSource(file: string, doc: Document, lines: LineCounter): void {
    this.sources.set(file, { doc, lines });
  }

  add(file: string, path: PathSegment[], reason: string, line?: number): void {
    const problem: MetadataProblem = { file, path: formatPath(path), reason };
    const at = line ?? this.locate(file, path);
    if (at !== undefined) problem.line = at;
    this.list.push(problem);
  }

  /** A reporter bound to one file. */
  for(file: string): Report {
    return (path, reason) => this.add(file, path, reason);
  }

  get count(): number {
    return this.list.length;
  }

  all(): MetadataProblem[] {
    return [...this.list];
  }

  throwIfAny(): void {
    if (this.list.length === 0) return;
    // Grouped by file (stable: each file's problems keep the order they were found in).
    const sorted = [...this.list].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    throw MetadataError.fromProblems(sorted);
  }

  /** The line of the deepest node of `path` that exists in the file (the key, for map entries). */
  private locate(file: string, path: PathSegment[]): number | undefined {
    const source = this.sources.get(file);
    return source ? lineOfPath(source.doc.contents, source.lines, path) : undefined;
  }
}

/**
 * The 1-based line of a key path (`['actions', 0, 'url']`) in a parsed YAML document: the deepest
 * node of the path that exists (the key, for map entries). `lines` is the LineCounter the document
 * was parsed with.
 */
export function lineOfPath(contents: unknown, lines: LineCounter, path: readonly PathSegment[]): number | undefined {
  let node: unknown = contents;
  let best: Node | undefined;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === String(seg));
      if (!pair) break;
      best = (pair.key as Node | null) ?? best;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number' && node.items[seg] !== undefined) {
      node = node.items[seg];
      best = (node as Node | null) ?? best;
    } else {
      break;
    }
  }
  const offset = best?.range?.[0];
  return offset === undefined ? undefined : lines.linePos(offset).line;
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  if (typeof key === 'string' || typeof key === 'number') return String(key);
  return undefined;
}

/** Wraps a reporter to count what goes through it (to tell whether a part was valid). */
export function countingReport(report: Report): { report: Report; count: () => number } {
  let n = 0;
  return {
    report: (path, reason) => {
      n += 1;
      report(path, reason);
    },
    count: () => n,
  };
}
