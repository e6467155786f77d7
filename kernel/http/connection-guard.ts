/**
 * Counts a server's open connections, in all and per client address, refusing those over the
 * caps; and knows which connections are idle, so that a stopping server closes those at once and
 * the others only once their response has been written out.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ObjectQLError } from '../errors';
import { addressKey } from '../protocol/address-key';
import { refuseSocket } from './raw-response';

export interface ConnectionLimits {
  maxConnections: number;
  maxConnectionsPerIp: number;
}

interface Connection {
  key: string;
  /** Responses begun and not yet finished (more than one when requests are pipelined). */
  inFlight: number;
  /** socket.bytesRead when the last response finished: more read since means a request has begun. */
  readAtRest: number;
}

export class ConnectionGuard {
  private readonly connections = new Map<Socket, Connection>();
  private readonly perAddress = new Map<string, number>();
  private stopping = false;

  constructor(
    server: Server,
    private readonly limits: ConnectionLimits,
  ) {
    server.on('connection', (socket: Socket) => this.admit(socket));
    // Node's own (which close() calls) also destroys a connection whose response has ended but is
    // still being written to a slow reader: the response is cut, yet logged as complete.
    server.closeIdleConnections = () => this.closeIdle();
  }

  /** Open connections, in all. */
  get size(): number {
    return this.connections.size;
  }

  /**
   * Called for each request before it is handled: false for a connection that was refused (its
   * socket is being closed). While the server stops, the response closes its connection.
   */
  begin(req: IncomingMessage, res: ServerResponse): boolean {
    const socket = req.socket;
    const connection = this.connections.get(socket);
    if (!connection) return false;
    connection.inFlight++;
    if (this.stopping) res.setHeader('Connection', 'close');
    res.once('close', () => {
      connection.inFlight--;
      connection.readAtRest = socket.bytesRead;
      if (this.stopping && connection.inFlight === 0) this.finish(socket);
    });
    return true;
  }

  /** Whether a request on `socket` has been received (its headers at least) and not yet answered. */
  hasRequest(socket: Socket): boolean {
    return (this.connections.get(socket)?.inFlight ?? 0) > 0;
  }

  /** Stops: idle connections are closed now, the others as soon as their response is out. */
  stop(): void {
    this.stopping = true;
    this.closeIdle();
  }

  /** Destroys every connection left (the shutdown timeout has passed). */
  destroyAll(): void {
    for (const socket of this.connections.keys()) socket.destroy();
  }

  private admit(socket: Socket): void {
    const { maxConnections, maxConnectionsPerIp } = this.limits;
    const key = addressKey(socket.remoteAddress);
    if (this.connections.size >= maxConnections) {
      const error = new ObjectQLError(
        'SERVICE_UNAVAILABLE',
        `The server has ${maxConnections} open connections, its maximum: retry shortly`,
        {
          limit: 'server.maxConnections',
          max: maxConnections,
        },
      );
      refuseSocket(socket, error, { headers: { 'Retry-After': '1' } });
      return;
    }
    const count = this.perAddress.get(key) ?? 0;
    if (count >= maxConnectionsPerIp) {
      const error = new ObjectQLError(
        'RATE_LIMIT_EXCEEDED',
        `Too many open connections from this address (at most ${maxConnectionsPerIp}): close some, or reuse them with keep-alive`,
        { limit: 'server.maxConnectionsPerIp', max: maxConnectionsPerIp },
      );
      refuseSocket(socket, error, { headers: { 'Retry-After': '1' } });
      return;
    }
    this.perAddress.set(key, count + 1);
    this.connections.set(socket, { key, inFlight: 0, readAtRest: 0 });
    socket.once('close', () => {
      this.connections.delete(socket);
      const left = (this.perAddress.get(key) ?? 1) - 1;
      if (left > 0) this.perAddress.set(key, left);
      else this.perAddress.delete(key);
    });
    if (this.stopping) socket.destroy();
  }

  private closeIdle(): void {
    for (const [socket, connection] of this.connections) {
      if (connection.inFlight === 0 && socket.bytesRead === connection.readAtRest) socket.destroy();
    }
  }

  /**
   * A stopping server's connection whose last response is out: half-closed, so the client reads
   * the rest of it and then sees the end (destroying it could cut what the OS has not sent yet).
   * The connection closes when the client closes its side, or at the shutdown timeout.
   */
  private finish(socket: Socket): void {
    if (socket.writable) socket.end();
    else socket.destroy();
  }
}
