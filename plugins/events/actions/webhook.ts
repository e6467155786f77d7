/**
 * A webhook action: one HTTP request to the workflow's URL, after the SSRF guard (ssrf.ts), to the
 * address the guard checked. Resolves on a 2xx; throws an Error naming the status (and the start
 * of the response body) otherwise, on a timeout, or when the connection fails. Redirects are not
 * followed (a 3xx fails): a redirect could lead anywhere.
 *
 * Requests go through undici's connection pools, one per receiver (its origin and the address the
 * guard checked), kept alive between deliveries: measured against `node:http`'s request, a third
 * of the CPU per delivery. Each sender owns its pools (one per events plugin, so per kernel) and
 * keeps at most MAX_RECEIVERS of them, the least recently used closed first.
 */
import type { LookupFunction } from 'node:net';
import { Pool, type Dispatcher } from 'undici';
import type { WebhookAction } from '../types';
import { resolveTarget, type LookupAll, type ResolvedTarget } from './ssrf';
import { DELIVERY_HEADER, SIGNATURE_HEADER, signPayload, TIMESTAMP_HEADER } from './signature';

/** At most this much of a response is read (the rest is dropped). */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** At most this much of a response body is quoted in an error message. */
const QUOTED_BYTES = 200;
/** Receivers (origin and address) whose connections are kept at once. */
export const MAX_RECEIVERS = 64;
/** How long an idle connection to a receiver is kept. */
const KEEP_ALIVE_MS = 4_000;

export interface WebhookSettings {
  allowHosts: readonly string[];
  /** The largest request body sent. */
  maxBodyBytes: number;
  /** Connections kept per receiver: the dispatcher's concurrency, so no request waits for one. */
  connections: number;
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

/** Headers an action may not set: the standard ones, and those the HTTP client writes. */
const RESERVED: ReadonlySet<string> = new Set(
  ['Content-Type', 'Idempotency-Key', DELIVERY_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER, 'Content-Length', 'Host'].map((h) =>
    h.toLowerCase(),
  ),
);

/** The headers sent: the action's (except those it may not override) and the standard ones. */
export function webhookHeaders(action: WebhookAction, deliveryId: string, timestamp: number, body: string): Record<string, string> {
  const headers: Record<string, string> = {};
  let agent = false;
  for (const name in action.headers) {
    const lower = name.toLowerCase();
    if (RESERVED.has(lower)) continue;
    agent ||= lower === 'user-agent';
    headers[name] = action.headers[name];
  }
  if (!agent) headers['User-Agent'] = 'objectql-webhook';
  headers['Content-Type'] = 'application/json';
  headers['Idempotency-Key'] = deliveryId;
  headers[DELIVERY_HEADER] = deliveryId;
  headers[TIMESTAMP_HEADER] = String(timestamp);
  if (action.secret !== undefined) headers[SIGNATURE_HEADER] = signPayload(action.secret, timestamp, body);
  return headers;
}

/** Sends webhooks over pooled connections (see above). */
export class WebhookSender {
  private readonly pools = new Map<string, Pool>();
  private readonly urls = new WeakMap<WebhookAction, URL>();

  constructor(private readonly settings: WebhookSettings) {}

  async send(action: WebhookAction, request: WebhookRequest): Promise<WebhookResponse> {
    const url = this.urlOf(action);
    const target = await resolveTarget(url, this.settings.allowHosts, this.settings.lookup);
    const text = action.method === 'GET' ? '' : JSON.stringify(request.body ?? null);
    const bytes = Buffer.byteLength(text);
    if (bytes > this.settings.maxBodyBytes) {
      throw new Error(`webhook body is ${bytes} bytes, above the limit of ${this.settings.maxBodyBytes} (webhooks.maxBodyBytes)`);
    }
    const timestamp = request.timestamp ?? Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(action, request.deliveryId, timestamp, text);
    let res: WebhookResponse;
    try {
      res = await exchange(this.poolFor(url, target), {
        path: url.pathname + url.search,
        method: action.method,
        headers,
        body: action.method === 'GET' ? null : text,
        timeoutMs: action.timeoutMs,
        signal: request.signal,
      });
    } catch (err) {
      if (err instanceof Timeout) throw new Error(`webhook timed out after ${action.timeoutMs} ms (${url.host})`, { cause: err });
      if (request.signal.aborted) throw new Error('webhook cancelled: the dispatcher is stopping', { cause: err });
      const code = (err as NodeJS.ErrnoException).code;
      throw new Error(`webhook to ${url.host} failed: ${code ? `${code} ` : ''}${(err as Error).message}`, { cause: err });
    }
    if (res.status < 200 || res.status > 299) {
      const quoted = res.body.replace(/\s+/g, ' ').trim().slice(0, QUOTED_BYTES);
      throw new Error(`webhook answered ${res.status}${quoted ? `: ${quoted}${res.body.length > QUOTED_BYTES ? '...' : ''}` : ''}`);
    }
    return res;
  }

