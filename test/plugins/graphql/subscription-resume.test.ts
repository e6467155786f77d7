/**
 * GraphQL subscriptions that resume (`after: Int`, docs/graphql.md "Resuming"): a real server with
 * the events plugin on SQLite and the real graphql-ws client. Each event carries its change feed
 * position in `extensions.position`; a subscription given the last one it saw gets exactly the
 * missed changes of its kind it may see (in order, `where` applied), then live ones, with no gap
 * and no duplicate while writes go on; too far behind is an error; without the events plugin the
 * argument does not exist.
 */
import { expect } from 'chai';
import { createClient, type Client, type ExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';
import { startServer, type TestServer } from '../../helpers/server';
import { MANAGER, MEMBER, startNotesServer, type NotesServer } from '../events/outbox-helpers';
import { SECRET, token } from '../realtime/helpers';

const bearer = (u: { id: string; roles: string[] }) => ({ authorization: `Bearer ${token(u)}` });
const MAX_REPLAY = 40;

interface Sub {
  events: ExecutionResult[];
  next(timeoutMs?: number): Promise<ExecutionResult>;
  none(ms?: number): Promise<void>;
}

function wsClient(url: string, user: { id: string; roles: string[] }, clients: Client[]): Client {
  const c = createClient({
    url: url.replace(/^http/, 'ws') + '/api/graphql',
    webSocketImpl: WebSocket,
    connectionParams: bearer(user),
    lazy: false,
    retryAttempts: 0,
    onNonLazyError: () => {},
  });
  clients.push(c);
  return c;
}

function subscribe(c: Client, query: string): Sub {
  const events: ExecutionResult[] = [];
  const state = { done: false, errors: [] as unknown[] };
  c.subscribe(
    { query },
    {
      next: (value) => void events.push(value as ExecutionResult),
      error: (err) => {
        state.errors.push(err);
        state.done = true;
      },
      complete: () => void (state.done = true),
    },
  );
  return {
    events,
    async next(timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (!events.length) {
        if (state.done) throw new Error(`subscription ended: ${JSON.stringify(state.errors)}`);
        if (Date.now() > deadline) throw new Error('no event in time');
        await new Promise((r) => setTimeout(r, 5));
      }
      return events.shift()!;
    },
    async none(ms = 300) {
      await new Promise((r) => setTimeout(r, ms));
      expect(events, 'no event expected').to.deep.equal([]);
    },
  };
}

describe('GraphQL subscriptions: resume from the change feed', function () {
  this.timeout(20_000);
  let notes: NotesServer;
  let s: TestServer;
  const clients: Client[] = [];

  before(async () => {
    notes = await startNotesServer({ graphql: { maxReplay: MAX_REPLAY }, auth: { jwt: { secret: SECRET } } }, bearer(MANAGER));
    s = notes.server;
  });
  after(async () => {
    await Promise.all(clients.splice(0).map(async (c) => await c.dispose()));
    await notes?.stop();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map(async (c) => await c.dispose()));
  });

  /** Resolves once the server runs `count` more subscriptions than `before`. */
  async function running(before: number, count = 1): Promise<void> {
    const deadline = Date.now() + 5000;
    while (s.kernel.resolve('graphqlSubscriptions').open < before + count && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
  }
  const open = () => s.kernel.resolve('graphqlSubscriptions').open;

  it('has `after: Int` on every subscription field', async () => {
    const res = await s.request(
      'POST',
      '/api/graphql',
      { query: '{ __type(name: "Subscription") { fields { name args { name type { name } } } } }' },
      bearer(MANAGER),
    );
    const fields = res.body.data.__type.fields as Array<{ name: string; args: Array<{ name: string; type: { name: string } }> }>;
    expect(fields.map((f) => f.name)).to.deep.equal(['noteCreated', 'noteUpdated', 'noteDeleted']);
    for (const f of fields) expect(f.args.map((a) => `${a.name}: ${a.type.name}`)).to.deep.equal(['where: NoteWhere', 'after: Int']);
  });

  it('gives each event its position; resumed, it replays the missed changes of its kind it may see, then goes live', async () => {
    const c1 = wsClient(s.url, MEMBER, clients);
    const n = open();
    const live = subscribe(c1, 'subscription { noteUpdated { id title status } }');
    await running(n);
    const a = await notes.create('a');
    await notes.write('PATCH', `${notes.path}/${a.id}`, { status: 'one' });
    const first = await live.next();
    expect(first.data).to.deep.equal({ noteUpdated: { id: a.id, title: 'a', status: 'one' } });
    const seen = first.extensions?.position as number;
    expect(seen).to.be.a('number');
    await c1.dispose();

    // Missed: an update of a, changes out of the member's scope, a create (another kind), another update, a delete.
    await notes.write('PATCH', `${notes.path}/${a.id}`, { title: 'a2' });
    const theirs = await notes.create('theirs', 'someone');
    await notes.write('PATCH', `${notes.path}/${theirs.id}`, { status: 'hidden' });
    await notes.create('b');
    await notes.write('PATCH', `${notes.path}/${a.id}`, { status: 'two' });
    await notes.write('DELETE', `${notes.path}/${a.id}`);

    const c2 = wsClient(s.url, MEMBER, clients);
    const updates = subscribe(c2, `subscription { noteUpdated(after: ${seen}) { id title status } }`);
    const deletes = subscribe(c2, `subscription { noteDeleted(after: ${seen}) { id title } }`);
    const r1 = await updates.next();
    const r2 = await updates.next();
    expect([r1, r2]).to.deep.equal([
      { data: { noteUpdated: { id: a.id, title: 'a2', status: 'one' } }, extensions: { position: seen + 1 } },
      { data: { noteUpdated: { id: a.id, title: 'a2', status: 'two' } }, extensions: { position: seen + 5 } },
    ]);
    expect(await deletes.next()).to.deep.equal({ data: { noteDeleted: { id: a.id, title: 'a2' } }, extensions: { position: seen + 6 } });
    await updates.none(200);

    const c = await notes.create('c');
    await notes.write('PATCH', `${notes.path}/${c.id}`, { status: 'live' });
    expect(await updates.next()).to.deep.equal({
      data: { noteUpdated: { id: c.id, title: 'c', status: 'live' } },
      extensions: { position: seen + 8 },
    });
    await deletes.none(100);
  });

  it('matches `where` on what it replays', async () => {
    const start = await notes.head();
    await notes.create('f1', 'max', { status: 'keep' });
    await notes.create('f2', 'max', { status: 'drop' });
    const sub = subscribe(
      wsClient(s.url, MEMBER, clients),
      `subscription { noteCreated(where: {status: "keep"}, after: ${start}) { title } }`,
    );
    expect(await sub.next()).to.deep.equal({ data: { noteCreated: { title: 'f1' } }, extensions: { position: start + 1 } });
    await sub.none(200);
  });

  it('loses nothing and repeats nothing when writes go on during the replay', async () => {
    const start = await notes.head();
    const total = 30;
    let done = 0;
    const writer = (async () => {
      for (let i = 0; i < total; i++) {
        await notes.create(`w${i}`);
        done++;
      }
    })();
    while (done < 5) await new Promise((r) => setTimeout(r, 5));
    const sub = subscribe(wsClient(s.url, MEMBER, clients), `subscription { noteCreated(after: ${start}) { title } }`);
    await writer;
    const got: Array<[unknown, unknown]> = [];
    while (got.length < total) {
      const e = await sub.next();
      got.push([(e.data as any).noteCreated.title, e.extensions?.position]);
    }
    await sub.none(300);
    expect(got).to.deep.equal(Array.from({ length: total }, (_, i) => [`w${i}`, start + 1 + i]));
  });

  it('answers INVALID_REQUEST naming maxReplay when too far behind', async () => {
    while ((await notes.head()) <= MAX_REPLAY + 1) await notes.create('filler');
    const sub = subscribe(wsClient(s.url, MEMBER, clients), 'subscription { noteCreated(after: 0) { title } }');
    const result = await sub.next();
    expect(result.errors?.[0]?.extensions).to.deep.include({
      code: 'INVALID_REQUEST',
      details: { limit: 'maxReplay', max: MAX_REPLAY, after: 0 },
    });
  });
});

describe('GraphQL subscriptions without the events plugin', function () {
  this.timeout(20_000);
  let s: TestServer;
  const clients: Client[] = [];

  before(async () => {
    s = await startServer({ plugins: { graphql: true, auth: { jwt: { secret: SECRET } } } });
  });
  after(async () => {
    await Promise.all(clients.splice(0).map(async (c) => await c.dispose()));
    await s?.stop();
  });

  it('has no `after` argument: the schema is unchanged', async () => {
    const sub = subscribe(
      wsClient(s.url, { id: 'carol', roles: ['manager'] }, clients),
      'subscription { projectCreated(after: 1) { id } }',
    );
    const err = await sub.next().catch((e: Error) => e);
    expect(String((err as Error).message ?? JSON.stringify(err))).to.match(/after/);
  });
});
