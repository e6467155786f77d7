/**
 * The change feed at GET /api/events: each event judged as the caller (object permission, record
 * scope, field masking; the author for admins only), paging with after/limit where `next` moves
 * past filtered events, bad parameters as 400 naming them; and retention pruning old events.
 * SQLite, one server.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import type { Datasource } from '../../../kernel';
import { EventFeed, pruneEvents, readFeed } from '../../../plugins/events';
import { tempDir } from '../../drivers/sql/helpers';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';
import { ADMIN, MANAGER, MEMBER, notesApp } from './outbox-helpers';

describe('events: change feed', function () {
  this.timeout(20_000);
  let s: TestServer;
  let app: ReturnType<typeof notesApp>;
  let tmp: ReturnType<typeof tempDir>;
  let ds: Datasource;
  const ids: Record<string, string> = {};

  before(async () => {
    app = notesApp();
    tmp = tempDir();
    s = await startServer(
      {
        metadata: [app.dir],
        datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: join(tmp.dir, 'feed.sqlite') } } },
        plugins: { rest: true, events: { feedMaxLimit: 3, dispatcher: { enabled: false } } },
      },
      { identityFromHeader: true },
    );
    ds = s.kernel.resolve('datasources').get('default');
    const create = async (title: string, owner: string) => {
      const res = await s.request('POST', `${s.kernel.http.routes.data}/note`, { title, owner, secret: 42 }, identityHeader(MANAGER));
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      ids[title] = res.body.id;
      // Events apart in time (their `at` has ms resolution), for the retention tests.
      await new Promise((resolve) => setTimeout(resolve, 3));
    };
    await create('mine', 'max'); // 1
    await create('theirs', 'someone'); // 2
    await create('mine too', 'max'); // 3
    const res = await s.request('PATCH', `${s.kernel.http.routes.data}/note/${ids.mine}`, { secret: 7 }, identityHeader(MANAGER)); // 4
    expect(res.status).to.equal(200);
    const res2 = await s.request(
      'PATCH',
      `${s.kernel.http.routes.data}/note/${ids.mine}`,
      { secret: 8, status: 'x' },
      identityHeader(MANAGER),
    ); // 5
    expect(res2.status).to.equal(200);
  });
  after(async () => {
    await s?.stop();
    app?.remove();
    tmp?.remove();
  });

  const feed = (query: string, user: object | null) => s.request('GET', `/api/events${query}`, undefined, identityHeader(user));

  it('shows a restricted caller only the records in its scope, without hidden fields, and `next` moves past the rest', async () => {
    const res = await feed('?limit=3', MEMBER);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.next).to.equal(3);
    expect(res.body.events.map((e: any) => e.position)).to.deep.equal([1, 3]);
    for (const e of res.body.events) {
      expect(Object.keys(e).sort()).to.deep.equal(['at', 'fields', 'id', 'object', 'operation', 'position', 'record']);
      expect(e.record).not.to.have.property('secret');
      expect(e.fields).not.to.include('secret');
      expect(e.record.owner).to.equal('max');
    }
    expect(res.body.events[0]).to.include({ object: 'note', id: ids.mine, operation: 'created' });
    expect(res.body.events[0].fields).to.include.members(['title', 'owner']);

    const rest = await feed('?after=3', MEMBER);
    expect(rest.body.next).to.equal(5);
    // The update of `secret` alone is shown with no readable field changed; the next one names status only.
    expect(rest.body.events.map((e: any) => [e.position, e.fields])).to.deep.equal([
      [4, []],
      [5, ['status']],
    ]);
    expect((await feed('?after=5', MEMBER)).body).to.deep.equal({ events: [], next: 5 });
  });

  it('shows a manager everything, an admin also the author', async () => {
    const manager = await feed('?after=1&limit=2', MANAGER);
    expect(manager.body.events.map((e: any) => e.position)).to.deep.equal([2, 3]);
    expect(manager.body.events[0].record).to.include({ secret: 42, owner: 'someone' });
    expect(manager.body.events[0]).not.to.have.property('user');
    const admin = await feed('?object=note&limit=100', ADMIN);
    expect(admin.body.events).to.have.length(3, 'capped by feedMaxLimit');
    expect(admin.body.events[0]).to.include({ user: 'mia' });
    expect(admin.body.next).to.equal(3);
  });

  it('refuses bad parameters with 400 naming them', async () => {
    for (const [query, parameter] of [
      ['?after=-1', 'after'],
      ['?after=abc', 'after'],
      ['?limit=0', 'limit'],
      ['?limit=1&limit=2', 'limit'],
      ['?datasource=nope', 'datasource'],
      ['?object=nope', 'object'],
      ['?since=1', 'since'],
    ]) {
      const res = await feed(query, MANAGER);
      expect(res.status, query).to.equal(400);
      expect(res.body.error.code, query).to.equal('INVALID_REQUEST');
      expect(res.body.error.message, query).to.include(parameter);
    }
  });

  it('is a service, and readable without HTTP', async () => {
    const service = s.kernel.resolve('changeFeed') as EventFeed;
    expect(service.datasources()).to.deep.equal(['default']);
    const page = await service.read(MEMBER, { after: 0, limit: 2 });
    expect(page).to.include({ next: 2 });
    expect(page.events.map((e) => e.position)).to.deep.equal([1]);
    const raw = await readFeed(ds, { after: 4, limit: 10 });
    expect(raw.events.map((e) => e.position)).to.deep.equal([5]);
    expect(raw.events[0].record).to.include({ secret: 8 });
  });

  it('prunes the oldest events up to the first one within the retention', async () => {
    const events = (await readFeed(ds, { after: 0, limit: 10 })).events;
    const cutoff = new Date(Date.parse(events[2].at));
    const expired = events.filter((e) => Date.parse(e.at) < cutoff.getTime()).map((e) => e.position);
    expect(expired).to.deep.equal([1, 2]);
    expect(await pruneEvents(ds, cutoff, { batch: 1, keepUnread: false })).to.equal(2);
    expect((await readFeed(ds, { after: 0, limit: 10 })).events.map((e) => e.position)).to.deep.equal([3, 4, 5]);
  });

  it('prunes events older than the retention', async () => {
    expect(await pruneEvents(ds, new Date(Date.now() - 3_600_000), { keepUnread: false })).to.equal(0);
    const left = (await readFeed(ds, { after: 0, limit: 10 })).events.length;
    expect(left).to.be.at.least(3);
    expect(await pruneEvents(ds, new Date(Date.now() + 1000), { batch: 2, keepUnread: false })).to.equal(left);
    expect((await readFeed(ds, { after: 0, limit: 10 })).events).to.deep.equal([]);
    // Positions go on after a prune.
    const res = await s.request('POST', `${s.kernel.http.routes.data}/note`, { title: 'later', owner: 'max' }, identityHeader(MANAGER));
    expect(res.status).to.equal(201);
    expect((await feed('', MEMBER)).body.events.map((e: any) => e.position)).to.deep.equal([6]);
  });
});
