/**
 * The realtime WebSocket API over a real server and a real `ws` client: authentication, subscribe
 * and the changes of writes made through JSON-RPC, filters, permissions (scope and hidden fields),
 * unsubscribe, errors for bad messages, ping/pong and limits.
 */
import { expect } from 'chai';
import { startServer, USERS, type TestServer } from '../../helpers/server';
import { Client, SECRET, token, wsUrl, type Msg } from './helpers';

const auth = (u: { id: string; roles: string[] }) => ({ authorization: `Bearer ${token(u)}` });

describe('realtime plugin', function () {
  let server: TestServer;
  let url: string;
  const clients: Client[] = [];
  let seq = 0;

  before(async () => {
    server = await startServer({
      plugins: { realtime: { maxSubscriptions: 3, maxMessageBytes: 1024 }, rpc: true, auth: { jwt: { secret: SECRET } } },
    });
    url = wsUrl(server.url);
  });
  after(async () => {
    for (const c of clients.splice(0)) c.close();
    await server?.stop();
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });

  async function open(headers: Record<string, string> = {}): Promise<Client> {
    const c = await Client.open(url, headers);
    clients.push(c);
    return c;
  }
  async function as(u: { id: string; roles: string[] }): Promise<Client> {
    const c = await open();
    const ack = await c.request({ type: 'auth', id: 'a', token: token(u) });
    expect(ack).to.deep.include({ type: 'ack', id: 'a' });
    return c;
  }
  const change = (sub: string, op?: string) => (m: Msg) => m.type === 'change' && m.subscription === sub && (!op || m.operation === op);
  const rpc = async (u: { id: string; roles: string[] }, body: unknown) => {
    const res = await server.rpc(body, auth(u));
    expect(res.status, JSON.stringify(res.body)).to.be.lessThan(300);
    return res.body;
  };
  const name = () => `RT project ${process.pid}-${++seq}`;

  describe('authentication', () => {
    it('acks a valid token with the user', async () => {
      const c = await open();
      const ack = await c.request({ type: 'auth', id: 1, token: token(USERS.carol) });
      expect(ack).to.deep.equal({ type: 'ack', id: '1', user: { id: 'carol', roles: ['manager'] } });
    });

    it('answers a bad token with UNAUTHORIZED and keeps the connection', async () => {
      const c = await open();
      const err = await c.request({ type: 'auth', id: 'x', token: token(USERS.carol, 'another-secret-of-at-least-32-characters!!') });
      expect(err).to.include({ type: 'error', id: 'x', code: 'UNAUTHORIZED' });
      const pong = (c.send({ type: 'ping' }), await c.next());
      expect(pong).to.deep.equal({ type: 'pong' });
    });

    it('accepts an Authorization header on the upgrade request', async () => {
      const c = await open(auth(USERS.carol));
      expect(await c.request({ type: 'subscribe', id: 's', object: 'project' })).to.deep.equal({ type: 'ack', id: 's', object: 'project' });
    });

    it('refuses the upgrade when the Authorization header is invalid (401)', async () => {
      const err = await Client.open(url, { authorization: 'Bearer not-a-token' }).catch((e: { status?: number }) => e);
      expect((err as { status?: number }).status).to.equal(401);
    });

    it('lets anonymous callers subscribe when the auth settings let them in, as anonymous', async () => {
      // required defaults to false: no credentials means anonymous; project has a permission file, so anonymous may not read it.
      const c = await open();
      const err = await c.request({ type: 'subscribe', id: 's', object: 'project' });
      expect(err).to.include({ type: 'error', code: 'UNAUTHORIZED' });
    });
  });

  describe('changes', () => {
    it('delivers created, updated and deleted changes of JSON-RPC writes', async () => {
      const c = await as(USERS.carol);
      expect(await c.request({ type: 'subscribe', id: 'p', object: 'project' })).to.include({ type: 'ack' });
      const n = name();
      const created = await rpc(USERS.carol, { op: 'create', object: 'project', args: { name: n, budget: 100 } });
      const m1 = await c.next(change('p', 'created'));
      expect(m1).to.deep.include({ type: 'change', subscription: 'p', object: 'project', operation: 'created' });
      expect(m1.record).to.include({ id: created.id, name: n, budget: 100 });

      await rpc(USERS.carol, { op: 'update', object: 'project', args: { id: created.id, data: { budget: 200 } } });
      const m2 = await c.next(change('p', 'updated'));
      expect(m2.record).to.include({ id: created.id, budget: 200, name: n });

      await rpc(USERS.carol, { op: 'delete', object: 'project', args: { id: created.id } });
      const m3 = await c.next(change('p', 'deleted'));
      expect(m3.record).to.include({ id: created.id, name: n });
    });

    it('applies the subscription filter', async () => {
      const c = await as(USERS.carol);
      await c.request({ type: 'subscribe', id: 'big', object: 'project', filters: [['budget', '>', 1000]] });
      const small = await rpc(USERS.carol, { op: 'create', object: 'project', args: { name: name(), budget: 10 } });
      const big = await rpc(USERS.carol, { op: 'create', object: 'project', args: { name: name(), budget: 5000 } });
      const m = await c.next(change('big'));
      expect(m.record.id).to.equal(big.id);
      await c.none((x) => x.type === 'change' && x.record?.id === small.id);
      // Updated into the filter: delivered; deleted while outside: not.
      await rpc(USERS.carol, { op: 'update', object: 'project', args: { id: small.id, data: { budget: 2000 } } });
      expect((await c.next(change('big', 'updated'))).record.id).to.equal(small.id);
      await rpc(USERS.carol, { op: 'update', object: 'project', args: { id: big.id, data: { budget: 1 } } });
      await rpc(USERS.carol, { op: 'delete', object: 'project', args: { id: big.id } });
      await c.none(change('big', 'deleted'));
    });

    it('gives a member only the records in scope, without hidden fields (also for deletes)', async () => {
      const alice = await as(USERS.alice);
      await alice.request({ type: 'subscribe', id: 'mine', object: 'project' });
      const bobs = await rpc(USERS.carol, { op: 'create', object: 'project', args: { name: name(), owner: 'bob', budget: 1 } });
      const hers = await rpc(USERS.carol, {
        op: 'create',
        object: 'project',
        args: { name: name(), owner: 'alice', budget: 2, actual_cost: 7 },
      });
      const m = await alice.next(change('mine', 'created'));
      expect(m.record.id).to.equal(hers.id);
      expect(m.record).to.not.have.property('actual_cost');
      await rpc(USERS.carol, { op: 'update', object: 'project', args: { id: bobs.id, data: { budget: 3 } } });
      await rpc(USERS.carol, { op: 'delete', object: 'project', args: { id: bobs.id } });
      await alice.none((x) => x.type === 'change' && x.record?.id === bobs.id);
      await rpc(USERS.carol, { op: 'delete', object: 'project', args: { id: hers.id } });
      const d = await alice.next(change('mine', 'deleted'));
      expect(d.record.id).to.equal(hers.id);
      expect(d.record).to.not.have.property('actual_cost');
    });

    it('refuses a filter on a field the member may not read', async () => {
      const alice = await as(USERS.alice);
      const err = await alice.request({ type: 'subscribe', id: 'h', object: 'project', filters: [['actual_cost', '>', 1]] });
      expect(err).to.include({ type: 'error', id: 'h' });
      expect(err.message).to.contain('actual_cost');
    });

    it('stops delivering after unsubscribe', async () => {
      const c = await as(USERS.carol);
      await c.request({ type: 'subscribe', id: 'u', object: 'project' });
      expect(await c.request({ type: 'unsubscribe', id: 'u' })).to.deep.equal({ type: 'ack', id: 'u' });
      await rpc(USERS.carol, { op: 'create', object: 'project', args: { name: name() } });
      await c.none(change('u'));
    });
  });

  describe('errors and limits', () => {
    const cases: Array<[string, unknown, string, string]> = [
      ['malformed JSON', '{"type":', 'INVALID_REQUEST', 'Malformed JSON'],
      ['a non-object message', '[1]', 'INVALID_REQUEST', 'JSON object'],
      ['an unknown type', { type: 'dance' }, 'INVALID_REQUEST', 'dance'],
      ['an unknown object', { type: 'subscribe', id: 'e', object: 'nope' }, 'NOT_FOUND', 'nope'],
      [
        'an unknown field',
        { type: 'subscribe', id: 'e', object: 'project', filters: [['colour', '=', 'red']] },
        'INVALID_REQUEST',
        'colour',
      ],
      [
        'an unknown operator',
        { type: 'subscribe', id: 'e', object: 'project', filters: [['name', 'resembles', 'x']] },
        'INVALID_REQUEST',
        'resembles',
      ],
      ['unsubscribing an unknown id', { type: 'unsubscribe', id: 'zz' }, 'NOT_FOUND', 'zz'],
      ['an auth without token', { type: 'auth', id: 't' }, 'INVALID_REQUEST', 'token'],
    ];
    for (const [what, message, code, text] of cases) {
      it(`answers ${what} with ${code} and keeps the connection`, async () => {
        const c = await as(USERS.carol);
        c.send(message);
        const err = await c.next((m) => m.type === 'error');
        expect(err.code, JSON.stringify(err)).to.be.oneOf([code, 'VALIDATION_ERROR']);
        if (code !== 'INVALID_REQUEST') expect(err.code).to.equal(code);
        expect(err.message).to.contain(text);
        c.send({ type: 'ping', id: 'p' });
        expect(await c.next()).to.deep.equal({ type: 'pong', id: 'p' });
      });
    }

    it('answers subscribe before auth with UNAUTHORIZED when authentication is required', async () => {
      const strict = await startServer({ plugins: { realtime: true, rpc: true, auth: { jwt: { secret: SECRET }, required: true } } });
      try {
        const c = await Client.open(wsUrl(strict.url));
        clients.push(c);
        const err = await c.request({ type: 'subscribe', id: 's', object: 'project' });
        expect(err).to.include({ type: 'error', id: 's', code: 'UNAUTHORIZED' });
        c.send({ type: 'ping' });
        expect(await c.next()).to.deep.equal({ type: 'pong' });
        await c.request({ type: 'auth', id: 'a', token: token(USERS.carol) });
        expect(await c.request({ type: 'subscribe', id: 's', object: 'project' })).to.include({ type: 'ack' });
        c.close();
      } finally {
        await strict.stop();
      }
    });

    it('limits subscriptions per socket', async () => {
      const c = await as(USERS.carol);
      for (const id of ['1', '2', '3']) expect(await c.request({ type: 'subscribe', id, object: 'project' })).to.include({ type: 'ack' });
      const err = await c.request({ type: 'subscribe', id: '4', object: 'project' });
      expect(err).to.include({ code: 'INVALID_REQUEST' });
      expect(err.message).to.contain('At most 3');
      expect(await c.request({ type: 'subscribe', id: '1', object: 'task' })).to.include({ type: 'error' });
    });

    it('refuses messages above the size limit, keeping the connection', async () => {
      const c = await as(USERS.carol);
      c.send({ type: 'ping', pad: 'x'.repeat(2000) });
      const err = await c.next();
      expect(err).to.include({ type: 'error', code: 'INVALID_REQUEST' });
      expect(err.message).to.contain('1024');
      c.send({ type: 'ping' });
      expect(await c.next()).to.deep.equal({ type: 'pong' });
    });

    it('answers ping with pong', async () => {
      const c = await open();
      c.send({ type: 'ping' });
      expect(await c.next()).to.deep.equal({ type: 'pong' });
    });

    it('closes its sockets when the server stops', async () => {
      const own = await startServer({ plugins: { realtime: true, auth: { jwt: { secret: SECRET } } } });
      const c = await Client.open(wsUrl(own.url), auth(USERS.carol));
      const t0 = Date.now();
      await own.stop();
      expect(Date.now() - t0).to.be.lessThan(3000);
      await new Promise((r) => setTimeout(r, 50));
      expect(c.closed?.code).to.equal(1001);
    });
  });
});
