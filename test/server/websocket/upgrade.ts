/** A WebSocket upgrade as a browser or a script sends it, with the answer: 101 and the open socket, or the refusal. */
import WebSocket from 'ws';

export interface UpgradeAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** The open socket (status 101); the caller closes it. */
  ws?: WebSocket;
  /** Text messages received on it from the first, parsed as JSON. */
  messages: any[];
  /** Resolves once the socket has closed, with its code. */
  closed: Promise<{ code: number; reason: string }>;
}

export function upgrade(url: string, headers: Record<string, string> = {}, protocols?: string): Promise<UpgradeAnswer> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers });
    const messages: any[] = [];
    ws.on('message', (data) => messages.push(JSON.parse((data as Buffer).toString('utf8'))));
    const done = closed(ws);
    ws.once('open', () => resolve({ status: 101, headers: {}, body: undefined, ws, messages, closed: done }));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          /* keep the text */
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, messages, closed: done });
      });
    });
    ws.once('error', reject);
  });
}

/** Resolves with the close code once `ws` has closed. */
export function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve({ code: 1006, reason: '' });
  return new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
}
