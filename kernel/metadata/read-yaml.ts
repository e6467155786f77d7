/** Reads one YAML metadata file; a syntax error comes back with its line and column. */
import * as fs from 'node:fs';
import { LineCounter, parseDocument, type Document } from 'yaml';

export type YamlResult = { ok: true; value: unknown; doc: Document; lines: LineCounter } | { ok: false; reason: string; line?: number };

export function readYaml(file: string): YamlResult {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return { ok: false, reason: `cannot read file: ${(err as Error).message}` };
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, merge: true });
  const error = doc.errors[0];
  if (error) {
    const pos = lines.linePos(error.pos[0]);
    const message = error.message.split('\n')[0].replace(/\s+at line \d+, column \d+:?\s*$/, '');
    return { ok: false, reason: `YAML syntax error at line ${pos.line}, column ${pos.col}: ${message}`, line: pos.line };
  }
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }), doc, lines };
  } catch (err) {
    return { ok: false, reason: `invalid YAML: ${(err as Error).message}` };
  }
}
