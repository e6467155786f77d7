/**
 * The kernel's JSON body parser (limits.maxBodyBytes, limits.maxJsonDepth) and what its failures
 * answer: every one is the caller's (malformed JSON or compression, too large, too deep, an
 * unsupported encoding), so every one is INVALID_REQUEST, never a 500.
 */
import express, { type RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';
import { ObjectQLError } from '../errors';
import { assertJsonTextDepth } from '../protocol/json-depth';
import { withPlainJson } from './json-read';

export interface BodyLimits {
  maxBodyBytes: number;
  maxJsonDepth: number;
}

export function jsonBodyParser(limits: BodyLimits): RequestHandler {
  const general = express.json({
    limit: limits.maxBodyBytes,
    strict: false,
    type: ['application/json', 'application/*+json'],
    // On the raw text, before JSON.parse: nothing after it (filters, JSON values) may recurse over a deeper value.
    verify: (_req, _res, buf, encoding) => assertJsonTextDepth(decode(buf, encoding), limits.maxJsonDepth, 'The request body'),
  });
  // The common case (UTF-8 JSON, not compressed, with a Content-Length) is read by hand: json-read.ts.
  return withPlainJson(limits, general);
}

/** The answer to a body the parser refused (an error not of the caller's making is handed back as it is). */
export function bodyError(err: unknown, req: IncomingMessage): unknown {
  // A refusal of ours (verify): a fresh copy, without what body-parser attached (the raw body).
  if (err instanceof ObjectQLError) return new ObjectQLError(err.code, err.message, err.details);
  const e = (err ?? {}) as { type?: string; status?: number; limit?: number; message?: string; code?: string };
  switch (e.type) {
    case 'entity.parse.failed':
      return new ObjectQLError('INVALID_REQUEST', `Malformed JSON in request body: ${e.message}`);
    case 'entity.too.large':
      return new ObjectQLError('INVALID_REQUEST', `Request body is larger than the limit of ${e.limit} bytes`, {
        limit: 'maxBodyBytes',
        max: e.limit,
      });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ObjectQLError('INVALID_REQUEST', e.message ?? 'Unsupported body encoding');
    case 'request.size.invalid':
      return new ObjectQLError('INVALID_REQUEST', 'The request body does not have the length its Content-Length says');
    case 'request.aborted':
      return new ObjectQLError('INVALID_REQUEST', 'The request body was not sent to its end');
  }
  const encoding = req.headers['content-encoding'];
  // zlib's failure (Z_DATA_ERROR, a brotli error code …) on a body that does not decompress.
  if (encoding && encoding !== 'identity' && (e.code?.startsWith('Z_') || e.code?.startsWith('ERR_')))
    return new ObjectQLError('INVALID_REQUEST', `The request body is not valid ${encoding} data (Content-Encoding: ${encoding})`);
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500)
    return new ObjectQLError('INVALID_REQUEST', 'Malformed request body');
  return err;
}

/** The body's text in the charset body-parser found (utf-8 unless the Content-Type names another utf-*). */
function decode(buf: Buffer, encoding: string): string {
  return Buffer.isEncoding(encoding) ? buf.toString(encoding) : new TextDecoder(encoding).decode(buf);
}
