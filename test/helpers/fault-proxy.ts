/**
 * A TCP proxy on loopback in front of a real service (PostgreSQL, MariaDB, Redis) that a test
 * cuts for real, the way networks and servers fail:
 *
 * - stall():     connections open now stay open but nothing passes either way (a server or a path
 *                that stopped answering); new connections pass as usual.
 * - blackHole(): the same, for new connections too: they are accepted and then never answered.
 * - reset():     every connection is reset (RST), now and on arrival, as by a restarted server or
 *                a firewall rejecting.
 * - restore():   new connections pass again. Connections stalled or black-holed stay silent (as
 *                connections a peer has forgotten do): a client has to notice and replace them.
 * - close():     closes (FIN) the connections held silent.
 * - stop() / start(): the port closes (ECONNREFUSED) and opens again on the same number.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

type Mode = 'pass' | 'blackHole' | 'reset';

interface Pair {
  client: Socket;
  upstream?: Socket;
  silent: boolean;
}

const DEFAULT_PORTS: Record<string, number> = { 'redis:': 6379, 'rediss:': 6379, 'postgres:': 5432, 'postgresql:': 5432, 'mysql:': 3306 };

export class FaultProxy {
  private server?: Server;
  private readonly pairs = new Set<Pair>();
  private mode: Mode = 'pass';
  port = 0;

  /** `target` is where the service listens; `template` a URL of it whose host and port url() replaces. */
  constructor(
    private readonly target: { host: string; port: number },
    private readonly template = 'redis://127.0.0.1',
  ) {}

  /** A proxy to the service at `url` (redis://, postgres://, mysql://). */
  static to(url: string): FaultProxy {
    const parsed = new URL(url);
    return new FaultProxy({ host: parsed.hostname, port: Number(parsed.port || DEFAULT_PORTS[parsed.protocol] || 0) }, url);
  }

  /** The service's URL, through the proxy. */
  get url(): string {
    const url = new URL(this.template);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.href.replace(/\/$/, '');
  }

  /** Connections open through the proxy now. */
  get connections(): number {
    return this.pairs.size;
  }

  async start(): Promise<void> {
    this.mode = 'pass';
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  stall(): void {
    for (const pair of this.pairs) silence(pair);
  }

  blackHole(): void {
    this.mode = 'blackHole';
    this.stall();
  }

  reset(): void {
    this.mode = 'reset';
    for (const pair of this.pairs) resetPair(pair);
  }

  restore(): void {
    this.mode = 'pass';
  }

  /** Closes the connections held silent (as a peer that finally gives up on them). */
  close(): void {
    for (const pair of this.pairs) if (pair.silent) pair.client.destroy();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const { client } of this.pairs) client.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const pair: Pair = { client, silent: false };
    this.pairs.add(pair);
    client.on('error', () => {});
    client.on('close', () => {
      this.pairs.delete(pair);
      pair.upstream?.destroy();
    });
    if (this.mode === 'reset') return resetPair(pair);
    if (this.mode === 'blackHole') return silence(pair);
    const upstream = connect(this.target.port, this.target.host);
    pair.upstream = upstream;
    upstream.on('error', () => {});
    upstream.on('close', () => (pair.silent ? undefined : client.destroy()));
    client.pipe(upstream).pipe(client);
  }
}

/** Forwards nothing more; what arrives is read and dropped, so that a side closing is still noticed. */
function silence(pair: Pair): void {
  pair.silent = true;
  if (pair.upstream) {
    pair.client.unpipe(pair.upstream);
    pair.upstream.unpipe(pair.client);
    pair.upstream.resume();
  }
  pair.client.resume();
}

function resetPair(pair: Pair): void {
  pair.upstream?.resetAndDestroy();
  pair.client.resetAndDestroy();
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
