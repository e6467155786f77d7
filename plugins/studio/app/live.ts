/**
 * The realtime channel (docs/realtime.md) shared by every open list and record: one WebSocket,
 * authenticated by the session cookie its upgrade carries, with a subscription per object and
 * filter. A dropped connection is opened again (1 s, doubling up to 30 s) and its subscriptions
 * sent again; what changed meanwhile is picked up by the reload that a reconnection triggers.
 */
import type { DataRecord, FilterExpr } from './types';

export interface Change {
  object: string;
  operation: 'created' | 'updated' | 'deleted';
  record: DataRecord;
}

type Listener = (change: Change | 'reconnected') => void;

interface Subscription {
  object: string;
  filters?: FilterExpr;
  listener: Listener;
}

export class Live {
  private socket?: WebSocket;
  private readonly subscriptions = new Map<string, Subscription>();
  private next = 1;
  private retryMs = 1000;
  private timer?: number;
  private closed = false;
  private opened = false;

  constructor(private readonly url: string | undefined) {}

  get available(): boolean {
    return this.url !== undefined;
  }

  /** Calls `listener` with every change of `object` (matching `filters`) this user may see; returns the unsubscribe. */
  subscribe(object: string, filters: FilterExpr | undefined, listener: Listener): () => void {
    const id = `s${this.next++}`;
    this.subscriptions.set(id, { object, filters: filters?.length ? filters : undefined, listener });
    if (this.socket?.readyState === WebSocket.OPEN) this.sendSubscribe(id);
    else this.connect();
    return () => {
      this.subscriptions.delete(id);
      if (this.socket?.readyState === WebSocket.OPEN) this.send({ type: 'unsubscribe', id });
    };
  }

  /** Signs out: closes the socket and forgets every subscription. */
  close(): void {
    this.closed = true;
    window.clearTimeout(this.timer);
    this.subscriptions.clear();
    this.socket?.close(1000);
  }

  private connect(): void {
    if (!this.url || this.closed || this.socket) return;
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(`${scheme}//${location.host}${this.url}`);
    this.socket = socket;
    socket.onopen = () => {
      this.retryMs = 1000;
      for (const id of this.subscriptions.keys()) this.sendSubscribe(id);
      if (this.opened) for (const s of this.subscriptions.values()) s.listener('reconnected');
      this.opened = true;
    };
    socket.onmessage = (event) => this.receive(String(event.data));
    socket.onclose = () => {
      this.socket = undefined;
      if (this.closed || !this.subscriptions.size) return;
      this.timer = window.setTimeout(() => this.connect(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 30_000);
    };
  }

  private sendSubscribe(id: string): void {
    const s = this.subscriptions.get(id);
    if (s) this.send({ type: 'subscribe', id, object: s.object, ...(s.filters ? { filters: s.filters } : {}) });
  }

  private send(message: unknown): void {
    this.socket?.send(JSON.stringify(message));
  }

  private receive(data: string): void {
    let message: { type?: string; subscription?: string; object?: string; operation?: Change['operation']; record?: DataRecord };
    try {
      message = JSON.parse(data) as typeof message;
    } catch {
      return;
    }
    if (message.type !== 'change' || !message.subscription || !message.record || !message.operation) return;
    this.subscriptions.get(message.subscription)?.listener({
      object: message.object ?? '',
      operation: message.operation,
      record: message.record,
    });
  }
}
