/**
 * An error answered straight on a socket, before (or without) a request Express could handle:
 * a connection over a limit, a request that timed out or does not parse as HTTP. Same body shape
 * as every other error; the connection is closed after it.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ObjectQLError } from '../errors';

/** How long a refused connection may take to take its answer (a few hundred bytes) before it is cut. */
const REFUSAL_LINGER_MS = 2_000;

/** What an answer on a raw socket carries besides the error: another status, extra headers, the body as rendered (default `error.toBody()`). */
export interface RawAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

function rawErrorResponse(error: ObjectQLError, answer: RawAnswer = {}): string {
  const status = answer.status ?? error.status;
  const body = JSON.stringify(answer.body ?? error.toBody());
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    ...Object.entries(answer.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Writes the error and closes the socket once it is handed to the OS (a peer that never reads holds nothing). */
export function refuseSocket(socket: Duplex, error: ObjectQLError, answer?: RawAnswer): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(rawErrorResponse(error, answer), () => socket.destroy());
  const timer = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
  socket.once('close', () => clearTimeout(timer));
}
