/**
 * Runs a zod schema over parsed metadata and turns its issues into problems with readable
 * reasons: `fields.price.maxx: unknown key`, `fields.price.type: expected a string, got a number`.
 */
import { z } from 'zod';
import type { PathSegment, Report } from './problems';

const EXPECTED: Record<string, string> = {
  object: 'a map',
  record: 'a map',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
};

export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `the string ${JSON.stringify(v)}`;
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' || typeof v === 'symbol' || v === undefined) {
    return `${typeof v} ${String(v)}`;
  }
  return 'a map';
}

/** Default reasons, used wherever a schema gives none of its own. */
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
    case 'unrecognized_keys':
      return 'unknown key';
    default:
      return undefined;
  }
};

/** Parses `value`; on failure reports every issue under `base` and returns undefined. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, base: PathSegment[], report: Report): z.output<S> | undefined {
  const result = schema.safeParse(value, { error: errorMap });
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    const at = [...base, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) report([...at, key], 'unknown key');
    } else {
      report(at, issue.message);
    }
  }
  return undefined;
}
