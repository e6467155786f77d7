/**
 * GraphQL subscriptions over graphql-ws (spec: Events, Record subscriptions; Authentication,
 * GraphQL WebSocket): a real server, the real graphql-ws client, changes made over JSON-RPC.
 */
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { createClient, type Client, type ExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';
import { RECORD_CHANGED_CHANNEL } from '../../../kernel';
import { startServer, type TestServer } from '../../helpers/server';
import { contextFor } from '../../../plugins/graphql/context';
import { parseOptions } from '../../../plugins/graphql/options';
import { buildSchema, loadSubgraphBuilder } from '../../../plugins/graphql/schema';
import { createSubscriptions } from '../../../plugins/graphql/subscriptions';

const SECRET = 'subscriptions-test-secret-of-32-characters-at-least';
const PATH = '/api/graphql';

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');
function token(id: string, roles: string[]): string {
  const now = Math.floor(Date.now() / 1000);
  const body = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify({ sub: id, roles, iat: now, exp: now + 3600 }))}`;
  return `${body}.${base64url(createHmac('sha256', SECRET).update(body).digest())}`;
}
const bearer = (id: string, roles: string[]) => ({ authorization: `Bearer ${token(id, roles)}` });

const CAROL = bearer('carol', ['manager']);
const ALICE = bearer('alice', ['member']);
const ADMIN = bearer('root', ['admin']);

interface Sub {
  events: ExecutionResult[];
  errors: unknown[];
  done: boolean;
  next(timeoutMs?: number): Promise<ExecutionResult>;
  none(ms?: number): Promise<void>;
  dispose(): void;
}

describe('GraphQL subscriptions (graphql-ws)', function () {
  this.timeout(20000);
  let server: TestServer;
  let wsUrl: string;
  const clients: Client[] = [];

  before(async () => {
    server = await startServer({ plugins: { graphql: true, rpc: true, rest: true, auth: { jwt: { secret: SECRET } } } });
    wsUrl = server.url.replace(/^http/, 'ws') + PATH;
  });
  after(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map(async (c) => await c.dispose()));
  });

  function client(connectionParams?: Record<string, unknown>, extra: { onClosed?: (e: unknown) => void } = {}): Client {
    const c = createClient({
      url: wsUrl,
      webSocketImpl: WebSocket,
      connectionParams,
      lazy: false,
      retryAttempts: 0,
      on: extra.onClosed ? { closed: extra.onClosed } : undefined,
      onNonLazyError: () => {},
    });
    clients.push(c);
    return c;
  }

  /** Subscribes and resolves once the server has the subscription running (it counts it), or has refused it. */
  async function subscribe(c: Client, query: string, variables?: Record<string, unknown>): Promise<Sub> {
    const before = open();
    const events: ExecutionResult[] = [];
    const errors: unknown[] = [];
    const waiters: Array<() => void> = [];
    const state = { done: false };
    const wake = () => waiters.splice(0).forEach((w) => w());
    const dispose = c.subscribe(
      { query, variables },
      {
        next: (value) => {
          events.push(value as ExecutionResult);
          wake();
        },
        error: (err) => {
          errors.push(err);
          state.done = true;
          wake();
        },
        complete: () => {
          state.done = true;
          wake();
        },
      },
    );
    const sub: Sub = {
      events,
      errors,
      get done() {
        return state.done;
      },
      async next(timeoutMs = 3000) {
        const deadline = Date.now() + timeoutMs;
        while (!events.length) {
          if (state.done) throw new Error(`subscription ended: ${JSON.stringify(errors)}`);
          const left = deadline - Date.now();
          if (left <= 0) throw new Error('no event in time');
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, left);
            waiters.push(() => {
              clearTimeout(t);
              resolve();
            });
          });
        }
        return events.shift()!;
      },
      async none(ms = 400) {
        await new Promise((r) => setTimeout(r, ms));
        expect(events, 'no event expected').to.deep.equal([]);
      },
      dispose,
    };
    // Running once the server counts it (its start-time check passed), or answered already (refused).
    await until(() => open() > before || state.done || events.length > 0);
    return sub;
  }

  /** The subscriptions the server has running. */
  const open = () => server.kernel.resolve('graphqlSubscriptions').open;

  /** Waits (at most 10 s: then the test's own assertions tell what is missing) until `done()` holds. */
  async function until(done: () => boolean): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  }

  const rpc = async (body: Record<string, unknown>, headers: Record<string, string> = CAROL) => {
    const res = await server.rpc(body, headers);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  let n = 0;
  const newName = () => `Sub Project ${++n} ${Date.now()}`;

  describe('schema', () => {
    it('has <object>Created/Updated/Deleted(where: <Type>Where) per object, plain and federated', async () => {
      const k = server.kernel;
      const m = createSubscriptions({
        kernel: k,
        settings: parseOptions({}),
        path: PATH,
        current: () => {
          throw new Error('unused');
        },
        contextFor,
      });
      for (const federation of [undefined, await loadSubgraphBuilder()]) {
        const { schema } = buildSchema(k.registry.objects(), { engine: k.engine, federation, contributors: [m.contributor] });
        const fields = schema.getSubscriptionType()!.getFields();
        expect(Object.keys(fields)).to.include.members([
          'projectCreated',
          'projectUpdated',
          'projectDeleted',
          'taskCreated',
          'accountDeleted',
        ]);
        expect(String(fields.projectCreated.type)).to.equal('Project');
        expect(fields.projectCreated.args.map((a) => `${a.name}: ${String(a.type)}`)).to.deep.equal(['where: ProjectWhere']);
        const where = schema.getType('ProjectWhere') as import('graphql').GraphQLInputObjectType;
        const whereFields = where.getFields();
        expect(String(whereFields.status.type)).to.equal('String');
        expect(String(whereFields.budget.type)).to.equal('Float');
        expect(whereFields).to.not.have.property('tags'); // multiple
        expect(whereFields).to.not.have.property('settings'); // json
      }
    });
  });

  describe('events', () => {
    it('projectCreated delivers the created record with the selected fields', async () => {
      const sub = await subscribe(client(CAROL), 'subscription { projectCreated { id name status owner } }');
      const name = newName();
      const created = await rpc({ op: 'create', object: 'project', args: { name, owner: 'bob', status: 'planning' } });
      const event = await sub.next();
      expect(event).to.deep.equal({ data: { projectCreated: { id: created.id, name, status: 'planning', owner: 'bob' } } });
    });

    it('projectUpdated delivers the record after the change, projectDeleted the record before the delete', async () => {
      const c = client(CAROL);
      const updated = await subscribe(c, 'subscription { projectUpdated { id status budget } }');
      const deleted = await subscribe(c, 'subscription { projectDeleted { id name } }');
      const name = newName();
      const created = await rpc({ op: 'create', object: 'project', args: { name, budget: 10 } });
      await rpc({ op: 'update', object: 'project', args: { id: created.id, data: { status: 'active', budget: 20 } } });
      expect(await updated.next()).to.deep.equal({ data: { projectUpdated: { id: created.id, status: 'active', budget: 20 } } });
      await rpc({ op: 'delete', object: 'project', args: { id: created.id } });
      expect(await deleted.next()).to.deep.equal({ data: { projectDeleted: { id: created.id, name } } });
    });

    it('changes made over REST notify as well', async () => {
      const sub = await subscribe(client(CAROL), 'subscription { accountCreated { id name } }');
      const res = await server.request('POST', '/api/data/account', { name: 'Sub Account' }, CAROL);
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
      const event = await sub.next();
      expect(event.data?.accountCreated).to.include({ name: 'Sub Account' });
    });

    it('is fed by the pubsub: a change published by another instance notifies', async () => {
      const sub = await subscribe(client(CAROL), 'subscription { projectUpdated { id name } }');
      // As pubsub-redis would deliver a change committed on another instance (same store).
      const change = { object: 'project', type: 'updated', id: 'prj-apollo', record: { id: 'prj-apollo' }, user: { id: 'x', roles: [] } };
      await server.kernel.resolve('pubsub').publish(RECORD_CHANGED_CHANNEL, change);
      expect(await sub.next()).to.deep.equal({ data: { projectUpdated: { id: 'prj-apollo', name: 'Apollo Website Relaunch' } } });
      await server.kernel.resolve('pubsub').publish(RECORD_CHANGED_CHANNEL, { nonsense: true });
      await server.kernel.resolve('pubsub').publish(RECORD_CHANGED_CHANNEL, 'text');
      await sub.none(100);
    });

    it('events of one subscription arrive in the order of the changes', async () => {
      const sub = await subscribe(client(CAROL), 'subscription { projectCreated { name } }');
      const names = [newName(), newName(), newName()];
      for (const name of names) await rpc({ op: 'create', object: 'project', args: { name } });
      const got = [await sub.next(), await sub.next(), await sub.next()].map((e) => (e.data as any).projectCreated.name);
      expect(got).to.deep.equal(names);
    });

    it('json fields arrive as JSON text, as in queries', async () => {
      const sub = await subscribe(client(CAROL), 'subscription { projectCreated { settings } }');
      await rpc({ op: 'create', object: 'project', args: { name: newName(), settings: { a: 1 } } });
      expect(await sub.next()).to.deep.equal({ data: { projectCreated: { settings: '{"a":1}' } } });
    });

    it('a completed subscription receives nothing more and is released on the server', async () => {
      const sub = await subscribe(client(CAROL), 'subscription { projectCreated { id } }');
      const running = open();
      sub.dispose();
      await until(() => open() < running);
      expect(open(), 'released on the server').to.equal(running - 1);
      await rpc({ op: 'create', object: 'project', args: { name: newName() } });
      await sub.none(300);
    });
  });

  describe('where', () => {
    it('only matching records produce notifications', async () => {
      const sub = await subscribe(
        client(CAROL),
        'subscription { projectCreated(where: {status: "active", priority: "high"}) { name status priority } }',
      );
      await rpc({ op: 'create', object: 'project', args: { name: newName(), status: 'planning', priority: 'high' } });
      await rpc({ op: 'create', object: 'project', args: { name: newName(), status: 'active', priority: 'low' } });
      const name = newName();
      await rpc({ op: 'create', object: 'project', args: { name, status: 'active', priority: 'high' } });
      expect(await sub.next()).to.deep.equal({ data: { projectCreated: { name, status: 'active', priority: 'high' } } });
      await sub.none(200);
    });

    it('where applies to the updated record, and to the deleted one', async () => {
      const c = client(CAROL);
      const updated = await subscribe(c, 'subscription($w: ProjectWhere) { projectUpdated(where: $w) { id status } }', {
        w: { status: 'on_hold' },
      });
      const deleted = await subscribe(c, 'subscription { projectDeleted(where: {owner: "zed"}) { id owner } }');
      const a = await rpc({ op: 'create', object: 'project', args: { name: newName(), owner: 'zed' } });
      const b = await rpc({ op: 'create', object: 'project', args: { name: newName(), owner: 'yan' } });
      await rpc({ op: 'update', object: 'project', args: { id: b.id, data: { status: 'active' } } });
      await rpc({ op: 'update', object: 'project', args: { id: a.id, data: { status: 'on_hold' } } });
      expect(await updated.next()).to.deep.equal({ data: { projectUpdated: { id: a.id, status: 'on_hold' } } });
      await rpc({ op: 'delete', object: 'project', args: { id: b.id } });
      await rpc({ op: 'delete', object: 'project', args: { id: a.id } });
      expect(await deleted.next()).to.deep.equal({ data: { projectDeleted: { id: a.id, owner: 'zed' } } });
      await updated.none(100);
      await deleted.none(100);
    });

    it('an unknown where field is a GraphQL error at subscribe time', async () => {
      const sub = await subscribe(client(CAROL), 'subscription { projectCreated(where: {nope: "x"}) { id } }');
      expect(sub.done).to.equal(true);
      expect(JSON.stringify(sub.errors)).to.match(/nope/);
      expect(JSON.stringify(sub.errors)).to.include('GRAPHQL_VALIDATION_FAILED');
    });

    it('a where value of the wrong type is a GraphQL error at subscribe time', async () => {
      const sub = await subscribe(client(CAROL), 'subscription { projectCreated(where: {budget: "lots"}) { id } }');
      expect(sub.done).to.equal(true);
      expect(JSON.stringify(sub.errors)).to.match(/budget|Float/);
    });

    it('a where variable of the wrong shape is an error', async () => {
      const sub = await subscribe(client(CAROL), 'subscription($w: ProjectWhere) { projectCreated(where: $w) { id } }', {
        w: { budget: 'lots' },
      });
      const failed = sub.errors.length > 0 || sub.events.some((e) => e.errors?.length);
      expect(failed, JSON.stringify(sub)).to.equal(true);
    });
  });

  describe('permissions', () => {
    it('a member receives only records in her record scope, without hidden fields', async () => {
      const c = client(ALICE);
      const sub = await subscribe(c, 'subscription { projectCreated { id name owner budget } }');
      await rpc({ op: 'create', object: 'project', args: { name: newName(), owner: 'bob', budget: 5 } });
      const mine = newName();
      const created = await rpc(
        { op: 'create', object: 'project', args: { name: mine, owner: 'alice', budget: 7, actual_cost: 3 } },
        ADMIN,
      );
      expect(await sub.next()).to.deep.equal({ data: { projectCreated: { id: created.id, name: mine, owner: 'alice', budget: 7 } } });
      await sub.none(200);
    });

    it('selecting a field hidden from the subscriber is refused at subscribe time', async () => {
      const sub = await subscribe(client(ALICE), 'subscription { projectUpdated { id actual_cost } }');
      const failed = sub.errors.length > 0 || sub.events.some((e) => e.errors?.length);
      expect(failed).to.equal(true);
      // The engine refuses a hidden field as it refuses an unknown one (a query gets the same answer).
      expect(JSON.stringify([sub.errors, sub.events]))
        .to.include('INVALID_REQUEST')
        .and.to.include('actual_cost');
    });

    it('where on a field hidden from the subscriber is refused at subscribe time', async () => {
      const sub = await subscribe(client(ALICE), 'subscription { projectCreated(where: {actual_cost: 3}) { id } }');
      const failed = sub.errors.length > 0 || sub.events.some((e) => e.errors?.length);
      expect(failed).to.equal(true);
      expect(JSON.stringify([sub.errors, sub.events])).to.include('actual_cost');
    });

    it('a member hears deletes only of records in her scope', async () => {
      const c = client(ALICE);
      const sub = await subscribe(c, 'subscription { projectDeleted { id name } }');
      const other = await rpc({ op: 'create', object: 'project', args: { name: newName(), owner: 'bob' } });
      const mineName = newName();
      const mine = await rpc({ op: 'create', object: 'project', args: { name: mineName, owner: 'alice' } });
      await rpc({ op: 'delete', object: 'project', args: { id: other.id } });
      await rpc({ op: 'delete', object: 'project', args: { id: mine.id } });
      expect(await sub.next()).to.deep.equal({ data: { projectDeleted: { id: mine.id, name: mineName } } });
      await sub.none(200);
    });

    it('a member updated out of her scope is not notified; updates in scope are', async () => {
      const sub = await subscribe(client(ALICE), 'subscription { projectUpdated { id owner } }');
      const p = await rpc({ op: 'create', object: 'project', args: { name: newName(), owner: 'alice' } });
      await rpc({ op: 'update', object: 'project', args: { id: p.id, data: { owner: 'bob' } } });
      await rpc({ op: 'update', object: 'project', args: { id: p.id, data: { owner: 'alice' } } });
      expect(await sub.next()).to.deep.equal({ data: { projectUpdated: { id: p.id, owner: 'alice' } } });
      await sub.none(200);
    });

    it('an object the subscriber may not read is refused at subscribe time', async () => {
      const sub = await subscribe(client(ALICE), 'subscription { expenseCreated { id } }');
      expect(JSON.stringify([sub.errors, sub.events])).to.include('FORBIDDEN');
    });
  });

  describe('connection', () => {
    const closedCode = (params?: Record<string, unknown>) =>
      new Promise<number>((resolve) => {
        client(params, { onClosed: (e) => resolve((e as { code: number }).code) });
      });

    it('refuses a socket without credentials (authentication required) with 4403', async () => {
      expect(await closedCode()).to.equal(4403);
    });

    it('refuses an invalid token with 4403', async () => {
      expect(await closedCode({ authorization: 'Bearer not.a.token' })).to.equal(4403);
      expect(await closedCode({ authorization: `Bearer ${token('carol', ['manager'])}x` })).to.equal(4403);
      expect(await closedCode({ authorization: 42 })).to.equal(4403);
    });

    it('lets anonymous subscribers in when authentication is not required, with what anonymous callers may read', async () => {
      const s = await startServer({ plugins: { graphql: true, rpc: true, auth: { jwt: { secret: SECRET }, required: false } } });
      const c = createClient({ url: s.url.replace(/^http/, 'ws') + PATH, webSocketImpl: WebSocket, retryAttempts: 0 });
      try {
        const events: ExecutionResult[] = [];
        const errors: ExecutionResult[] = [];
        c.subscribe(
          { query: 'subscription { accountCreated { name } }' },
          { next: (e) => void events.push(e as ExecutionResult), error: () => {}, complete: () => {} },
        );
        c.subscribe(
          { query: 'subscription { projectCreated { name } }' },
          { next: (e) => void errors.push(e as ExecutionResult), error: () => {}, complete: () => {} },
        );
        await new Promise((r) => setTimeout(r, 300));
        const res = await s.rpc({ op: 'create', object: 'account', args: { name: 'Anon Visible' } }, CAROL);
        expect(res.status).to.equal(200);
        await new Promise((r) => setTimeout(r, 300));
        expect(events).to.deep.equal([{ data: { accountCreated: { name: 'Anon Visible' } } }]);
        expect(JSON.stringify(errors)).to.include('UNAUTHORIZED');
      } finally {
        await c.dispose();
        await s.stop();
      }
    });

    it('serves queries on the socket too, as the connected user', async () => {
      const c = client(ALICE);
      const result = await new Promise<ExecutionResult>((resolve, reject) => {
        c.subscribe({ query: '{ projectList { owner } }' }, { next: resolve as never, error: reject, complete: () => {} });
      });
      const owners = new Set(((result.data as any).projectList as Array<{ owner: string }>).map((p) => p.owner));
      expect([...owners]).to.deep.equal(['alice']);
    });

    it('survives malformed messages: the bad socket is closed, others keep working', async () => {
      const sub = await subscribe(client(CAROL), 'subscription { projectCreated { name } }');
      const raw = new WebSocket(wsUrl, 'graphql-transport-ws');
      await new Promise((resolve, reject) => {
        raw.once('open', resolve);
        raw.once('error', reject);
      });
      const closed = new Promise<number>((resolve) => raw.once('close', (code) => resolve(code)));
      raw.send('this is not json');
      expect(await closed).to.equal(4400);

      const raw2 = new WebSocket(wsUrl, 'graphql-transport-ws');
      await new Promise((resolve) => raw2.once('open', resolve));
      const closed2 = new Promise<number>((resolve) => raw2.once('close', (code) => resolve(code)));
      raw2.send(JSON.stringify({ type: 'connection_init', payload: ALICE }));
      raw2.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: 42 } }));
      expect(await closed2).to.be.oneOf([4400, 4401]);

      const raw3 = new WebSocket(wsUrl, 'graphql-transport-ws');
      await new Promise((resolve) => raw3.once('open', resolve));
      const closed3 = new Promise<number>((resolve) => raw3.once('close', (code) => resolve(code)));
      raw3.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: 'subscription { projectCreated { id } }' } }));
      expect(await closed3).to.equal(4401); // subscribe before connection_init

      const name = newName();
      await rpc({ op: 'create', object: 'project', args: { name } });
      expect(await sub.next()).to.deep.equal({ data: { projectCreated: { name } } });
    });

    it('an upgrade to another path is refused', async () => {
      const raw = new WebSocket(server.url.replace(/^http/, 'ws') + '/api/other', 'graphql-transport-ws');
      const error = await new Promise<Error>((resolve) => raw.once('error', resolve));
      expect(error.message).to.match(/404/);
    });
  });

  describe('stop', () => {
    it('closes every socket when the kernel stops, and stops promptly', async () => {
      const s = await startServer({ plugins: { graphql: true, rpc: true, rest: true, auth: { jwt: { secret: SECRET } } } });
      const url = s.url.replace(/^http/, 'ws') + PATH;
      const raw = new WebSocket(url, 'graphql-transport-ws');
      await new Promise((resolve) => raw.once('open', resolve));
      raw.send(JSON.stringify({ type: 'connection_init', payload: CAROL }));
      await new Promise((resolve) => raw.once('message', resolve));
      raw.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: 'subscription { projectCreated { id } }' } }));
      await until(() => s.kernel.resolve('graphqlSubscriptions').open === 1);
      const closed = new Promise<number>((resolve) => raw.once('close', (code) => resolve(code)));
      const started = Date.now();
      await s.stop();
      expect(await closed).to.be.oneOf([1001, 1006]);
      expect(Date.now() - started).to.be.below(5000);
    });
  });
});
