/**
 * Realtime resume (`subscribe` with `after`, docs/realtime.md "Resuming"): a real server with the
 * events plugin on SQLite and real `ws` clients. A client that reconnects with the last position it
 * saw gets exactly the changes it missed and may see (in order, filter applied, out-of-scope ones
 * left out), then live ones; writes during the replay are neither lost nor sent twice; too far
 * behind is an error; without the events plugin `after` is refused.
 */
import { expect } from 'chai';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';
import { MANAGER, MEMBER, startNotesServer, type NotesServer } from '../events/outbox-helpers';
import { Client, wsUrl, type Msg } from './helpers';

const MAX_REPLAY = 40;

describe('realtime: resume from the change feed', function () {
  this.timeout(20_000);
  let notes: NotesServer;
  let s: TestServer;
  const clients: Client[] = [];

  before(async () => {
    notes = await startNotesServer({ realtime: { maxReplay: MAX_REPLAY } }, identityHeader(MANAGER), { identityFromHeader: true });
    s = notes.server;
  });
  after(async () => {
    for (const c of clients.splice(0)) c.close();
    await notes?.stop();
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });

  async function open(user: object): Promise<Client> {
    const c = await Client.open(wsUrl(s.url), identityHeader(user));
    clients.push(c);
    return c;
  }
  const change = (sub: string) => (m: Msg) => m.type === 'change' && m.subscription === sub;

  it('replays exactly what was missed and may be seen, in order, then goes live', async () => {
    const c1 = await open(MEMBER);
    expect(await c1.request({ type: 'subscribe', id: 'n', object: 'note' })).to.deep.equal({ type: 'ack', id: 'n', object: 'note' });
    const a = await notes.create('a');
    const created = await c1.next(change('n'));
    expect(created).to.deep.include({ operation: 'created' });
    expect(created.position).to.be.a('number');
    await notes.write('PATCH', `${notes.path}/${a.id}`, { status: 'one' });
    const updated = await c1.next(change('n'));
    expect(updated.position).to.be.greaterThan(created.position);
    const seen = updated.position as number;
    c1.close();

    // Missed: a create, an update, a change out of the member's scope, a delete.
    const b = await notes.create('b');
    await notes.write('PATCH', `${notes.path}/${a.id}`, { title: 'a2' });
    await notes.create('theirs', 'someone');
    await notes.write('DELETE', `${notes.path}/${b.id}`);
    const last = await notes.head();

    const c2 = await open(MEMBER);
    c2.send({ type: 'subscribe', id: 'n', object: 'note', after: seen });
    const replayed = [await c2.next(change('n')), await c2.next(change('n')), await c2.next(change('n'))];
    expect(replayed.map((m) => [m.operation, m.record.id])).to.deep.equal([
      ['created', b.id],
      ['updated', a.id],
      ['deleted', b.id],
    ]);
    expect(replayed.map((m) => m.position)).to.deep.equal([seen + 1, seen + 2, seen + 4]);
    for (const m of replayed) expect(m.record).not.to.have.property('secret');
    expect(replayed[1].record).to.include({ title: 'a2', owner: 'max' });
    const ack = await c2.next((m) => m.id === 'n' && m.type === 'ack');
    expect(ack).to.deep.equal({ type: 'ack', id: 'n', object: 'note', position: last });
    await c2.none(change('n'), 200);

    await notes.create('live');
    const live = await c2.next(change('n'));
    expect(live).to.deep.include({ operation: 'created', position: last + 1 });
    expect(live.record).to.include({ title: 'live' });
  });

  it('applies the subscription filter to what it replays', async () => {
    const start = await notes.head();
    await notes.create('f1', 'max', { status: 'keep' });
    await notes.create('f2', 'max', { status: 'drop' });
    const c = await open(MEMBER);
    c.send({ type: 'subscribe', id: 'f', object: 'note', filters: [['status', '=', 'keep']], after: start });
    const only = await c.next(change('f'));
    expect(only).to.deep.include({ operation: 'created', position: start + 1 });
    expect(only.record).to.include({ title: 'f1' });
    expect(await c.next((m) => m.id === 'f' && m.type === 'ack')).to.deep.include({ position: start + 2 });
    await c.none(change('f'), 200);
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
    const c = await open(MEMBER);
    c.send({ type: 'subscribe', id: 'w', object: 'note', after: start });
    await writer;
    const positions: number[] = [];
    while (positions.length < total) positions.push((await c.next(change('w'))).position as number);
    await c.none(change('w'), 300);
    const expected = Array.from({ length: total }, (_, i) => start + 1 + i);
    expect(positions).to.deep.equal(expected);
    const ack = c.messages.find((m) => m.id === 'w' && m.type === 'ack') ?? (await c.next((m) => m.id === 'w' && m.type === 'ack'));
    expect(ack.position).to.be.within(start + 5, start + total);
  });

  it('answers INVALID_REQUEST naming maxReplay when the client is too far behind, and creates no subscription', async () => {
    while ((await notes.head()) <= MAX_REPLAY + 1) await notes.create('filler');
    const c = await open(MEMBER);
    const err = await c.request({ type: 'subscribe', id: 'far', object: 'note', after: 0 });
    expect(err).to.deep.include({ type: 'error', id: 'far', code: 'INVALID_REQUEST' });
    expect(err.details).to.deep.equal({ limit: 'plugins.realtime.maxReplay', max: MAX_REPLAY, after: 0 });
    await c.none(change('far'), 100);
    // The id is free again: a fresh subscription (no replay) is accepted.
    expect(await c.request({ type: 'subscribe', id: 'far', object: 'note' })).to.deep.equal({ type: 'ack', id: 'far', object: 'note' });
  });

  it('refuses an `after` that is not a position', async () => {
    const c = await open(MEMBER);
    for (const after of [-1, 1.5, '3', null]) {
      const err = await c.request({ type: 'subscribe', id: `bad${String(after)}`, object: 'note', after });
      expect(err, String(after)).to.deep.include({ type: 'error', code: 'INVALID_REQUEST' });
      expect(err.message).to.include("'after'");
    }
  });
});

describe('realtime: resume without the events plugin', function () {
  this.timeout(20_000);
  let s: TestServer;

  before(async () => {
    s = await startServer({ plugins: { realtime: true } }, { identityFromHeader: true });
  });
  after(async () => {
    await s?.stop();
  });

  it('answers INVALID_REQUEST: the change feed is not enabled', async () => {
    const c = await Client.open(wsUrl(s.url), identityHeader({ id: 'carol', roles: ['manager'] }));
    try {
      const err = await c.request({ type: 'subscribe', id: 's', object: 'project', after: 3 });
      expect(err).to.deep.include({ type: 'error', id: 's', code: 'INVALID_REQUEST', details: { parameter: 'after' } });
      expect(err.message).to.include('change feed').and.include('not enabled');
      expect(await c.request({ type: 'subscribe', id: 's', object: 'project' })).to.deep.equal({ type: 'ack', id: 's', object: 'project' });
    } finally {
      c.close();
    }
  });
});
