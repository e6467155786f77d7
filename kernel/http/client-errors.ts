/**
 * Requests Node's HTTP parser refuses before Express sees them — too slow (config
 * `server.headersTimeoutMs`, `server.requestTimeoutMs`), malformed, headers too large — answered
 * with the spec's error body instead of Node's bare status line.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { ObjectQLError } from '../errors';
import { refuseSocket } from './raw-response';

interface Timeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

export function answerClientErrors(server: Server, timeouts: Timeouts, hasRequest: (socket: Socket) => boolean): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    // The client is gone, or an answer has begun: nothing more can be said on this connection.
    if (err.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, error] = describe(err, hasRequest(socket), timeouts);
    refuseSocket(socket, error, { status });
  });
}

function describe(err: NodeJS.ErrnoException, hasRequest: boolean, timeouts: Timeouts): [number, ObjectQLError] {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT': {
      const [limit, max, what] = hasRequest
        ? ['server.requestTimeoutMs', timeouts.requestTimeoutMs, 'The request body']
        : ['server.headersTimeoutMs', timeouts.headersTimeoutMs, "The request's headers"];
      return [408, new ObjectQLError('INVALID_REQUEST', `${what} did not arrive within ${max} ms`, { limit, max })];
    }
    case 'HPE_HEADER_OVERFLOW':
      return [431, new ObjectQLError('INVALID_REQUEST', "The request's headers are too large")];
    default:
      return [400, new ObjectQLError('INVALID_REQUEST', 'Malformed HTTP request')];
  }
}
