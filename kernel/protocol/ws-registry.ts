/**
 * The WebSocket limits of one kernel and their counters, shared by every WebSocket protocol
 * (realtime, GraphQL subscriptions): connections per address and per user, subscriptions per
 * user. Made on first use and kept in the kernel's container (`webSockets`), so two kernels in one
 * process never share a count. See docs/security.md, "WebSockets".
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { ResolvedConfig } from '../config/schema';
import type { ObjectQLError } from '../errors';
import type { Kernel } from '../kernel';
import type { Logger } from '../logger';
import { addressKey } from './address-key';
import { GuardedSocket, tooMany, type GuardOptions } from './ws-socket';

export type WebSocketLimits = ResolvedConfig['limits']['websocket'];

declare module '../kernel' {
  interface KernelServices {
    /** The kernel's WebSocket limits and counters (kernel/protocol/ws-registry.ts), made on first use. */
    webSockets: WebSocketRegistry;
  }
}

/** The kernel's WebSocket registry. */
export function webSockets(kernel: Kernel): WebSocketRegistry {
  if (!kernel.container.hasRegistration('webSockets')) {
    kernel.provide('webSockets', new WebSocketRegistry(kernel.config.limits.websocket, kernel.logger));
  }
  return kernel.resolve('webSockets');
}

export class WebSocketRegistry {
  /** `conn:ip:<address>`, `conn:user:<id>`, `subs:<caller>` → how many are held. */
  private readonly counts = new Map<string, number>();
  private readonly sockets = new Set<GuardedSocket>();

  constructor(
    readonly limits: WebSocketLimits,
    private readonly logger: Logger,
  ) {}

  /** Guarded sockets open now. */
  get open(): number {
    return this.sockets.size;
  }

  /** Subscriptions held now, over every socket. */
  get subscriptions(): number {
    let n = 0;
    for (const [key, held] of this.counts) if (key.startsWith('subs:')) n += held;
    return n;
  }

  /** Held connections or subscriptions under `key` (for tests and diagnostics). */
  held(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /**
   * Holds one connection of `address` until `socket` closes; answers the refusal instead when the
   * address already holds `maxConnectionsPerIp`.
   */
  holdAddress(address: string | undefined, socket: Duplex): ObjectQLError | undefined {
    const key = `conn:ip:${addressKey(address)}`;
    const max = this.limits.maxConnectionsPerIp;
    if (!this.acquire(key, max)) return tooMany(`from this address`, 'limits.websocket.maxConnectionsPerIp', max);
    socket.once('close', () => this.release(key));
    return undefined;
  }

  /** Puts the limits on an open socket: message rate, outgoing buffer, heartbeat, per-user counts. */
  guard(ws: WebSocket, address: string | undefined, options: GuardOptions = {}): GuardedSocket {
    const socket = new GuardedSocket(this, ws, address, { log: this.logger, ...options });
    this.sockets.add(socket);
    ws.once('close', () => this.sockets.delete(socket));
    return socket;
  }

  /** Counts one more under `key` unless `max` are held already. */
  acquire(key: string, max: number): boolean {
    const n = this.counts.get(key) ?? 0;
    if (n >= max) return false;
    this.counts.set(key, n + 1);
    return true;
  }

  release(key: string): void {
    const n = (this.counts.get(key) ?? 0) - 1;
    if (n > 0) this.counts.set(key, n);
    else this.counts.delete(key);
  }
}
