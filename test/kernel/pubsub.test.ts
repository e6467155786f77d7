/** The kernel's pubsub service and WebSocket upgrade routing. */
import { expect } from 'chai';
import WebSocket from 'ws';
import { RECORD_CHANGED_CHANNEL, type RecordChangedMessage } from '../../kernel';
import { startServer, USERS, type TestServer } from '../helpers/server';

describe('kernel pubsub', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });
  const start = async () => {
    const s = await startServer({ plugins: { rpc: true }, security: { adminRoles: ['admin'], allowBodyUser: true } });
    servers.push(s);
    return s;
  };

  it('publishes every committed change on the record-changed channel, as a copy', async () => {
    const s = await start();
    const heard: RecordChangedMessage[] = [];
    await s.kernel.resolve('pubsub').subscribe(RECORD_CHANGED_CHANNEL, (m) => heard.push(m as RecordChangedMessage));
    const created = await s.rpc({ op: 'create', object: 'account', args: { name: 'Pubsub Ltd' }, user: USERS.carol });
    expect(created.status).to.equal(200);
    expect(heard).to.have.length(1);
    expect(heard[0]).to.deep.include({ object: 'account', type: 'created', id: created.body.id });
    expect(heard[0].record).to.include({ name: 'Pubsub Ltd' });
  });

  it('keeps two kernels apart, and ends a subscription when asked', async () => {
    const [a, b] = [await start(), await start()];
    const heardA: unknown[] = [];
    const heardB: unknown[] = [];
    const endA = await a.kernel.resolve('pubsub').subscribe('ch', (m) => heardA.push(m));
    await b.kernel.resolve('pubsub').subscribe('ch', (m) => heardB.push(m));
    await a.kernel.resolve('pubsub').publish('ch', { n: 1 });
    await endA();
    await a.kernel.resolve('pubsub').publish('ch', { n: 2 });
    expect(heardA).to.deep.equal([{ n: 1 }]);
    expect(heardB).to.deep.equal([]);
  });

  it('refuses a WebSocket upgrade to a path nobody serves with 404', async () => {
    const s = await start();
    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/nowhere`);
    const status = await new Promise<number | undefined>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.on('error', () => resolve(undefined));
    });
    expect(status).to.equal(404);
  });
});
