/**
 * The memory driver keeps an outbox too: its transactions run one at a time and apply their writes
 * at commit, so an event is numbered in commit order and a rolled-back write leaves none.
 */
import { expect } from 'chai';
import { readFeed } from '../../../plugins/events';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';
import { MANAGER, notesApp } from './outbox-helpers';

describe('events: outbox (memory)', () => {
  let s: TestServer;
  const app = notesApp();

  before(async () => {
    s = await startServer(
      {
        metadata: [app.dir],
        datasources: { default: { driver: 'memory' } },
        plugins: { rest: true, events: { dispatcher: { enabled: false } } },
      },
      { identityFromHeader: true },
    );
    s.kernel.hooks.afterCreate.for('note').tap('test', (ctx) => {
      if ((ctx.data as { title?: string } | undefined)?.title === 'boom') throw new Error('boom after the write');
    });
  });
  after(async () => {
    await s?.stop();
    app.remove();
  });

  it('numbers committed changes in order and records nothing for a rolled-back one', async () => {
    const post = (title: string) => s.request('POST', `${s.kernel.http.routes.data}/note`, { title }, identityHeader(MANAGER));
    expect((await post('one')).status).to.equal(201);
    expect((await post('boom')).status).to.equal(500);
    await Promise.all(['a', 'b', 'c'].map(post));
    const { events } = await readFeed(s.kernel.resolve('datasources').get('default'), { after: 0, limit: 100 });
    expect(events.map((e) => e.position)).to.deep.equal([1, 2, 3, 4]);
    expect(events.map((e) => e.record.title).sort()).to.deep.equal(['a', 'b', 'c', 'one']);
  });
});
