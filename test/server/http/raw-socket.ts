/** Raw TCP clients for the connection tests: what a slowloris or a connection flood looks like on the wire. */
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  socket: Socket;
  /** Everything the server sent, as text. */
  received(): string;
  /** Resolves with what the server sent once it closed the connection. */
  closed: Promise<string>;
}

/** Opens a connection to `url`'s port from `localAddress` (any 127.x.y.z reaches the loopback server on Linux). */
export function openRaw(url: string, localAddress = '127.0.0.1'): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    const closed = new Promise<string>((done) => socket.once('close', () => done(text)));
    socket.once('error', (err) => (socket.connecting ? reject(err) : undefined));
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
  });
}

/** The status and parsed JSON body of a raw HTTP/1.1 response. */
export function parseRawResponse(text: string): { status: number; headers: Record<string, string>; body: any } {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, end < 0 ? text.length : end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const bodyText = end < 0 ? '' : text.slice(end + 4);
  let body: unknown = bodyText;
  try {
    body = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/** Writes `text` one piece every `everyMs` until the socket closes (a slowloris); resolves when it does. */
export function dribble(socket: Socket, pieces: string[], everyMs: number): Promise<void> {
  return new Promise((resolve) => {
    let i = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || !socket.writable) return;
      socket.write(pieces[i++ % pieces.length]);
    }, everyMs);
    socket.once('close', () => {
      clearInterval(timer);
      resolve();
    });
  });
}

export interface SlowRead {
  socket: Socket;
  /** Resolves once the first bytes of the answer have been read. */
  started: Promise<void>;
  /** Resolves with every byte received once the server closed the connection. */
  done: Promise<Buffer>;
  /** From now on, reads all there is every 10 ms. */
  speedUp(): void;
}

/**
 * Sends `GET path` and reads the answer slowly (`bytesPerTick` every `everyMs`): the server's
 * writes back up behind it, as they do behind a client on a slow link.
 */
export function slowGet(url: string, path: string, bytesPerTick = 64 * 1024, everyMs = 10): SlowRead {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
  const chunks: Buffer[] = [];
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const readSome = () => {
    let budget = bytesPerTick;
    let chunk: Buffer | null;
    while (budget > 0 && (chunk = socket.read() as Buffer | null) !== null) {
      chunks.push(chunk);
      budget -= chunk.length;
      markStarted();
    }
  };
  let timer = setInterval(readSome, everyMs);
  const speedUp = () => {
    bytesPerTick = Infinity;
    clearInterval(timer);
    timer = setInterval(readSome, 10);
  };
  const done = new Promise<Buffer>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('close', () => {
      clearInterval(timer);
      readSome();
      let chunk: Buffer | null;
      while ((chunk = socket.read() as Buffer | null) !== null) chunks.push(chunk);
      resolve(Buffer.concat(chunks));
    });
  });
  return { socket, started, done, speedUp };
}

/** The head and the body of a raw HTTP/1.1 response (the body as bytes). */
export function splitResponse(raw: Buffer): { status: number; headers: Record<string, string>; body: Buffer } {
  const end = raw.indexOf('\r\n\r\n');
  const { status, headers } = parseRawResponse(raw.subarray(0, end + 4).toString('latin1'));
  return { status, headers, body: raw.subarray(end + 4) };
}
