/**
 * The common JSON body read by hand: `application/json` in UTF-8, not compressed, with a
 * Content-Length within the limit — what nearly every API request sends. body-parser's generality
 * (type and charset parsing, iconv decoders, an async resource, five stream listeners, http-errors)
 * cost more per request than reading and parsing a small body; everything else still goes through
 * it (json-body.ts). Its failures carry body-parser's error types, so bodyError answers both alike.
 *
 * The listeners are shared functions finding their read on the request (no closures per request).
 * `next` runs in the stream's async context, where body-parser bound it to the middleware's: nothing
 * before the parser holds an AsyncLocalStorage store (transactions start in the handlers).
 */
import type { RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';
import { assertJsonTextDepth } from '../protocol/json-depth';

/** Media types body-parser reads as application/json in UTF-8 (no charset: its default). */
const PLAIN_JSON = /^application\/json(?:; ?charset=utf-8)?$/i;
const DIGITS = /^\d{1,15}$/;
const READ = Symbol('json body read');

interface Read {
  length: number;
  maxDepth: number;
  done: (err?: unknown) => void;
  received: number;
  first: Buffer | undefined;
  more: Buffer[] | undefined;
}

type BodyRequest = IncomingMessage & { body?: unknown; [READ]?: Read };

/** `general` (body-parser) with the common case read here instead. */
export function withPlainJson(limits: { maxBodyBytes: number; maxJsonDepth: number }, general: RequestHandler): RequestHandler {
  const { maxBodyBytes, maxJsonDepth } = limits;
  return (req, res, next) => {
    const length = plainJsonLength(req, maxBodyBytes);
    if (length < 0) general(req, res, next);
    else readPlainJson(req, length, maxJsonDepth, next);
  };
}

/**
 * The Content-Length of a request this reader takes, or -1 for one to leave to body-parser: another
 * type, charset or Content-Encoding, a chunked or too large body, or a request body-parser would
 * not read (its on-finished check).
 */
function plainJsonLength(req: IncomingMessage, maxBytes: number): number {
  const headers = req.headers;
  const length = headers['content-length'];
  if (length === undefined || headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined) return -1;
  const type = headers['content-type'];
  if (type === undefined || (type !== 'application/json' && !PLAIN_JSON.test(type)) || !DIGITS.test(length)) return -1;
  const bytes = Number(length);
  if (bytes > maxBytes) return -1;
  const socket = req.socket;
  if (!socket || !socket.readable || (req.complete && !req.readable)) return -1;
  return bytes;
}

/** Reads the body of `length` bytes into req.body, then calls `done` with nothing or the refusal. */
function readPlainJson(req: BodyRequest, length: number, maxDepth: number, done: (err?: unknown) => void): void {
  if (!('body' in req)) req.body = undefined;
  req[READ] = { length, maxDepth, done, received: 0, first: undefined, more: undefined };
  req.on('data', onData);
  req.on('end', onEnd);
  // Destroyed before its end: the client went away (or a timeout closed it).
  req.on('aborted', onAborted);
}

function onData(this: BodyRequest, chunk: Buffer): void {
  const read = this[READ]!;
  read.received += chunk.length;
  if (read.first === undefined) read.first = chunk;
  else (read.more ??= [read.first]).push(chunk);
}

function onEnd(this: BodyRequest): void {
  const read = finish(this);
  if (read.received !== read.length) return read.done(failure('request.size.invalid'));
  const buf = read.more ? Buffer.concat(read.more, read.received) : read.first;
  let text = buf ? buf.toString('utf8') : '';
  // body-parser decodes with iconv-lite, which drops a byte order mark.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    assertJsonTextDepth(text, read.maxDepth, 'The request body');
  } catch (err) {
    return read.done(err);
  }
  if (text.length === 0) this.body = {};
  else {
    try {
      this.body = JSON.parse(text);
    } catch (err) {
      return read.done(failure('entity.parse.failed', err));
    }
  }
  read.done();
}

function onAborted(this: BodyRequest): void {
  finish(this).done(failure('request.aborted'));
}

/** A failure as body-parser reports it (its `type`), for bodyError to answer; a parse failure keeps the parser's message. */
function failure(type: string, cause?: unknown): Error {
  return Object.assign(cause instanceof Error ? cause : new Error(type), { type });
}

function finish(req: BodyRequest): Read {
  const read = req[READ]!;
  req[READ] = undefined;
  req.off('data', onData);
  req.off('end', onEnd);
  req.off('aborted', onAborted);
  return read;
}
