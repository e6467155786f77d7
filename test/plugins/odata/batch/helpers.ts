/** Builds $batch request bodies and reads batch responses, for the batch tests. */
import { expect } from 'chai';
import {
  boundaryOf,
  parseHttpResponse,
  parseMediaType,
  parseMultipart,
  writeHttpRequest,
  writeMultipart,
} from '../../../../plugins/odata/batch';

export interface PartRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** A JSON value (sent as application/json) or a string sent as is. */
  body?: unknown;
  contentId?: string;
}

export type BatchItem = PartRequest | { changeset: PartRequest[]; boundary?: string };

function requestPart(r: PartRequest) {
  const headers: Record<string, string> = { ...(r.headers ?? {}) };
  let body: string | undefined;
  if (r.body !== undefined) {
    body = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    if (typeof r.body !== 'string') headers['Content-Type'] ??= 'application/json';
  }
  const part: Record<string, string> = { 'Content-Type': 'application/http', 'Content-Transfer-Encoding': 'binary' };
  if (r.contentId !== undefined) part['Content-ID'] = r.contentId;
  return { headers: part, body: writeHttpRequest({ method: r.method, target: r.url, headers, body }) };
}

/** A multipart/mixed batch body and its Content-Type; `lf` writes bare LF line endings. */
export function multipartBatch(
  items: BatchItem[],
  options: { boundary?: string; lf?: boolean } = {},
): { contentType: string; body: Buffer } {
  const boundary = options.boundary ?? 'batch_test';
  const parts = items.map((item, i) => {
    if (!('changeset' in item)) return requestPart(item);
    const inner = item.boundary ?? `changeset_${i}`;
    return {
      headers: { 'Content-Type': `multipart/mixed; boundary=${inner}` },
      body: writeMultipart(inner, item.changeset.map(requestPart)),
    };
  });
  let body = writeMultipart(boundary, parts);
  if (options.lf) body = Buffer.from(body.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
  return { contentType: `multipart/mixed; boundary=${boundary}`, body };
}

export interface ReadResponse {
  status: number;
  headers: Record<string, string>;
  body?: any;
  contentId?: string;
}

export type ReadItem = ReadResponse | { changeset: ReadResponse[] };

function readResponsePart(part: { headers: Record<string, string>; body: Buffer }, where: string): ReadResponse {
  expect(part.headers['content-type'], where).to.equal('application/http');
  expect(part.headers['content-transfer-encoding'], where).to.equal('binary');
  const msg = parseHttpResponse(part.body, where);
  const text = msg.body.toString('utf8');
  const json = (msg.headers['content-type'] ?? '').startsWith('application/json');
  return {
    status: msg.status,
    headers: msg.headers,
    ...(text ? { body: json ? JSON.parse(text) : text } : {}),
    ...(part.headers['content-id'] !== undefined ? { contentId: part.headers['content-id'] } : {}),
  };
}

/** A multipart batch response, read back part by part (checking the framing as it goes). */
export function readMultipartResponse(contentType: string, body: Buffer | string): ReadItem[] {
  const media = parseMediaType(contentType);
  expect(media.type).to.equal('multipart/mixed');
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  return parseMultipart(buffer, boundaryOf(media), { maxParts: 1000 }).map((part, i) => {
    const type = parseMediaType(part.headers['content-type'] ?? '');
    if (type.type !== 'multipart/mixed') return readResponsePart(part, `part ${i + 1}`);
    return {
      changeset: parseMultipart(part.body, boundaryOf(type), { maxParts: 1000 }).map((p, j) =>
        readResponsePart(p, `part ${i + 1}.${j + 1}`),
      ),
    };
  });
}
