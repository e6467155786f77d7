/**
 * WebSocket upgrades and logins over a socket count against the caller's rate limit as HTTP
 * requests do: a storm of upgrades with wrong credentials gets 429 (with Retry-After) before the
 * handshake once the anonymous budget is spent, and failed logins over an open socket (realtime
 * `auth`, graphql-ws connection_init) count as failed logins over HTTP do. Real server, real clients.
 */
import { expect } from 'chai';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startServer, type TestServer } from '../../helpers/server';
import { Client, SECRET, token } from '../realtime/helpers';
import { closed, upgrade } from '../../server/websocket/upgrade';

const ANONYMOUS_PER_MINUTE = 20;

describe('rate limit on WebSockets', function () {
  let server: TestServer;
  beforeEach(async () => {
    server = await startServer({
      plugins: { rpc: true, realtime: true, graphql: true, auth: { jwt: { secret: SECRET } }, 'rate-limit': true },
    });
  });
  afterEach(async () => {
    await server?.stop();
  });
  const ws = (path: string) => server.url.replace(/^http/, 'ws') + path;
  const wrongKey = { authorization: `Bearer ${token({ id: 'mallory', roles: [] }, 'not-the-secret-but-32-characters-long!!')}` };

  it('answers 429 with Retry-After to an upgrade storm with wrong credentials, after the anonymous budget (HTTP alike)', async () => {
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof upgrade>> | undefined;
    for (let i = 0; i < 30; i++) {
      const answer = await upgrade(ws('/api/realtime'), wrongKey);
      answer.ws?.terminate();
      statuses.push(answer.status);
      if (answer.status === 429) refused ??= answer;
    }
    expect(statuses.slice(0, ANONYMOUS_PER_MINUTE)).to.deep.equal(Array(ANONYMOUS_PER_MINUTE).fill(401));
    expect(statuses.slice(ANONYMOUS_PER_MINUTE)).to.deep.equal(Array(30 - ANONYMOUS_PER_MINUTE).fill(429));
    expect(refused!.body.error.code).to.equal('RATE_LIMIT_EXCEEDED');
    expect(Number(refused!.headers['retry-after'])).to.equal(refused!.body.error.details.retry_after).and.be.at.least(1);
    expect(refused!.headers['x-ratelimit-remaining']).to.equal('0');
    // The same budget as HTTP: this address is refused there too now.
    expect((await server.rpc({ method: 'find', object: 'account' })).status).to.equal(429);
  });

  it("counts failed realtime 'auth' messages like failed logins: RATE_LIMIT_EXCEEDED once the budget is spent", async () => {
    const c = await Client.open(ws('/api/realtime')); // the upgrade counts 1
    const codes: string[] = [];
    for (let i = 0; i < 25; i++) {
      const reply = await c.request({ type: 'auth', id: i, token: 'not-a-token' });
      codes.push(reply.code);
      if (reply.code === 'RATE_LIMIT_EXCEEDED') expect(reply.details.retry_after).to.be.at.least(1);
    }
    c.close();
    expect(codes.slice(0, ANONYMOUS_PER_MINUTE - 1)).to.deep.equal(Array(ANONYMOUS_PER_MINUTE - 1).fill('UNAUTHORIZED'));
    expect(codes.slice(ANONYMOUS_PER_MINUTE - 1)).to.deep.equal(Array(25 - ANONYMOUS_PER_MINUTE + 1).fill('RATE_LIMIT_EXCEEDED'));
    expect((await upgrade(ws('/api/realtime'))).status).to.equal(429);
  });

  it('counts graphql-ws connection_init refusals: 4403 Forbidden, then 4429 and a 429 on the upgrade', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) {
      const answer = await upgrade(ws('/api/graphql'), {}, 'graphql-transport-ws');
      if (answer.status !== 101) {
        codes.push(answer.status);
        continue;
      }
      const socket = answer.ws!;
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer wrong' } }));
      codes.push((await closed(socket)).code);
    }
    // Each connection counts its upgrade and its connection_init: 20 anonymous requests are 10 connections.
    expect(codes.slice(0, 10)).to.deep.equal(Array(10).fill(4403));
    expect(codes.slice(10)).to.deep.equal([429, 429]);
  });

  it('lets the graphql-ws client see the 4429 close when only its connection_init is over the budget', async () => {
    // 19 HTTP requests leave one: the upgrade takes it, the connection_init is refused.
    for (let i = 0; i < ANONYMOUS_PER_MINUTE - 1; i++) await server.rpc({ method: 'find', object: 'account' }, wrongKey);
    let client: ReturnType<typeof createClient> | undefined;
    const closedWith = await new Promise<number>((resolve) => {
      client = createClient({
        url: ws('/api/graphql'),
        webSocketImpl: WebSocket,
        connectionParams: wrongKey,
        lazy: false,
        retryAttempts: 0,
        on: { closed: (e) => resolve((e as { code: number }).code) },
        onNonLazyError: () => {},
      });
    });
    await client?.dispose();
    expect(closedWith).to.equal(4429);
  });
});
