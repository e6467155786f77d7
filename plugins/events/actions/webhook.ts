/**
 * A webhook action: one HTTP request to the workflow's URL, after the SSRF guard (ssrf.ts), to the
 * address the guard checked. Resolves on a 2xx; throws an Error naming the status (and the start
 * of the response body) otherwise, on a timeout, or when the connection fails. Redirects are not
 * followed (a 3xx fails): a redirect could lead anywhere.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookAction } from '../types';
import { resolveTarget, type LookupAll } from './ssrf';
import { DELIVERY_HEADER, SIGNATURE_HEADER, signPayload, TIMESTAMP_HEADER } from './signature';

/** At most this much of a response is read (the rest is dropped). */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** At most this much of a response body is quoted in an error message. */
const QUOTED_BYTES = 200;

export interface WebhookSettings {
  allowHosts: readonly string[];
  /** The largest request body sent. */
  maxBodyBytes: number;
  /** For tests: how host names resolve (default: the system resolver). */
  lookup?: LookupAll;
}

export interface WebhookRequest {
  deliveryId: string;
  /** The JSON body (already rendered). */
  body: unknown;
  signal: AbortSignal;
  /** Unix seconds; default now. */
  timestamp?: number;
}

export interface WebhookResponse {
  status: number;
  /** The start of the response body (at most MAX_RESPONSE_BYTES). */
  body: string;
}

/** The headers sent: the action's (except those it may not override) and the standard ones. */
export function webhookHeaders(action: WebhookAction, deliveryId: string, timestamp: number, body: string): Record<string, string> {
  const standard: Record<string, string> = {
    'Content-Type': 'application/json',
    'Idempotency-Key': deliveryId,
    [DELIVERY_HEADER]: deliveryId,
    [TIMESTAMP_HEADER]: String(timestamp),
  };
  if (action.secret !== undefined) standard[SIGNATURE_HEADER] = signPayload(action.secret, timestamp, body);
  const reserved = new Set([...Object.keys(standard), SIGNATURE_HEADER, 'content-length', 'host'].map((h) => h.toLowerCase()));
  const own = Object.fromEntries(Object.entries(action.headers).filter(([name]) => !reserved.has(name.toLowerCase())));
  return { 'User-Agent': 'objectql-webhook', ...own, ...standard };
}

export async function sendWebhook(action: WebhookAction, request: WebhookRequest, settings: WebhookSettings): Promise<WebhookResponse> {
  const url = new URL(action.url);
  const target = await resolveTarget(url, settings.allowHosts, settings.lookup);
  const text = action.method === 'GET' ? '' : JSON.stringify(request.body ?? null);
  const bytes = Buffer.byteLength(text);
  if (bytes > settings.maxBodyBytes) {
    throw new Error(`webhook body is ${bytes} bytes, above the limit of ${settings.maxBodyBytes} (webhooks.maxBodyBytes)`);
  }
  const timestamp = request.timestamp ?? Math.floor(Date.now() / 1000);
  const headers = webhookHeaders(action, request.deliveryId, timestamp, text);
  if (action.method !== 'GET') headers['Content-Length'] = String(bytes);
  // One timer per request, cleared when it ends (AbortSignal.timeout and .any cost more, per request).
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;

  // The connection goes to the address checked above, whatever the resolver says by now.
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  try {
    return await new Promise<WebhookResponse>((resolve, reject) => {
      const req = client.request(url, { method: action.method, headers, lookup: pinned, signal: request.signal }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let settled = false;
        const finish = () => {
          if (settled) return;
          settled = true;
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        };
        res.on('data', (chunk: Buffer) => {
          if (size >= MAX_RESPONSE_BYTES) return;
          const part = chunk.subarray(0, MAX_RESPONSE_BYTES - size);
          chunks.push(part);
          size += part.length;
          if (size >= MAX_RESPONSE_BYTES) {
            finish();
            res.destroy();
          }
        });
        res.on('end', finish);
        res.on('error', (err) => (settled ? undefined : reject(err)));
        res.on('close', finish);
      });
      req.on('error', reject);
      timer = setTimeout(() => {
        timedOut = true;
        req.destroy(new Error('timed out'));
      }, action.timeoutMs);
      req.end(action.method === 'GET' ? undefined : text);
    }).then((res) => {
      if (res.status < 200 || res.status > 299) {
        const quoted = res.body.replace(/\s+/g, ' ').trim().slice(0, QUOTED_BYTES);
        throw new Error(`webhook answered ${res.status}${quoted ? `: ${quoted}${res.body.length > QUOTED_BYTES ? '...' : ''}` : ''}`);
      }
      return res;
    });
  } catch (err) {
    if (timedOut) throw new Error(`webhook timed out after ${action.timeoutMs} ms (${url.host})`, { cause: err });
    if (request.signal.aborted) throw new Error('webhook cancelled: the dispatcher is stopping', { cause: err });
    if ((err as Error).message.startsWith('webhook')) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`webhook to ${url.host} failed: ${code ? `${code} ` : ''}${(err as Error).message}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
