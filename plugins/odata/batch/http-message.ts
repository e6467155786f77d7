/**
 * The HTTP messages inside `application/http` parts: a start line, header lines, an empty line
 * and the body (RFC 9112 message syntax, no chunked coding). A Content-Length, when given, bounds
 * the body; otherwise the body runs to the end of the part.
 */
import { STATUS_CODES } from 'node:http';
import { batchError } from './errors';
import { splitHeaders, writeHeaders } from './multipart';

export interface HttpRequestMessage {
  method: string;
  /** The request target exactly as written (absolute URL, absolute path, relative path or $<Content-ID>…). */
  target: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface HttpResponseMessage {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const REQUEST_LINE = /^([A-Za-z]+) +(\S(?:.*\S)?) +HTTP\/\d\.\d$/;
const STATUS_LINE = /^HTTP\/\d\.\d (\d{3})(?: .*)?$/;

export function parseHttpRequest(content: Buffer, where: string): HttpRequestMessage {
  const { start, headers, body } = splitHeaders(content, where, true);
  if (start === undefined) throw batchError('the part holds no HTTP request', where);
  const m = REQUEST_LINE.exec(start);
  if (!m) throw batchError(`malformed request line '${start.slice(0, 120)}' (expected 'METHOD URL HTTP/1.1')`, where);
  return { method: m[1].toUpperCase(), target: m[2], headers, body: bounded(body, headers, where) };
}

export function parseHttpResponse(content: Buffer, where: string): HttpResponseMessage {
  const { start, headers, body } = splitHeaders(content, where, true);
  const m = start === undefined ? null : STATUS_LINE.exec(start);
  if (!m) throw batchError(`malformed status line '${(start ?? '').slice(0, 120)}'`, where);
  return { status: Number(m[1]), headers, body: bounded(body, headers, where) };
}

function bounded(body: Buffer, headers: Record<string, string>, where: string): Buffer {
  const length = headers['content-length'];
  if (length === undefined) return isBlank(body) ? body.subarray(0, 0) : body;
  if (!/^\d{1,15}$/.test(length)) throw batchError(`malformed Content-Length '${length}'`, where);
  const n = Number(length);
  if (n > body.length) throw batchError(`Content-Length is ${n} but the body has ${body.length} bytes`, where);
  return body.subarray(0, n);
}

/** Only blanks and line breaks (what separates a missing body from the next delimiter). */
function isBlank(body: Buffer): boolean {
  return body.every((b) => b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a);
}

export function writeHttpRequest(msg: { method: string; target: string; headers: Record<string, string>; body?: Buffer | string }): Buffer {
  return message(`${msg.method} ${msg.target} HTTP/1.1`, msg.headers, msg.body);
}

export function writeHttpResponse(msg: { status: number; headers: Record<string, string>; body?: Buffer | string }): Buffer {
  return message(`HTTP/1.1 ${msg.status} ${STATUS_CODES[msg.status] ?? 'Unknown'}`, msg.headers, msg.body);
}

function message(startLine: string, headers: Record<string, string>, body: Buffer | string | undefined): Buffer {
  const head = Buffer.from(`${startLine}\r\n${writeHeaders(headers)}\r\n`, 'utf8');
  if (body === undefined) return head;
  return Buffer.concat([head, typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}
