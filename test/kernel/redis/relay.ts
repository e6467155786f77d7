/**
 * A TCP relay in front of Redis for outage tests: cut (connections closed, port closed), frozen
 * (connections kept open, nothing answered) and restored on the same port.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export class Relay {
  private server?: Server;
  private readonly pairs = new Set<{ client: Socket; upstream?: Socket }>();
  private frozen = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  /** A relay to the Redis at `url`. */
  static to(url: string): Relay {
    const { hostname, port } = new URL(url);
    return new Relay({ host: hostname, port: Number(port || 6379) });
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Connections open through the relay now. */
  get connections(): number {
    return this.pairs.size;
  }

  async start(): Promise<void> {
    this.frozen = false;
    const server = createServer((client) => {
      const pair: { client: Socket; upstream?: Socket } = { client };
      this.pairs.add(pair);
      client.on('error', () => {});
      client.on('close', () => {
        this.pairs.delete(pair);
        pair.upstream?.destroy();
      });
      if (this.frozen) {
        client.resume();
        return;
      }
      const upstream = connect(this.target.port, this.target.host);
      pair.upstream = upstream;
      upstream.on('error', () => {});
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /**
   * Keeps every connection open but answers nothing, on old connections and new ones alike. What
   * clients send is read and dropped, so that a client closing its connection is still noticed.
   */
  freeze(): void {
    this.frozen = true;
    for (const { client, upstream } of this.pairs) {
      if (!upstream) continue;
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.resume();
    }
  }

  /** Answers again on new connections (those frozen are closed). */
  thaw(): void {
    this.frozen = false;
    for (const { client } of this.pairs) client.destroy();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const { client } of this.pairs) client.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Waits until `condition` holds, checking every 25 ms; fails after `ms`. */
export async function until(condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  for (const deadline = Date.now() + ms; !(await condition()); await new Promise((resolve) => setTimeout(resolve, 25))) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
  }
}