  /** Closes every connection; requests still under way fail. */
  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.destroy()));
  }

  private urlOf(action: WebhookAction): URL {
    let url = this.urls.get(action);
    if (!url) {
      url = new URL(action.url);
      this.urls.set(action, url);
    }
    return url;
  }

  /** The receiver's pool, connecting to the address checked, whatever the resolver says by now. */
  private poolFor(url: URL, target: ResolvedTarget): Pool {
    const key = `${url.origin} ${target.address}`;
    let pool = this.pools.get(key);
    if (pool) {
      // Most recently used last: the first is the one to close when there are too many.
      this.pools.delete(key);
      this.pools.set(key, pool);
      return pool;
    }
    const pinned: LookupFunction = (_hostname, options, callback) => {
      if (options.all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    // undici's own timeouts are off: each request's timeout (exchange) bounds all of it.
    pool = new Pool(url.origin, {
      connections: this.settings.connections,
      keepAliveTimeout: KEEP_ALIVE_MS,
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: { lookup: pinned },
    });
    this.pools.set(key, pool);
    if (this.pools.size > MAX_RECEIVERS) {
      const [oldest, idle] = this.pools.entries().next().value as [string, Pool];
      this.pools.delete(oldest);
      void idle.close().catch(() => undefined);
    }
    return pool;
  }
}

class Timeout extends Error {}

interface Exchange {
  path: string;
  method: WebhookAction['method'];
  headers: Record<string, string>;
  body: string | null;
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * One request through undici's dispatch API (its lightest: no stream per response), with one timer
 * for the whole exchange and the dispatcher's signal; reads at most MAX_RESPONSE_BYTES of the answer.
 */
function exchange(pool: Pool, request: Exchange): Promise<WebhookResponse> {
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let failure: Error | undefined;
    let settled = false;
    let status = 0;
    let size = 0;
    const chunks: Buffer[] = [];
    const end = (err: Error | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve({ status, body: Buffer.concat(chunks).toString('utf8') });
    };
    // Before the request has a connection there is nothing to abort yet: it fails now, and is
    // aborted as soon as it starts.
    const stop = (err: Error) => {
      failure = err;
      controller?.abort(err);
      end(err);
    };
    const onAbort = () => stop(new Error('cancelled'));
    const timer = setTimeout(() => stop(new Timeout('timed out')), request.timeoutMs);
    request.signal.addEventListener('abort', onAbort, { once: true });
    if (request.signal.aborted) onAbort();
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (failure) c.abort(failure);
      },
      onResponseStart(_c, statusCode) {
        status = statusCode;
      },
      onResponseData(c, chunk) {
        if (size >= MAX_RESPONSE_BYTES) return;
        const part = chunk.subarray(0, MAX_RESPONSE_BYTES - size);
        chunks.push(part);
        size += part.length;
        if (size >= MAX_RESPONSE_BYTES) {
          end(undefined);
          c.abort(new Error('response read up to its limit'));
        }
      },
      onResponseEnd() {
        end(undefined);
      },
      onResponseError(_c, err) {
        end(err);
      },
    };
    try {
      pool.dispatch({ path: request.path, method: request.method, headers: request.headers, body: request.body }, handler);
    } catch (err) {
      end(err as Error);
    }
  });
}
