/**
 * multipart/mixed (RFC 2046) as OData batches use it, written by hand: the parsers on npm serve
 * multipart/form-data (busboy, formidable, multer) and none reads nested multipart/mixed
 * changesets holding HTTP messages. Small and strict: a boundary of RFC 2046's characters, a
 * delimiter only at the start of a line, a closing delimiter required, header lines of the form
 * `Name: value`. CRLF and bare LF line endings are both read; CRLF is written. The line break
 * before a delimiter belongs to the delimiter (RFC 2046 §5.1.1), not to the part's body. Header
 * lines are read and written as UTF-8 (ASCII in practice); bodies are bytes.
 */
import { batchError } from './errors';

export interface MimePart {
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
}

export interface MediaType {
  /** Lower-case type/subtype. */
  type: string;
  /** Lower-case names; values unquoted. */
  params: Record<string, string>;
}

const LF = 0x0a;
const CR = 0x0d;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 2046 bchars: 1 to 70 of these, not ending in a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** A Content-Type value: its media type and parameters (quoted values unquoted). */
export function parseMediaType(value: string, where?: string): MediaType {
  const semi = value.indexOf(';');
  const type = (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(type)) throw batchError(`malformed Content-Type '${value}'`, where);
  const params: Record<string, string> = {};
  let rest = semi < 0 ? '' : value.slice(semi + 1);
  while (rest.trim()) {
    const m = /^\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;"\s]*)\s*(?:;|$)/.exec(rest);
    if (!m || !TOKEN.test(m[1])) throw batchError(`malformed parameter in Content-Type '${value}'`, where);
    const raw = m[2];
    params[m[1].toLowerCase()] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    rest = rest.slice(m[0].length);
  }
  return { type, params };
}

/** The boundary of a multipart/mixed Content-Type, checked against RFC 2046. */
export function boundaryOf(media: MediaType, where?: string): string {
  const boundary = media.params.boundary;
  if (boundary === undefined) throw batchError(`Content-Type '${media.type}' has no boundary parameter`, where);
  if (!BOUNDARY.test(boundary)) throw batchError(`boundary '${boundary}' is not 1 to 70 of the characters RFC 2046 allows`, where);
  return boundary;
}

interface Delimiter {
  /** Where the line break before the delimiter starts (the end of the previous part). */
  lineStart: number;
  /** Just after the delimiter line. */
  after: number;
  close: boolean;
}

/** The next delimiter line at or after `from`: `--boundary` at a line start, then `--` or optional blanks and a line break. */
function nextDelimiter(body: Buffer, delimiter: Buffer, from: number): Delimiter | undefined {
  for (let i = body.indexOf(delimiter, from); i >= 0; i = body.indexOf(delimiter, i + 1)) {
    if (i !== 0 && body[i - 1] !== LF) continue;
    let j = i + delimiter.length;
    const lineStart = i === 0 ? 0 : Math.max(from, i - (i >= 2 && body[i - 2] === CR ? 2 : 1));
    if (body[j] === 0x2d && body[j + 1] === 0x2d) return { lineStart, after: j + 2, close: true };
    while (body[j] === 0x20 || body[j] === 0x09) j++;
    if (body[j] === CR && body[j + 1] === LF) return { lineStart, after: j + 2, close: false };
    if (body[j] === LF) return { lineStart, after: j + 1, close: false };
  }
  return undefined;
}

/**
 * The parts of a multipart body (preamble and epilogue ignored). `maxParts` stops the parse as soon
 * as there are more (the error names `limit`, the whole batch's, when given); `where` names the
 * body in errors ('part 3' for a changeset).
 */
export function parseMultipart(body: Buffer, boundary: string, options: { maxParts: number; where?: string; limit?: number }): MimePart[] {
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const label = (n: number) => (options.where ? `${options.where}.${n}` : `part ${n}`);
  let current = nextDelimiter(body, delimiter, 0);
  if (!current) throw batchError(`no delimiter line '--${boundary}' found`, options.where);
  const parts: MimePart[] = [];
  while (!current.close) {
    const next = nextDelimiter(body, delimiter, current.after);
    if (!next) throw batchError(`the body ends without the closing delimiter '--${boundary}--'`, options.where);
    if (parts.length >= options.maxParts)
      throw batchError(`more than ${options.limit ?? options.maxParts} requests in one batch`, options.where);
    parts.push(parseMimePart(body.subarray(current.after, next.lineStart), label(parts.length + 1)));
    current = next;
  }
  return parts;
}

function parseMimePart(content: Buffer, where: string): MimePart {
  const { headers, body } = splitHeaders(content, where);
  return { headers, body };
}

/**
 * Header lines up to the first empty line, and what follows (a message with no empty line is all
 * headers). Continuation lines (starting with a blank) extend the previous header; a repeated
 * header is joined with ', '.
 */
export function splitHeaders(
  content: Buffer,
  where: string,
  firstLine = false,
): { start?: string; headers: Record<string, string>; body: Buffer } {
  const headers: Record<string, string> = {};
  let pos = 0;
  let start: string | undefined;
  let last: string | undefined;
  while (pos < content.length) {
    const eol = content.indexOf(LF, pos);
    const end = eol < 0 ? content.length : eol;
    const line = content.toString('utf8', pos, end > pos && content[end - 1] === CR ? end - 1 : end);
    pos = eol < 0 ? content.length : eol + 1;
    if (firstLine && start === undefined) {
      // RFC 9112 §2.2: empty lines before the start line are ignored.
      if (line === '') continue;
      start = line;
      continue;
    }
    if (line === '') return { start, headers, body: content.subarray(pos) };
    if ((line[0] === ' ' || line[0] === '\t') && last) {
      headers[last] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!TOKEN.test(name)) throw batchError(`malformed header line '${line.slice(0, 80)}'`, where);
    last = name.toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[last] = Object.prototype.hasOwnProperty.call(headers, last) ? `${headers[last]}, ${value}` : value;
  }
  return { start, headers, body: content.subarray(content.length) };
}

/** A multipart body: each part's headers, an empty line and its body; CRLF throughout. */
export function writeMultipart(boundary: string, parts: Array<{ headers: Record<string, string>; body: Buffer | string }>): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n${writeHeaders(part.headers)}\r\n`, 'utf8'));
    chunks.push(typeof part.body === 'string' ? Buffer.from(part.body, 'utf8') : part.body);
    chunks.push(Buffer.from('\r\n', 'latin1'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
  return Buffer.concat(chunks);
}

/** `Name: value` lines, each ending in CRLF; line breaks inside a value are dropped. */
export function writeHeaders(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${String(value).replace(/[\r\n]+/g, ' ')}\r\n`)
    .join('');
}
