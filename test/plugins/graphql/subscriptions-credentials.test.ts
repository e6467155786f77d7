/**
 * Which credential a graphql-ws connection is judged on: its connection_init payload's
 * `authorization` or `x-api-key` in any letter case (what GraphiQL sends: its HTTP headers), else
 * the upgrade request's own Authorization, X-API-Key or session cookie — each checked as over HTTP,
 * a refused one closing the socket with 4403. Real server, raw `ws` sockets speaking graphql-ws.
 */
import { expect } from 'chai';
import { startServer, type TestServer } from '../../helpers/server';
import { SECRET, token } from '../realtime/helpers';
import { upgrade, type UpgradeAnswer } from '../../server/websocket/upgrade';

const ALICE_KEY = 'subscriptions-key-alice-0001';
const CAROL_KEY = 'subscriptions-key-carol-0001';
const BOB_TOKEN = () => token({ id: 'bob', roles: ['member'] });

describe('GraphQL subscriptions: credentials of a connection', function () {
  this.timeout(20000);
  let server: TestServer;
  let cookie: string;
  const sockets: UpgradeAnswer[] = [];

  before(async () => {
    server = await startServer({
      plugins: {
        rpc: true,
        graphql: true,
        auth: {
          jwt: { secret: SECRET },
          apiKeys: [
            { key: ALICE_KEY, user: { id: 'alice', roles: ['member'] } },
            { key: CAROL_KEY, user: { id: 'carol', roles: ['manager'] } },
          ],
          sessions: true,
        },
      },
    });
    const res = await server.request('POST', '/api/auth/session', undefined, { 'X-API-Key': ALICE_KEY });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    cookie = String(res.headers.get('set-cookie')).split(';')[0];
  });
  after(async () => {
    await server?.stop();
  });
  afterEach(() => {
    for (const s of sockets.splice(0)) s.ws?.terminate();
  });

  /** Opens a socket with these upgrade headers and sends connection_init with `payload`: the ack, or the close code. */
  async function connect(payload: unknown, headers: Record<string, string> = {}): Promise<UpgradeAnswer & { code?: number }> {
    const answer = await upgrade(server.url.replace(/^http/, 'ws') + '/api/graphql', headers, 'graphql-transport-ws');
    expect(answer.status, JSON.stringify(answer.body)).to.equal(101);
    sockets.push(answer);
    const acked = message(answer, (m) => m.type === 'connection_ack');
    answer.ws!.send(JSON.stringify({ type: 'connection_init', ...(payload === undefined ? {} : { payload }) }));
    const code = await Promise.race([answer.closed.then((c) => c.code), acked.then(() => undefined)]);
    return Object.assign(answer, { code });
  }

  /** The first message `match` takes, from those received so far or the next ones; rejects when the socket closes first. */
  function message(answer: UpgradeAnswer, match: (m: any) => boolean): Promise<any> {
    const seen = answer.messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const ws = answer.ws!;
      const onMessage = (data: Buffer) => {
        const m = JSON.parse(data.toString('utf8'));
        if (!match(m)) return;
        ws.off('close', onClose);
        ws.off('message', onMessage);
        resolve(m);
      };
      const onClose = (code: number) => {
        ws.off('message', onMessage);
        reject(new Error(`closed with ${code}`));
      };
      ws.on('message', onMessage);
      ws.once('close', onClose);
    });
  }

  /** The owners of the projects the connection's user sees, through a query on the socket. */
  async function owners(answer: UpgradeAnswer): Promise<string[]> {
    const reply = message(answer, (m) => m.id === 'q' && m.type === 'next');
    answer.ws!.send(JSON.stringify({ id: 'q', type: 'subscribe', payload: { query: '{ projectList { owner } }' } }));
    const next = await reply;
    return [...new Set((next.payload.data.projectList as Array<{ owner: string }>).map((p) => p.owner))].sort();
  }

  it('takes X-API-Key from connection_init in any letter case, as the key over HTTP', async () => {
    const alice = await connect({ 'X-API-Key': ALICE_KEY });
    expect(alice.code).to.equal(undefined);
    expect(await owners(alice)).to.deep.equal(['alice']);
    const carol = await connect({ 'x-api-key': CAROL_KEY });
    expect(carol.code).to.equal(undefined);
    expect(await owners(carol)).to.deep.equal(['alice', 'bob']);
  });

  it('takes Authorization in any letter case, and the Bearer token first when both are given (as over HTTP)', async () => {
    const bob = await connect({ Authorization: `Bearer ${BOB_TOKEN()}`, 'X-API-Key': CAROL_KEY });
    expect(bob.code).to.equal(undefined);
    expect(await owners(bob)).to.deep.equal(['bob']);
  });

  it('refuses a wrong key, a key that is not a string and two spellings with different values: 4403', async () => {
    expect((await connect({ 'X-API-Key': 'not-a-key-of-this-server' })).code).to.equal(4403);
    expect((await connect({ 'X-API-Key': 42 })).code).to.equal(4403);
    expect((await connect({ 'X-API-Key': ALICE_KEY, 'x-api-key': CAROL_KEY })).code).to.equal(4403);
    expect((await connect({ authorization: ALICE_KEY })).code).to.equal(4403); // not "Bearer <token>"
  });

  it("without credentials in connection_init, takes the upgrade request's X-API-Key, Authorization or session cookie", async () => {
    const byKey = await connect(undefined, { 'X-API-Key': CAROL_KEY });
    expect(byKey.code).to.equal(undefined);
    expect(await owners(byKey)).to.deep.equal(['alice', 'bob']);
    const byToken = await connect({}, { authorization: `Bearer ${BOB_TOKEN()}` });
    expect(await owners(byToken)).to.deep.equal(['bob']);
    const host = new URL(server.url).host;
    const bySession = await connect({}, { cookie, origin: `http://${host}` });
    expect(bySession.code).to.equal(undefined);
    expect(await owners(bySession)).to.deep.equal(['alice']);
    expect((await connect(undefined, { 'X-API-Key': 'not-a-key-of-this-server' })).code).to.equal(4403);
  });

  it("prefers connection_init's credential to the upgrade's", async () => {
    const carol = await connect({ 'X-API-Key': CAROL_KEY }, { 'X-API-Key': ALICE_KEY, cookie });
    expect(await owners(carol)).to.deep.equal(['alice', 'bob']);
  });
});
