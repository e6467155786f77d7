/**
 * The file formats of `objectql import` and `export`, streamed both ways: CSV (csv-parse,
 * csv-stringify; a header row names the fields), JSON (one top-level array, read element by
 * element with stream-json) and NDJSON (one record per line).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify';
import { parser } from 'stream-json';
import { streamArray } from 'stream-json/streamers/StreamArray';

export type Format = 'csv' | 'json' | 'ndjson';
export const FORMATS: readonly Format[] = ['csv', 'json', 'ndjson'];

/** One record read from a file: `row` counts from 1 (a CSV file's header is row 0). */
export interface ReadRow {
  row: number;
  record: Record<string, unknown>;
}

/** The format a file's extension names, if any. */
export function formatOf(file: string): Format | undefined {
  const ext = file.toLowerCase().split('.').pop();
  if (ext === 'csv' || ext === 'json' || ext === 'ndjson') return ext;
  return ext === 'jsonl' ? 'ndjson' : undefined;
}

export async function* readRows(file: string, format: Format): AsyncGenerator<ReadRow> {
  let row = 0;
  if (format === 'csv') {
    const rows = createReadStream(file).pipe(parse({ columns: true, bom: true, skip_empty_lines: true, relax_column_count: false }));
    for await (const record of rows) yield { row: ++row, record: record as Record<string, unknown> };
    return;
  }
  if (format === 'ndjson') {
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    for await (const line of lines) {
      row++;
      if (!line.trim()) continue;
      yield { row, record: parseLine(line, row) };
    }
    return;
  }
  const elements = createReadStream(file).pipe(parser()).pipe(streamArray());
  for await (const { value } of elements as AsyncIterable<{ value: unknown }>) {
    row++;
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new Error(`element ${row} of the array is not an object of field values`);
    yield { row, record: value as Record<string, unknown> };
  }
}

function parseLine(line: string, row: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    throw new Error(`line ${row} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`line ${row} is not an object of field values`);
  return value as Record<string, unknown>;
}

/** Writes records to `out` in a format, waiting whenever `out` asks to (its buffer is full). */
export interface RecordWriter {
  write(record: Record<string, unknown>): Promise<void>;
  end(): Promise<void>;
}

export function recordWriter(format: Format, out: Writable, columns: string[]): RecordWriter {
  const put = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  if (format === 'ndjson') {
    return { write: (record) => put(`${JSON.stringify(record)}\n`), end: () => Promise.resolve() };
  }
  if (format === 'json') {
    let first = true;
    return {
      write: (record) => {
        const text = `${first ? '[\n' : ',\n'}${JSON.stringify(record)}`;
        first = false;
        return put(text);
      },
      end: () => put(first ? '[]\n' : '\n]\n'),
    };
  }
  const csv = stringify({ header: true, columns });
  csv.pipe(out, { end: false });
  return {
    write: async (record) => {
      if (!csv.write(columns.map((c) => csvCell(record[c])))) await once(csv, 'drain');
    },
    end: async () => {
      csv.end();
      await once(csv, 'end');
    },
  };
}

/** A value as a CSV cell: null as empty, arrays and objects as JSON. */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
