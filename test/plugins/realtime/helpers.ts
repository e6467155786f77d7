/** A real `ws` client that queues what it receives, and HS256 tokens signed like test/matrix/credentials.ts. */
import { createHmac } from 'node:crypto';
import WebSocket, { type RawData } from 'ws';

export const SECRET = 'realtime-test-secret-at-least-32-characters';

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

export function token(user: { id: string; roles: string[] }, secret = SECRET): string {
  const now = Math.floor(Date.now() / 1000);
  const body = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify({ sub: user.id, roles: user.roles, iat: now, exp: now + 3600 }))}`;
  return `${body}.${base64url(createHmac('sha256', secret).update(body).digest())}`;
}

export type Msg = Record<string, any>;

export class Client {
  readonly messages: Msg[] = [];
  private waiters: Array<{ pred: (m: Msg) => boolean; resolve: (m: Msg) => void }> = [];
  closed?: { code: number; reason: string };

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const m = JSON.parse(text(data)) as Msg;
      const i = this.waiters.findIndex((w) => w.pred(m));
      if (i >= 0) this.waiters.splice(i, 1)[0].resolve(m);
      else this.messages.push(m);
    });
    ws.on('close', (code, reason) => void (this.closed = { code, reason: String(reason) }));
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<Client> {
    const ws = new WebSocket(url, { headers });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    });
    return new Client(ws);
  }

  send(m: unknown): void {
    this.ws.send(typeof m === 'string' ? m : JSON.stringify(m));
  }

  /** The next message matching `pred` (already received or to come). */
  next(pred: (m: Msg) => boolean = () => true, ms = 3000): Promise<Msg> {
    const i = this.messages.findIndex(pred);
    if (i >= 0) return Promise.resolve(this.messages.splice(i, 1)[0]);
    return new Promise((resolve, reject) => {
      const w = {
        pred,
        resolve: (m: Msg) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        reject(new Error(`no matching message within ${ms} ms; received: ${JSON.stringify(this.messages)}`));
      }, ms);
      this.waiters.push(w);
    });
  }

  /** Sends and waits for the reply (ack or error) carrying the same id. */
  async request(m: Msg): Promise<Msg> {
    this.send(m);
    return this.next((r) => r.id === String(m.id) && (r.type === 'ack' || r.type === 'error'));
  }

  /** Fails if a change matching `pred` arrives within `ms`. */
  async none(pred: (m: Msg) => boolean, ms = 400): Promise<void> {
    const got = await this.next(pred, ms).catch(() => undefined);
    if (got) throw new Error(`unexpected message ${JSON.stringify(got)}`);
  }

  close(): void {
    this.ws.terminate();
  }
}

/** A text frame's content (ws hands it over as a Buffer, or as fragments or an ArrayBuffer by binaryType). */
function text(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return (Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
}

export function wsUrl(httpUrl: string, path = '/api/realtime'): string {
  return httpUrl.replace(/^http/, 'ws') + path;
}
