/**
 * A typed OData client generated the way its users make one: odata2ts's CLI (@odata2ts/odata2ts,
 * `odata2ts --source metadata.xml --output client --mode all --emit-mode ts`) run on the `$metadata`
 * the live service served, into a fresh folder under the OS temp directory (never committed). The
 * generated TypeScript (models, query objects, the service) is then type-checked together with a
 * usage program by the TypeScript compiler API, and loaded at run time through tsx (which the test
 * runner already registers), so the program that runs is the one that compiled.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { diagnosticText, typeChecker } from '../../../helpers/type-check';

const ROOT = resolve(__dirname, '../../../..');
const CLI = join(ROOT, 'node_modules/@odata2ts/odata2ts/lib/run-cli.js');
/** The usage program: TypeScript written against the generated client, kept as text because that client exists only at test time. */
export const USAGE_TEMPLATE = join(__dirname, 'usage.ts.tmpl');

/** Strict, as an application using the client would compile it. */
const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  esModuleInterop: true,
  skipLibCheck: true,
  types: ['node'],
};

export interface GeneratedClient {
  /** The folder holding metadata.xml, tsconfig.json and client/. */
  dir: string;
  /** The generated files and usage.ts, absolute paths. */
  files: string[];
  /** What the generator printed. */
  log: string;
  remove(): Promise<void>;
}

/**
 * Runs the generator on `metadataXml` in a new temp folder (with node_modules linked in, so the
 * generated imports of @odata2ts/* resolve), and adds the usage program as client/usage.ts. A
 * generator failure rejects with everything it printed.
 */
export async function generateClient(metadataXml: string): Promise<GeneratedClient> {
  const dir = await mkdtemp(join(tmpdir(), 'objectql-odata2ts-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    // The generator reads tsconfig.json from its working directory even when it emits TypeScript.
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true } }),
    );
    await writeFile(join(dir, 'metadata.xml'), metadataXml);
    const args = [CLI, '--source', 'metadata.xml', '--output', 'client', '--mode', 'all', '--emit-mode', 'ts'];
    let log: string;
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, args, { cwd: dir });
      log = stdout + stderr;
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`odata2ts failed on the service's $metadata: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: err });
    }
    if (!log.includes('Successfully finished!')) throw new Error(`odata2ts did not finish:\n${log}`);
    const client = join(dir, 'client');
    await copyFile(USAGE_TEMPLATE, join(client, 'usage.ts'));
    const files = (await readdir(client)).filter((f) => f.endsWith('.ts')).map((f) => join(client, f));
    return { dir, files, log, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}

/**
 * A compiler for the client generated in `baseDir`: called with files, it gives their diagnostics (and those of
 * what they import), one formatted line each; none when they type-check. The generated files are read once.
 */
export function clientTypeChecker(baseDir: string): (files: string[]) => string[] {
  const checkTypes = typeChecker(COMPILER_OPTIONS);
  return (files) => formatted(checkTypes(files), baseDir);
}

function formatted(diagnostics: readonly ts.Diagnostic[], baseDir: string): string[] {
  return diagnostics.map((d) => {
    const text = diagnosticText(d);
    if (!d.file || d.start === undefined) return text;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName.replace(baseDir, '.')}:${line + 1}:${character + 1} TS${d.code}: ${text}`;
  });
}
