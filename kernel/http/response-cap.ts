/**
 * limits.maxResponseBytes: one cap on the JSON and text responses of every protocol, set on one
 * express app's own response object (`res.json`, `res.send`), so every route of every plugin
 * mounted on it is covered. A value is measured before it is serialised, so an oversized one is
 * refused without building its text. Streams and `res.end` (files) are not capped: their size
 * is bounded by the file limits.
 */
import type { Express, Request, Response } from 'express';
import { ObjectQLError } from '../errors';

/** Headers a route may have set for the body it meant to send, which the error answered instead must not carry. */
const BODY_HEADERS = ['Content-Type', 'Content-Length', 'Content-Disposition', 'Content-Encoding', 'ETag', 'Last-Modified'];

export type Refuse = (req: Request, res: Response, error: ObjectQLError) => void;

export function capResponses(app: Express, maxBytes: number, refuse: Refuse): void {
  const { json, send } = app.response;
  const tooLarge = (res: Response) => {
    for (const name of BODY_HEADERS) res.removeHeader(name);
    const error = new ObjectQLError(
      'INVALID_REQUEST',
      `The response would be larger than ${maxBytes} bytes, the limit: ask for fewer records (top) or fewer fields`,
      { limit: 'maxResponseBytes', max: maxBytes },
    );
    res.req.log?.warn({ limit: 'maxResponseBytes', max: maxBytes }, 'response refused: too large');
    refuse(res.req, res, error);
    return res;
  };
  app.response.json = function capJson(this: Response, body?: unknown) {
    if (jsonSizeAtLeast(body, maxBytes) > maxBytes) return tooLarge(this);
    return json.call(this, body);
  };
  app.response.send = function capSend(this: Response, body?: unknown) {
    const size = typeof body === 'string' ? Buffer.byteLength(body) : Buffer.isBuffer(body) ? body.length : 0;
    if (size > maxBytes) return tooLarge(this);
    return send.call(this, body);
  };
}

/**
 * A lower bound of the length of `JSON.stringify(value)`, walked without recursion and without
 * serialising, stopping once it passes `max`. Lower, because escapes and multi-byte characters
 * only lengthen the text: what passes here is measured exactly once serialised.
 */
export function jsonSizeAtLeast(value: unknown, max: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length && size <= max) {
    let v = stack.pop();
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      v = (v as { toJSON: () => unknown }).toJSON();
    }
    if (typeof v === 'string') size += v.length + 2;
    else if (typeof v === 'number' || typeof v === 'bigint') size += 1;
    else if (typeof v === 'boolean' || v === null) size += 4;
    else if (Array.isArray(v)) {
      size += 1 + Math.max(1, v.length);
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (typeof v === 'object') {
      size += 2;
      for (const key of Object.keys(v)) {
        const child = (v as Record<string, unknown>)[key];
        if (child === undefined || typeof child === 'function' || typeof child === 'symbol') continue;
        size += key.length + 3; // "key": (the commas between members not counted)
        stack.push(child);
      }
    }
  }
  return size;
}
