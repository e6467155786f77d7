/**
 * The TypeScript compiler for tests that type-check what a user would write against generated or
 * published types. One compiler checks several programs in turn: a file it has read once (the
 * standard library, @types/node, the generated module) is parsed and bound once, not once per
 * program, which is most of what a small program costs.
 */
import ts from 'typescript';

/** Checks `files` (and what they import); returns the compiler's diagnostics. */
export type TypeChecker = (files: string[]) => readonly ts.Diagnostic[];

/**
 * A checker keeping the source files it read. A file written after the checker first read it is
 * not read again: give each program's own code a new file name.
 */
export function typeChecker(options: ts.CompilerOptions): TypeChecker {
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  const parsed = new Map<string, ts.SourceFile | undefined>();
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreateNewSourceFile) => {
    if (shouldCreateNewSourceFile || !parsed.has(fileName)) parsed.set(fileName, read(fileName, languageVersion, onError));
    return parsed.get(fileName);
  };
  let previous: ts.Program | undefined;
  return (files) => {
    previous = ts.createProgram(files, options, host, previous);
    return ts.getPreEmitDiagnostics(previous);
  };
}

/** A diagnostic's message, its chain flattened to lines. */
export const diagnosticText = (d: ts.Diagnostic): string => ts.flattenDiagnosticMessageText(d.messageText, '\n');
