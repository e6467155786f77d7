/** A real server with the GraphQL plugin on SQLite in memory, and a client speaking GraphQL over HTTP. */
import type { User } from '../../../kernel';
import { startServer, type TestServer } from '../../helpers/server';

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

export function as(user?: User): Record<string, string> {
  return user ? { 'x-test-user': JSON.stringify(user) } : {};
}

/** POST {query, variables} to the endpoint as `user`. */
export function gql(s: TestServer, query: string, variables?: Record<string, unknown>, user?: User, path = '/api/graphql'): Promise<Res> {
  return s.request('POST', path, variables === undefined ? { query } : { query, variables }, as(user));
}

/** GET with the given query-string parameters. */
export function gqlGet(s: TestServer, params: Record<string, string>, user?: User, headers: Record<string, string> = {}): Promise<Res> {
  return s.request('GET', `/api/graphql?${new URLSearchParams(params).toString()}`, undefined, { ...as(user), ...headers });
}
