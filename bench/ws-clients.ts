/**
 * WebSocket clients of the realtime API (docs/realtime.md) and of graphql-ws's protocol on a raw
 * socket, for the soak and the attacks: open a socket (its refusal is an answer, not a crash of the
 * bench), send a message and wait for the answer with its id.
 */
import WebSocket from 'ws';

export interface OpenOptions {
  headers?: Record<string, string>;
  /** Source address (127.0.0.2 for attackers, so per-address limits never touch the probes from 127.0.0.1). */
  localAddress?: string;
  protocol?: string;
  timeoutMs?: number;
}

/** What refused an upgrade or closed a socket: `HTTP 429`, `close 1008 <reason>`, `ECONNRESET`, `timeout`. */
export class Refused extends Error {}

export function openSocket(url: string, options: OpenOptions = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options.protocol, {
      headers: options.headers,
      localAddress: options.localAddress,
      handshakeTimeout: options.timeoutMs ?? 10_000,
    });
    const fail = (why: string) => {
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      reject(new Refused(why));
    };
    ws.once('open', () => {
      ws.removeAllListeners('error');
      ws.removeAllListeners('unexpected-response');
      ws.on('error', () => undefined);
      resolve(ws);
    });
    ws.once('unexpected-response', (_req, res) => fail(`HTTP ${res.statusCode}`));
    ws.once('error', (err: NodeJS.ErrnoException) => fail(err.code ?? err.message));
    ws.once('close', (code, reason) => fail(`close ${code} ${reason.toString()}`));
  });
}

/** A message's text, whichever form ws delivered it in. */
export function text(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString();
  if (Array.isArray(data)) return Buffer.concat(data).toString();
  return Buffer.from(data).toString();
}

/** Sends a realtime message with an id and resolves with the server's answer to that id (ack, error or pong). */
export function ask(ws: WebSocket, message: Record<string, unknown>, timeoutMs = 10_000): Promise<{ type: string; code?: string }> {
  const id = String(message.id);
  return new Promise((resolve, reject) => {
    const onMessage = (data: WebSocket.RawData) => {
      let m: { id?: string; type: string; code?: string };
      try {
        m = JSON.parse(text(data)) as typeof m;
      } catch {
        return;
      }
      if (m.id !== id) return;
      done();
      resolve(m);
    };
    const onClose = (code: number, reason: Buffer) => {
      done();
      reject(new Refused(`close ${code} ${reason.toString()}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Refused('timeout'));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      ws.off('message', onMessage);
      ws.off('close', onClose);
    };
    ws.on('message', onMessage);
    ws.once('close', onClose);
    ws.send(JSON.stringify(message));
  });
}

/** Resolves once the socket's own send buffer is below `bytes` (so a flood is bounded by the network, not by this process's memory). */
export async function drained(ws: WebSocket, bytes = 1 << 20): Promise<void> {
  while (ws.readyState === WebSocket.OPEN && ws.bufferedAmount > bytes) await new Promise((r) => setTimeout(r, 5));
}

/** Closes quietly; terminates when the close handshake does not finish in time. */
export function closeSocket(ws: WebSocket): void {
  ws.on('error', () => undefined);
  if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.CLOSED) {
    ws.terminate();
    return;
  }
  ws.close(1000);
  setTimeout(() => ws.terminate(), 1000).unref();
}
