import { createServer } from 'node:net';

/** A loopback port free now, for a child process that must be told its port before it listens. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((res, rej) => server.once('error', rej).listen(0, '127.0.0.1', () => res()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((res) => server.close(() => res()));
  return port;
}
