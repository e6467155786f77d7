/**
 * Cross-site WebSocket hijacking: a page of another site opening the realtime or GraphQL socket
 * with the user's session cookie is refused (403) before the handshake; the service's own pages,
 * configured origins and non-browser clients are let in. Real server, real `ws` client.
 */
import { expect } from 'chai';
import type { ObjectQLConfig } from '../../../kernel';
import { startServer, type TestServer } from '../../helpers/server';
import { SECRET, token } from '../../plugins/realtime/helpers';
import { upgrade } from './upgrade';

const CAROL = { id: 'carol', roles: ['manager'] };

describe('WebSocket Origin check', function () {
  let server: TestServer;
  let cookie: string;
  let host: string;

  async function start(security: ObjectQLConfig['security'] = {}): Promise<void> {
    server = await startServer({
      security,
      plugins: { rpc: true, realtime: true, graphql: true, auth: { jwt: { secret: SECRET }, sessions: true } },
    });
    const res = await server.request('POST', '/api/auth/session', undefined, { authorization: `Bearer ${token(CAROL)}` });
    expect(res.status, JSON.stringify(res.body)).to.be.lessThan(300);
    cookie = String(res.headers.get('set-cookie')).split(';')[0];
    host = new URL(server.url).host;
  }
  afterEach(async () => {
    await server?.stop();
  });

  const realtime = () => server.url.replace(/^http/, 'ws') + '/api/realtime';
  const graphql = () => server.url.replace(/^http/, 'ws') + '/api/graphql';

  it('refuses a cookie-bearing upgrade from another origin with 403, on realtime and GraphQL alike', async () => {
    await start();
    for (const url of [realtime(), graphql()]) {
      const answer = await upgrade(url, { cookie, origin: 'https://evil.example' }, 'graphql-transport-ws');
      expect(answer.status, url).to.equal(403);
      expect(answer.body.error).to.include({ code: 'FORBIDDEN' });
      expect(answer.body.error.details).to.deep.equal({ origin: 'https://evil.example', limit: 'security.websocketOrigins' });
    }
  });

  it("accepts the service's own origin with the cookie: the socket is the session's user", async () => {
    await start();
    const answer = await upgrade(realtime(), { cookie, origin: `http://${host}` });
    expect(answer.status).to.equal(101);
    const ws = answer.ws!;
    const reply = new Promise<any>((resolve) => ws.once('message', (data) => resolve(JSON.parse((data as Buffer).toString('utf8')))));
    ws.send(JSON.stringify({ type: 'subscribe', id: 's', object: 'project' }));
    expect(await reply).to.deep.equal({ type: 'ack', id: 's', object: 'project' });
    ws.terminate();
  });

  it('lets in clients without an Origin (not a browser) and sockets without a cookie from any origin', async () => {
    await start();
    const noOrigin = await upgrade(realtime(), { cookie });
    expect(noOrigin.status).to.equal(101);
    noOrigin.ws!.terminate();
    const bearer = await upgrade(realtime(), { authorization: `Bearer ${token(CAROL)}`, origin: 'https://other.example' });
    expect(bearer.status).to.equal(101);
    bearer.ws!.terminate();
  });

  it('refuses the opaque origin null (sandboxed frames, file: pages)', async () => {
    await start();
    expect((await upgrade(realtime(), { cookie, origin: 'null' })).status).to.equal(403);
  });

  it('accepts origins listed in security.websocketOrigins, and CORS origins allowed credentials', async () => {
    await start({ websocketOrigins: ['https://app.example'], cors: { origin: ['https://spa.example'], credentials: true } });
    for (const origin of ['https://app.example', 'https://spa.example']) {
      const answer = await upgrade(realtime(), { cookie, origin });
      expect(answer.status, origin).to.equal(101);
      answer.ws!.terminate();
    }
    expect((await upgrade(realtime(), { cookie, origin: 'https://evil.example' })).status).to.equal(403);
  });

  it('does not take CORS origins without credentials as allowed for cookies', async () => {
    await start({ cors: { origin: 'https://public.example' } });
    expect((await upgrade(realtime(), { cookie, origin: 'https://public.example' })).status).to.equal(403);
  });
});
