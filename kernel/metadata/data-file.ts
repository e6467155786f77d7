/**
 * `<object>.data.yml`: initial records, as a list or `{records: [...]}`. Each record is a map whose
 * keys are fields of the object; ids, when given, are unique. Values are checked by the engine
 * when the records are inserted.
 */
import { z } from 'zod';
import type { FieldDefinition } from './types';
import type { PathSegment, Report } from './problems';
import { parseWith } from './zod-issues';

const recordsSchema = z.array(z.record(z.string(), z.unknown()));
const fileSchema = z.preprocess(
  (v) => (Array.isArray(v) ? { records: v } : v === null ? { records: [] } : v),
  z.strictObject({ name: z.unknown().optional(), records: recordsSchema }),
);

/** Returns the records, or undefined when the file has problems (all reported). */
export function parseDataFile(
  content: unknown,
  object: string,
  fields: Record<string, FieldDefinition>,
  report: Report,
): Record<string, unknown>[] | undefined {
  const list = Array.isArray(content);
  const input = parseWith(fileSchema, content, [], (path, reason) => report(list ? path.slice(1) : path, reason));
  if (!input) return undefined;
  let ok = true;
  const ids = new Map<string, number>();
  input.records.forEach((record, i) => {
    const at: PathSegment[] = list ? [i] : ['records', i];
    for (const key of Object.keys(record)) {
      if (!fields[key]) {
        ok = false;
        report([...at, key], `unknown field '${key}' of object '${object}'`);
      }
    }
    const id = record.id;
    if (id !== undefined && id !== null) {
      if (typeof id !== 'string' && typeof id !== 'number') {
        ok = false;
        report([...at, 'id'], 'id must be a string');
      } else {
        const first = ids.get(String(id));
        if (first !== undefined) {
          ok = false;
          report([...at, 'id'], `duplicate id ${JSON.stringify(id)} (also record [${first}])`);
        } else ids.set(String(id), i);
      }
    }
  });
  return ok ? input.records : undefined;
}
