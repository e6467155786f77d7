/**
 * One ws socket bound to graphql-ws's protocol server: what `graphql-ws/use/ws` does, through the
 * kernel's WebSocket guard (message rate, outgoing buffer, heartbeat), so that graphql-ws sockets
 * live under the same limits as realtime ones. A send resolves once its data is written (or not
 * sent), so one subscription's events leave one after another.
 */
import type { IncomingMessage } from 'node:http';
import { CloseCode, type Server } from 'graphql-ws';
import type { RawData, WebSocket } from 'ws';
import type { GuardedSocket } from '../../../kernel/protocol';

/** What graphql-ws hands the hooks as `ctx.extra`. */
export interface SocketExtra {
  socket: WebSocket;
  request: IncomingMessage;
  guard: GuardedSocket;
  /** Releases of the subscriptions running on this socket, by operation id. */
  running: Map<string, () => void>;
}

export function serveSocket(
  server: Server<SocketExtra>,
  guard: GuardedSocket,
  request: IncomingMessage,
  log: (err: unknown) => void,
): void {
  const ws = guard.ws;
  const closed = server.opened(
    {
      protocol: ws.protocol,
      send: (data) => new Promise<void>((resolve) => guard.send(data, () => resolve())),
      close: (code, reason) => guard.close(code ?? 1000, reason ?? ''),
      onMessage: (handle) =>
        guard.onMessage((data) => {
          handle(text(data)).catch((err: unknown) => {
            log(err);
            guard.close(CloseCode.InternalServerError, 'Internal server error');
          });
        }),
    },
    { socket: ws, request, guard, running: new Map() },
  );
  ws.once('close', (code: number, reason: Buffer) => void closed(code, String(reason)).catch(log));
}

/** A text frame's content (ws hands it over as a Buffer, or as fragments or an ArrayBuffer by binaryType). */
function text(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return (Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
}
