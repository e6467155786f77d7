/**
 * The kernel's WebSocket limits on graphql-ws, at their defaults + 1, with the real graphql-ws
 * client: subscriptions per connection and per user (an error message for that subscription id),
 * connections per user (close 4429), and a message flood (close 1008).
 */
import { expect } from 'chai';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { webSockets } from '../../../kernel/protocol';
import { startServer, type TestServer } from '../../helpers/server';
import { SECRET, token } from '../realtime/helpers';
import { upgrade } from '../../server/websocket/upgrade';

const QUERY = 'subscription { projectCreated { id name } }';

describe('GraphQL subscriptions: WebSocket limits', function () {
  this.timeout(60_000);
  let server: TestServer;
  const clients: Client[] = [];

  beforeEach(async () => {
    server = await startServer({ plugins: { rpc: true, graphql: true, auth: { jwt: { secret: SECRET } } } });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map(async (c) => await c.dispose()));
    await server?.stop();
  });
  const url = () => server.url.replace(/^http/, 'ws') + '/api/graphql';
  const registry = () => webSockets(server.kernel);

  function client(id: string, on: { closed?: (e: unknown) => void } = {}): Client {
    const c = createClient({
      url: url(),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token({ id, roles: ['manager'] })}` },
      lazy: false,
      retryAttempts: 0,
      on,
      onNonLazyError: () => {},
    });
    clients.push(c);
    return c;
  }

  /** Starts `n` subscriptions and waits until the server holds them (or one was refused: then its error). */
  async function subscribe(c: Client, n: number, user: string): Promise<unknown[]> {
    const errors: unknown[] = [];
    const before = registry().held(`subs:user:${user}`);
    for (let i = 0; i < n; i++) c.subscribe({ query: QUERY }, { next: () => {}, error: (e) => errors.push(e), complete: () => {} });
    const deadline = Date.now() + 10_000;
    while (registry().held(`subs:user:${user}`) < before + n && !errors.length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
    return errors;
  }

  it('answers subscription 101 on one connection with an error for its id (limits.websocket.maxSubscriptionsPerConnection)', async () => {
    const c = client('gql-conn');
    expect(await subscribe(c, 100, 'gql-conn')).to.deep.equal([]);
    const errors = await subscribe(c, 1, 'gql-conn');
    expect(errors).to.have.length(1);
    const [error] = errors[0] as Array<{ message: string; extensions: Record<string, unknown> }>;
    expect(error.extensions).to.deep.equal({
      code: 'INVALID_REQUEST',
      details: { limit: 'limits.websocket.maxSubscriptionsPerConnection', max: 100 },
    });
    expect(registry().held('subs:user:gql-conn')).to.equal(100);
  });

  it('answers subscription 201 of one user over its connections (limits.websocket.maxSubscriptionsPerUser)', async () => {
    expect(await subscribe(client('gql-user'), 100, 'gql-user')).to.deep.equal([]);
    expect(await subscribe(client('gql-user'), 100, 'gql-user')).to.deep.equal([]);
    const errors = await subscribe(client('gql-user'), 1, 'gql-user');
    const [error] = errors[0] as Array<{ extensions: Record<string, unknown> }>;
    expect(error.extensions).to.deep.equal({
      code: 'INVALID_REQUEST',
      details: { limit: 'limits.websocket.maxSubscriptionsPerUser', max: 200 },
    });
    // A completed subscription gives its place back.
    await clients[0].dispose();
    const deadline = Date.now() + 5000;
    while (registry().held('subs:user:gql-user') > 100 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(registry().held('subs:user:gql-user')).to.equal(100);
  });

  it('closes connection 33 of one user with 4429 (limits.websocket.maxConnectionsPerUser)', async () => {
    for (let i = 0; i < 32; i++) await subscribe(client('gql-many'), 1, 'gql-many');
    const code = await new Promise<number>((resolve) => client('gql-many', { closed: (e) => resolve((e as { code: number }).code) }));
    expect(code).to.equal(4429);
    expect(registry().held('conn:user:gql-many')).to.equal(32);
  });

  it('closes a socket flooding messages with 1008', async () => {
    const answer = await upgrade(url(), {}, 'graphql-transport-ws');
    const ws = answer.ws!;
    ws.send(
      JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token({ id: 'pinger', roles: ['manager'] })}` } }),
    );
    for (let i = 0; i < 2000; i++) ws.send('{"type":"ping"}');
    const { code } = await answer.closed;
    expect(code).to.equal(1008);
    expect(answer.messages.filter((m) => m.type === 'pong').length).to.be.at.most(200);
  });
});
