/** A real server with the GraphQL plugin on SQLite in memory, and a client speaking GraphQL over HTTP. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { User } from '../../../kernel';
import { createKernel } from '../../../server';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';

export const SQLITE = { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: ':memory:' } } } as const;

export interface Res {
  status: number;
  body: any;
  headers: Headers;
}

export async function startGraphQLServer(
  options: Record<string, unknown> = {},
  extraPlugins: Record<string, unknown> = {},
): Promise<TestServer> {
  return startServer({ plugins: { graphql: options, metadata: true, ...extraPlugins }, datasources: SQLITE }, { identityFromHeader: true });
}

export const as = (user?: User): Record<string, string> => identityHeader(user);

/** POST {query, variables} to the endpoint as `user`. */
export function gql(s: TestServer, query: string, variables?: Record<string, unknown>, user?: User, path = '/api/graphql'): Promise<Res> {
  return s.request('POST', path, variables === undefined ? { query } : { query, variables }, as(user));
}

/** GET with the given query-string parameters. */
export function gqlGet(s: TestServer, params: Record<string, string>, user?: User, headers: Record<string, string> = {}): Promise<Res> {
  return s.request('GET', `/api/graphql?${new URLSearchParams(params).toString()}`, undefined, { ...as(user), ...headers });
}

/**
 * Waits until the server runs `count` GraphQL subscriptions (graphql-ws acknowledges no subscribe:
 * the server's count says when one is running). Gives up after 10 s: the test's assertions then
 * say what is missing.
 */
export async function untilSubscriptions(s: TestServer, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (s.kernel.resolve('graphqlSubscriptions').open < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}

/** The HTTP status a WebSocket upgrade to `url` is refused with (undefined when it fails otherwise). */
export function refusedUpgrade(url: string, protocol?: string): Promise<number | undefined> {
  const ws = new WebSocket(url, protocol);
  return new Promise((resolve) => {
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode));
    ws.on('open', () => {
      ws.close();
      resolve(undefined);
    });
    ws.on('error', () => resolve(undefined));
  });
}

/** The message a kernel with the GraphQL plugin fails to start with, on metadata `files` (name → YAML). */
export async function startFailure(files: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'oql-graphql-'));
  try {
    for (const [name, yaml] of Object.entries(files)) writeFileSync(join(dir, name), yaml);
    const kernel = await createKernel({
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      metadata: [dir],
      datasources: { default: { driver: 'memory' } },
      plugins: { graphql: true },
    });
    let failure: unknown;
    await kernel.start().catch((err: unknown) => (failure = err));
    await kernel.stop().catch(() => undefined);
    return String((failure as Error)?.message);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
