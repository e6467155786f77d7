/**
 * The error that stops start-up when a metadata file is malformed. Each problem names the file,
 * the path inside it (dotted, with [i] for list items; '' for whole-file problems) and what is
 * wrong. One load collects every problem it finds; the error's own file/path/reason are the first
 * one's, `problems` holds them all and the message lists them one per line.
 */
export interface MetadataProblem {
  file: string;
  path: string;
  reason: string;
  /** 1-based line in the file, when it could be located. */
  line?: number;
}

export function formatProblem(p: MetadataProblem): string {
  const where = p.path ? `${p.file}: ${p.path}` : p.file;
  return `${where}: ${p.reason}${p.line !== undefined ? ` (line ${p.line})` : ''}`;
}

/** At most this many problems are spelled out in the message; `problems` always holds all of them. */
const MAX_LISTED = 50;

export class MetadataError extends Error {
  readonly line?: number;
  readonly problems: MetadataProblem[];

  constructor(
    readonly file: string,
    readonly path: string,
    readonly reason: string,
    options: { line?: number; more?: MetadataProblem[] } = {},
  ) {
    const first: MetadataProblem = { file, path, reason, ...(options.line !== undefined ? { line: options.line } : {}) };
    const all = [first, ...(options.more ?? [])];
    const lines = all.slice(0, MAX_LISTED).map(formatProblem);
    if (all.length > MAX_LISTED) lines.push(`... and ${all.length - MAX_LISTED} more problems`);
    super(lines.join('\n'));
    this.name = 'MetadataError';
    if (options.line !== undefined) this.line = options.line;
    this.problems = all;
  }

  static fromProblems(problems: MetadataProblem[]): MetadataError {
    if (problems.length === 0) throw new Error('MetadataError.fromProblems needs at least one problem');
    const [first, ...more] = problems;
    return new MetadataError(first.file, first.path, first.reason, { line: first.line, more });
  }
}
