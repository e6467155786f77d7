/**
 * Webhook signatures: `X-ObjectQL-Signature: sha256=<hex>`, the HMAC-SHA256 (key: the action's
 * secret) of `<X-ObjectQL-Timestamp>.<the body as sent>`. A receiver recomputes it over the raw
 * body, compares in constant time, and refuses an old timestamp (replays).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-ObjectQL-Signature';
export const TIMESTAMP_HEADER = 'X-ObjectQL-Timestamp';
export const DELIVERY_HEADER = 'X-ObjectQL-Delivery';

/** `sha256=<hex>` for one timestamp (unix seconds) and body. */
export function signPayload(secret: string, timestamp: number | string, body: string | Buffer): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`);
  hmac.update(body);
  return `sha256=${hmac.digest('hex')}`;
}

/**
 * What a receiver does: true when `signature` is the body's signature for that timestamp and the
 * timestamp is within `toleranceSeconds` of `now` (unix seconds).
 */
export function verifySignature(
  secret: string,
  signature: string | undefined,
  timestamp: string | undefined,
  body: string | Buffer,
  options: { toleranceSeconds?: number; now?: number } = {},
): boolean {
  if (!signature || !timestamp || !/^\d+$/.test(timestamp)) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signPayload(secret, timestamp, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
